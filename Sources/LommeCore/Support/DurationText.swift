/// Durations as people write them: `90s`, `10m`, `2h`, `1h30m`, `3d`, or plain seconds.
/// The one parser of every option that takes a duration (`unlock --timeout`,
/// `token --timeout`, `issue --expires`), and the one way they are reported.
package enum DurationText {
    /// The units, largest first: what `parse` reads and `format` writes.
    static let units: [(letter: Character, seconds: UInt64)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]

    package static func parse(_ text: String) -> UInt32? {
        guard !text.isEmpty else { return nil }
        if let plain = UInt32(text) { return plain }
        var total: UInt64 = 0
        var number: UInt64? = nil
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                number = (number ?? 0) * 10 + UInt64(digit)
                if number! > UInt64(UInt32.max) { return nil }
                continue
            }
            guard let unit = units.first(where: { $0.letter == character })?.seconds, let value = number else { return nil }
            total += value * unit
            number = nil
            if total > UInt64(UInt32.max) { return nil }
        }
        guard number == nil else { return nil }
        return UInt32(total)
    }

    /// `parse` for the option named `option`: more than 0 and at most `limit` seconds, else a
    /// usage error saying what the option takes.
    package static func parse(_ text: String, option: String, atMost limit: UInt32) throws(LommeError) -> UInt32 {
        guard let seconds = parse(text), seconds > 0 else {
            throw LommeError.usage(.durationInvalid, "\(option) takes a duration such as 90s, 10m, 2h or 1h30m, at most \(format(UInt64(limit))) (\"\(JSON.printable(text))\" is not one)")
        }
        guard seconds <= limit else { throw LommeError.usage(.durationTooLong, "\(option) can be at most \(format(UInt64(limit)))") }
        return seconds
    }

    /// Exact, in the form `parse` reads: `45s`, `1m30s`, `10m`, `1h30m`, `2h`, `1d12h`, `0s`.
    package static func format(_ seconds: UInt64) -> String {
        guard seconds > 0 else { return "0s" }
        var rest = seconds, text = ""
        for unit in units where rest >= unit.seconds {
            text += "\(rest / unit.seconds)\(unit.letter)"
            rest %= unit.seconds
        }
        return text
    }

    /// `format` to its two largest units, for "how long ago" and "how long left":
    /// `45s`, `2m30s`, `23h59m`, `3h`, `6d4h`.
    package static func rough(_ seconds: UInt64) -> String {
        guard let first = units.firstIndex(where: { seconds >= $0.seconds }) else { return "0s" }
        let big = units[first]
        var text = "\(seconds / big.seconds)\(big.letter)"
        if first + 1 < units.count {
            let small = units[first + 1]
            let rest = seconds % big.seconds / small.seconds
            if rest > 0 { text += "\(rest)\(small.letter)" }
        }
        return text
    }
}
