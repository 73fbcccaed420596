/// What a format-3 sealed code carries after its config, inside the box and under the
/// issuer's signature: tagged fields, each `u8 tag · varint length · bytes`, tags in
/// ascending order, each at most once (docs/CODES.md, "Extensions").
///
/// | tag | field | size |
/// |---|---|---|
/// | 1 | credential: the household's keyed fingerprint of the clientId and clientSecret the code carries (a receipt names it back) | 16 |
/// | 2 | household: the household key (Ed25519) | 32 |
/// | 3 | vouch: the household key's newest vouch (`Vouch`) | 90 + 16 a further issuer |
/// | 4 | rotation: the last rotation of the household key, the previous key's vouch for this one (`RootRotation`) | 96 |
/// | 5 | earlier rotations: the rotations before tag 4's, oldest first (a chain from the household's first key) | 96 each |
/// | 6 | revision: the config's revision, u64 big-endian (docs/SYNC.md, "The revision") | 8 |
/// | 7 | issuer's name: the parent's machine that issued it, as the household names it (UTF-8) | 1–64 |
///
/// A tag this version does not know is skipped (it is signed: only the issuer put it
/// there); a known tag of the wrong size, tags out of order or twice make the code malformed.
package struct SealedExtensions: Sendable, Equatable {
    package var credential: [UInt8]?
    package var household: HouseholdKey?
    package var vouch: Vouch?
    /// The chain of rotations from the household's first key to `household`, oldest first
    /// (tags 5 and 4: a device that knows only tag 4 follows the last one, as before chains).
    package var rotations: [RootRotation]
    /// The config's revision (a household of several parents' machines counts them).
    package var revision: UInt64?
    /// The name of the parent's machine that issued the code, for the child to be told.
    package var issuerName: String?

    package init(credential: [UInt8]? = nil, household: HouseholdKey? = nil, vouch: Vouch? = nil, rotations: [RootRotation] = [],
                 revision: UInt64? = nil, issuerName: String? = nil) {
        self.credential = credential
        self.household = household
        self.vouch = vouch
        self.rotations = rotations
        self.revision = revision
        self.issuerName = issuerName
    }

    enum Tag: UInt8 {
        case credential = 1, household, vouch, rotation, earlierRotations, revision, issuerName
    }

    static let maximumNameLength = 64

    static let credentialSize = 16

    var encoded: [UInt8] {
        var output: [UInt8] = []
        if let credential { Self.append(.credential, credential, to: &output) }
        if let household { Self.append(.household, household.bytes, to: &output) }
        if let vouch { Self.append(.vouch, vouch.bytes, to: &output) }
        if let last = rotations.last { Self.append(.rotation, last.bytes, to: &output) }
        if rotations.count > 1 { Self.append(.earlierRotations, rotations.dropLast().flatMap(\.bytes), to: &output) }
        if let revision { Self.append(.revision, Envelope.bigEndian(revision), to: &output) }
        if let issuerName { Self.append(.issuerName, Array(issuerName.utf8.prefix(Self.maximumNameLength)), to: &output) }
        return output
    }

    static func append(_ tag: Tag, _ value: [UInt8], to output: inout [UInt8]) {
        output.append(tag.rawValue)
        ByteWriter.appendVarint(value.count, to: &output)
        output += value
    }

    /// Reads the fields; nil when they are malformed.
    init?(_ bytes: [UInt8]) {
        var last: RootRotation?, earlier: [RootRotation] = []
        var reader = ByteReader(bytes)
        var previousTag: UInt8 = 0
        while !reader.isAtEnd {
            guard let tag = reader.byte(), tag > previousTag, let length = reader.varint(), let value = reader.take(length) else { return nil }
            previousTag = tag
            switch Tag(rawValue: tag) {
            case .credential?:
                guard value.count == Self.credentialSize else { return nil }
                credential = value
            case .household?:
                guard let key = HouseholdKey(bytes: value) else { return nil }
                household = key
            case .vouch?:
                guard let parsed = Vouch(bytes: value) else { return nil }
                vouch = parsed
            case .rotation?:
                guard let parsed = RootRotation(bytes: value) else { return nil }
                last = parsed
            case .earlierRotations?:
                guard last != nil, let parsed = RootRotation.chain(value) else { return nil }
                earlier = parsed
            case .revision?:
                var number = ByteReader(value)
                guard value.count == 8, let parsed = number.uint64() else { return nil }
                revision = parsed
            case .issuerName?:
                guard (1...Self.maximumNameLength).contains(value.count), let text = String(validating: value, as: UTF8.self) else { return nil }
                issuerName = text
            case nil:
                continue
            }
        }
        rotations = earlier + (last.map { [$0] } ?? [])
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
