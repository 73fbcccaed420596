/// What a format-3 sealed code carries after its config, inside the box and under the
/// issuer's signature: tagged fields, each `u8 tag · varint length · bytes`, tags in
/// ascending order, each at most once (docs/FORMAT.md, "Extensions").
///
/// | tag | field | size |
/// |---|---|---|
/// | 1 | credential: the household's keyed fingerprint of the clientId and clientSecret the code carries (a receipt names it back) | 16 |
///
/// A tag this version does not know is skipped (it is signed: only the issuer put it
/// there); a known tag of the wrong size, tags out of order or twice make the code malformed.
package struct SealedExtensions: Sendable, Equatable {
    package var credential: [UInt8]?

    package init(credential: [UInt8]? = nil) {
        self.credential = credential
    }

    enum Tag: UInt8 {
        case credential = 1
    }

    static let credentialSize = 16

    var encoded: [UInt8] {
        var output: [UInt8] = []
        if let credential { Self.append(.credential, credential, to: &output) }
        return output
    }

    static func append(_ tag: Tag, _ value: [UInt8], to output: inout [UInt8]) {
        output.append(tag.rawValue)
        ByteWriter.appendVarint(value.count, to: &output)
        output += value
    }

    /// Reads the fields; nil when they are malformed.
    init?(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        var last: UInt8 = 0
        while !reader.isAtEnd {
            guard let tag = reader.byte(), tag > last, let length = reader.varint(), let value = reader.take(length) else { return nil }
            last = tag
            switch Tag(rawValue: tag) {
            case .credential?:
                guard value.count == Self.credentialSize else { return nil }
                credential = value
            case nil:
                continue
            }
        }
    }
}

/// Appends the varint lengths `ByteReader.varint` reads (LEB128, at most 3 bytes).
enum ByteWriter {
    static func appendVarint(_ value: Int, to output: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            output.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }
}
