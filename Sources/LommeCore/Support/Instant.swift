import Glibc

/// A moment in time, to the second: Unix seconds, UTC. What the vault keeps as a time
/// (`created`, `updated`, a child's `added`, the household key's `made`, a pin's `pinned`,
/// `secretSet`) and what people are shown, formatted here only: RFC 3339 in UTC
/// (`2025-01-31T12:00:00Z`, `text`), in the vault's JSON as on a terminal.
///
/// To the second because that is what the vault has always written; a sealed code's issue
/// time and a vouch's version are Unix milliseconds, kept as the integers the formats carry
/// (`init(milliseconds:)` shows one).
package struct Instant: Sendable, Hashable, Comparable {
    /// Seconds since 1970-01-01T00:00:00Z.
    package let seconds: Int64

    package init(seconds: Int64) {
        self.seconds = seconds
    }

    /// The second `milliseconds` (Unix milliseconds) falls in.
    package init(milliseconds: Int64) {
        seconds = milliseconds >= 0 ? milliseconds / 1000 : -((-(milliseconds + 1)) / 1000) - 1
    }

    /// Now, from the system's clock.
    package static func now() -> Instant {
        Instant(seconds: Int64(time(nil)))
    }

    package static func < (a: Instant, b: Instant) -> Bool { a.seconds < b.seconds }

    // MARK: - Text

    /// The first and last second RFC 3339 can write (years 0000…9999).
    static let writable: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// RFC 3339 in UTC, `2025-01-31T12:00:00Z`: the vault's spelling and what people see. A
    /// time outside years 0…9999 (only from a damaged or hostile field) is said to be one,
    /// never computed.
    package var text: String {
        guard let parts = parts else { return "(a time outside years 0-9999)" }
        return day(parts) + "T" + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "Z"
    }

    /// For people: the local time, as `date` shows it (the zone from TZ or the system's),
    /// to the minute: `2025-01-31 13:00 CET`. What the vault and `--json` keep is `text`.
    package var shown: String {
        guard Instant.writable.contains(seconds) else { return "(a time outside years 0-9999)" }
        var value = time_t(seconds)
        var parts = tm()
        tzset()
        guard localtime_r(&value, &parts) != nil else { return text }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M %Z", &parts)
        guard count > 0 else { return text }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The day in UTC, `2025-01-31` (the recovery kit's date).
    package var day: String {
        guard let parts = parts else { return "(a time outside years 0-9999)" }
        return day(parts)
    }

    private var parts: tm? {
        guard Instant.writable.contains(seconds) else { return nil }
        var value = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&value, &parts) != nil else { return nil }
        return parts
    }

    private func day(_ parts: tm) -> String {
        let year = String(parts.tm_year + 1900)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.tm_mon + 1) + "-" + two(parts.tm_mday)
    }

    private func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Reads an RFC 3339 time: what every version wrote (`2025-01-31T12:00:00Z`), and what
    /// a newer one might (a fraction of a second, dropped; `t`, `z` or a space; an offset
    /// `+01:00`). Nil for anything else.
    package init?(text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? { Instant.digits(bytes[range]) }
        guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7), bytes[7] == UInt8(ascii: "-"),
              let day = number(8..<10), [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]),
              let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"), let minute = number(14..<16), bytes[16] == UInt8(ascii: ":"),
              let second = number(17..<19),
              (1...12).contains(month), (1...Instant.days(in: month, of: year)).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var rest = bytes[19...]
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let digits = rest.prefix { (0x30...0x39).contains($0) }
            guard !digits.isEmpty else { return nil }
            rest = rest.dropFirst(digits.count)
        }
        var offset: Int64 = 0
        switch rest.first {
        case UInt8(ascii: "Z")?, UInt8(ascii: "z")?:
            guard rest.count == 1 else { return nil }
        case let sign? where sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"):
            let zone = Array(rest)
            guard zone.count == 6, zone[3] == UInt8(ascii: ":"),
                  let hours = Instant.digits(zone[1..<3]), let minutes = Instant.digits(zone[4..<6]), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        let days = Instant.daysFromEpoch(year: year, month: month, day: day)
        self.init(seconds: days * 86400 + hour * 3600 + minute * 60 + second - offset)
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    private static func days(in month: Int64, of year: Int64) -> Int64 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month) - 1]
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's algorithm).
    private static func daysFromEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
