/// Durations as people write them: `90s`, `10m`, `2h`, `1h30m`, or plain seconds.
package enum DurationText {
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
            let unit: UInt64
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: return nil
            }
            guard let value = number else { return nil }
            total += value * unit
            number = nil
            if total > UInt64(UInt32.max) { return nil }
        }
        guard number == nil else { return nil }
        return UInt32(total)
    }

    /// `1h 30m`, `10m`, `45s`.
    package static func format(_ seconds: UInt64) -> String {
        if seconds < 60 { return "\(seconds)s" }
        let hours = seconds / 3600, minutes = (seconds % 3600) / 60
        if hours == 0 { return "\(minutes)m" }
        return minutes == 0 ? "\(hours)h" : "\(hours)h \(minutes)m"
    }
}
