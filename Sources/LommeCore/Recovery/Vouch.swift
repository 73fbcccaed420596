/// The household key's statement of which issuers (the parents' signing keys) speak for
/// the household, with a version (docs/CODES.md, "Vouch"):
///
///     u8 format (1) · u64 version · u8 n · n × 16-byte issuer ids · 64 signature
///
/// An issuer id is BLAKE2b-128 of the issuer's Ed25519 key. The signature is the household
/// key's Ed25519 signature of `"lomme-vault vouch v1" 0x00 · household public key · the
/// bytes before the signature`. The version is the Unix time in milliseconds it was signed,
/// at least the previous version + 1: a new laptop restored from the kit signs a newer vouch
/// without knowing the old one.
package struct Vouch: Sendable, Equatable {
    /// Unix milliseconds of the signing (at least the previous version + 1).
    package let version: UInt64

    /// When it was signed (to the second).
    package var signed: Instant { Instant(milliseconds: Int64(clamping: version)) }
    /// The issuers it names.
    package let issuers: [IssuerID]
    let signature: [UInt8]

    static let format: UInt8 = 1
    static let domain = Array("lomme-vault vouch v1".utf8) + [0]
    /// At most this many issuers (a household of several parents' machines, not more).
    package static let maximumIssuers = 8

    /// Signs a vouch naming `ids` (`IssuerKey.id`) with the household key.
    package static func make(_ household: HouseholdKeyPair, version: UInt64, issuers ids: [IssuerID]) throws(LommeError) -> Vouch {
        guard !ids.isEmpty else {
            throw LommeError.usage(.vouchEmpty, "a vouch must name at least one issuer (this machine's); nothing was signed")
        }
        guard ids.count <= maximumIssuers else {
            throw LommeError.usage(.vouchEmpty, "a vouch names at most \(maximumIssuers) issuers; nothing was signed")
        }
        let body = Self.body(version: version, ids: ids)
        let signature = PublicKeyCrypto.sign(domain + household.publicKey.bytes + body, secretKey: household.secretKey)
        return Vouch(version: version, issuers: ids, signature: signature)
    }

    private init(version: UInt64, issuers: [IssuerID], signature: [UInt8]) {
        self.version = version
        self.issuers = issuers
        self.signature = signature
    }

    static func body(version: UInt64, ids: [IssuerID]) -> [UInt8] {
        [format] + Envelope.bigEndian(version) + [UInt8(ids.count)] + ids.flatMap(\.bytes)
    }

    package var bytes: [UInt8] { Self.body(version: version, ids: issuers) + signature }

    /// Reads a vouch's bytes (nil when malformed); the signature is checked by `isSigned(by:)`.
    package init?(bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Vouch.format, let version = reader.uint64(), let count = reader.byte(),
              count > 0, Int(count) <= Vouch.maximumIssuers else { return nil }
        var ids: [IssuerID] = []
        for _ in 0..<count {
            guard let id = reader.take(IssuerID.size).flatMap(IssuerID.init(bytes:)) else { return nil }
            ids.append(id)
        }
        guard let signature = reader.take(PublicKeyCrypto.signatureSize), reader.isAtEnd else { return nil }
        self.init(version: version, issuers: ids, signature: signature)
    }

    /// True when the household key `root` signed it.
    package func isSigned(by root: HouseholdKey) -> Bool {
        root.verifies(signature, of: Vouch.domain + root.bytes + Self.body(version: version, ids: issuers))
    }

    /// True when it names the issuer whose key is `issuer`.
    package func names(_ issuer: IssuerKey) -> Bool { issuers.contains(issuer.id) }
}

/// A new household key vouched for by the old one (a new recovery kit made with the old):
/// `32 old household key · 64 signature`, the old key's Ed25519 signature of
/// `"lomme-vault household rotation v1" 0x00 · old key · new key`. A child that pinned the
/// old key takes the new one from a code that carries this.
package struct RootRotation: Sendable, Equatable {
    package let old: HouseholdKey
    let signature: [UInt8]

    static let domain = Array("lomme-vault household rotation v1".utf8) + [0]
    static let size = 32 + 64

    package static func make(from old: HouseholdKeyPair, to new: HouseholdKey) -> RootRotation {
        RootRotation(old: old.publicKey, signature: PublicKeyCrypto.sign(domain + old.publicKey.bytes + new.bytes, secretKey: old.secretKey))
    }

    private init(old: HouseholdKey, signature: [UInt8]) {
        self.old = old
        self.signature = signature
    }

    package init?(bytes: [UInt8]) {
        guard bytes.count == RootRotation.size, let old = HouseholdKey(bytes: Array(bytes.prefix(32))) else { return nil }
        self.init(old: old, signature: Array(bytes.suffix(64)))
    }

    package var bytes: [UInt8] { old.bytes + signature }

    /// True when the old key signed `new` as its successor.
    package func vouches(for new: HouseholdKey) -> Bool {
        old.verifies(signature, of: RootRotation.domain + old.bytes + new.bytes)
    }

    /// True when `chain` (oldest first) leads, link by link, to `key`: each link signed by
    /// its old key for the next link's old key, the last for `key` itself, no key twice.
    /// An empty chain leads to any key (there is nothing to follow).
    package static func leads(_ chain: [RootRotation], to key: HouseholdKey) -> Bool {
        let keys = chain.map(\.old) + [key]
        guard Set(keys).count == keys.count else { return false }
        return chain.indices.allSatisfy { chain[$0].vouches(for: keys[$0 + 1]) }
    }

    /// The links after `pinned` in `chain` (what a device that pinned `pinned` follows), or
    /// nil when `pinned` is none of the chain's old keys.
    package static func links(after pinned: HouseholdKey, in chain: [RootRotation]) -> ArraySlice<RootRotation>? {
        chain.firstIndex { $0.old == pinned }.map { chain[$0...] }
    }

    /// Links one after another, as a code (tag 5) and a kit's QR code carry them.
    package static func chain(_ bytes: [UInt8]) -> [RootRotation]? {
        guard !bytes.isEmpty, bytes.count % size == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: size).map { RootRotation(bytes: Array(bytes[$0..<$0 + size]))! }
    }
}
