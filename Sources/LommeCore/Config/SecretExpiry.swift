import Glibc

/// The optional config field `secretExpires` (`YYYY-MM-DD`): the day the bank retires the
/// client secret. Within `warningDays` of it, and after it, the commands a person runs
/// warn on stderr (never `get`'s stdout, and `get`/`exec` stay silent).
package enum SecretExpiry {
    package static let warningDays = 14

    /// The date's first second (UTC), or nil when `text` is not a real `YYYY-MM-DD` date.
    package static func start(of text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (2000...9999).contains(year), (1...12).contains(month)
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        var date = tm()
        date.tm_year = Int32(year - 1900)
        date.tm_mon = Int32(month - 1)
        date.tm_mday = Int32(day)
        return Int64(timegm(&date))
    }

    package static func check(_ text: String) throws(LommeError) {
        guard start(of: text) != nil else {
            throw LommeError.refused(.secretExpiresInvalid, "secretExpires must be a date written YYYY-MM-DD, as 2027-02-24 (\"\(JSON.printable(text))\" is not one)")
        }
    }

    /// Whose warning it is: the child asks the parent, the parent asks the bank.
    package enum Reader: Sendable { case child, parent }

    /// The warning for `config` at `now`, or nil when it has no `secretExpires` or the day
    /// is more than `warningDays` away.
    package static func warning(_ config: Config?, now: Int64, for reader: Reader) -> String? {
        guard let config, let text = config.value(of: Config.Field.secretExpires), let day = start(of: text) else { return nil }
        // Whole days from today (UTC) to that day: the secret holds through its last day.
        let days = (day - (now - ((now % 86400) + 86400) % 86400)) / 86400
        guard days <= Int64(warningDays) else { return nil }
        let when = days > 1 ? "expires on \(text) (in \(days) days)"
            : days == 1 ? "expires tomorrow, \(text)"
            : days == 0 ? "expires today, \(text)"
            : "expired on \(text)"
        switch reader {
        case .child:
            return "warning: the client secret \(when); ask the parent for a new code once they have a new secret from the bank"
        case .parent:
            return "warning: the client secret \(when); order a new one at the bank, then run `lomme-vault set clientSecret` and `lomme-vault issue --all`"
        }
    }
}
