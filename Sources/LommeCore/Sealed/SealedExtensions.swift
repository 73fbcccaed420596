/// What a format-3 sealed code carries after its config, inside the box and under the
/// issuer's signature: tagged fields, each `u8 tag · varint length · bytes`, tags in
/// ascending order, each at most once (docs/CODES.md, "Extensions").
///
/// | tag | field | size |
/// |---|---|---|
/// | 1 | credential: the household's keyed fingerprint of the clientId and clientSecret the code carries (a receipt names it back) | 16 |
/// | 2 | household: the household key (Ed25519) | 32 |
/// | 3 | vouch: the household key's newest vouch (`Vouch`) | 90 + 16 a further issuer |
/// | 4 | rotation: the old household key's vouch for this one (`RootRotation`) | 96 |
///
/// A tag this version does not know is skipped (it is signed: only the issuer put it
/// there); a known tag of the wrong size, tags out of order or twice make the code malformed.
package struct SealedExtensions: Sendable, Equatable {
    package var credential: [UInt8]?
    package var household: [UInt8]?
    package var vouch: Vouch?
    package var rotation: RootRotation?

    package init(credential: [UInt8]? = nil, household: [UInt8]? = nil, vouch: Vouch? = nil, rotation: RootRotation? = nil) {
        self.credential = credential
        self.household = household
        self.vouch = vouch
        self.rotation = rotation
    }

    enum Tag: UInt8 {
        case credential = 1, household, vouch, rotation
    }

    static let credentialSize = 16

    var encoded: [UInt8] {
        var output: [UInt8] = []
        if let credential { Self.append(.credential, credential, to: &output) }
        if let household { Self.append(.household, household, to: &output) }
        if let vouch { Self.append(.vouch, vouch.bytes, to: &output) }
        if let rotation { Self.append(.rotation, rotation.bytes, to: &output) }
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
            case .household?:
                guard value.count == PublicKeyCrypto.signPublicKeySize else { return nil }
                household = value
            case .vouch?:
                guard let parsed = Vouch(bytes: value) else { return nil }
                vouch = parsed
            case .rotation?:
                guard let parsed = RootRotation(bytes: value) else { return nil }
                rotation = parsed
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
