/// The config inside a sealed envelope, packed small so the QR stays small: no JSON
/// for the four fields, the two 11-digit numbers as 5-byte integers.
///
///     u8 format (1) · text clientId · text clientSecret · u40 userId · u40 accountNr · text extras
///
/// where `text` is a varint length and UTF-8 bytes, and `extras` is the compact JSON
/// object of the extra fields, or empty.
enum CompactConfig {
    static let format: UInt8 = 1

    static func encode(_ config: Config) -> [UInt8] {
        var output: [UInt8] = [format]
        appendText(config.clientId, to: &output)
        appendText(config.clientSecret, to: &output)
        appendNumber(config.userId, to: &output)
        appendNumber(config.accountNr, to: &output)
        appendText(config.extras.isEmpty ? "" : JSON.object(config.extras).text, to: &output)
        return output
    }

    static func decode(_ bytes: [UInt8], checksums: Bool) throws(LommeError) -> Config {
        var reader = ByteReader(bytes)
        guard let format = reader.byte(), format == CompactConfig.format else {
            throw LommeError.refused(.codeNewerFormat, "the sealed config is in a format this lomme-vault does not know; upgrade lomme-vault")
        }
        guard let clientId = reader.text(), let clientSecret = reader.text(),
            let userId = reader.number(), let accountNr = reader.number(), let extrasText = reader.text(),
            reader.isAtEnd
        else {
            throw LommeError.refused(.codeMalformed, "the sealed config is malformed; ask for a new QR code")
        }
        var extras: [JSON.Member] = []
        if !extrasText.isEmpty {
            guard case .object(let members)? = try? JSON.parse(extrasText) else {
                throw LommeError.refused(.codeMalformed, "the sealed config's extra fields are malformed; ask for a new QR code")
            }
            extras = members
        }
        let config = Config(clientId: clientId, clientSecret: clientSecret, userId: userId, accountNr: accountNr, extras: extras)
        try config.validate(checksums: checksums)
        return config
    }

    static func appendText(_ text: String, to output: inout [UInt8]) {
        ByteWriter.appendVarint(text.utf8.count, to: &output)
        output.append(contentsOf: text.utf8)
    }

    static func appendNumber(_ digits: String, to output: inout [UInt8]) {
        let value = UInt64(digits) ?? 0
        for shift in stride(from: 32, through: 0, by: -8) { output.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }
}

/// Reads the fields of a byte string front to back; every read returns nil past the end.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint64() -> UInt64? {
        take(8)?.reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func varint() -> Int? {
        var value = 0
        for shift in stride(from: 0, to: 21, by: 7) {
            guard let next = byte() else { return nil }
            value |= Int(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
        }
        return nil
    }

    mutating func text() -> String? {
        guard let length = varint(), let raw = take(length) else { return nil }
        return String(validating: raw, as: UTF8.self)
    }

    /// An 11-digit number stored as a 5-byte integer.
    mutating func number() -> String? {
        guard let raw = take(5) else { return nil }
        let value = raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value <= 99_999_999_999 else { return nil }
        let digits = String(value)
        return String(repeating: "0", count: 11 - digits.count) + digits
    }
}
