/// What travels inside a version-2 envelope's sealed box:
///
///     32 issuer Ed25519 package key · 64 signature · packed config (CompactConfig)
///
/// The signature is Ed25519 (`crypto_sign_detached`) over a domain-separated message:
///
///     "lomme-vault sealed code v2" 0x00 · the 41 header bytes · the recipient's 32-byte
///     X25519 package key · the issuer's 32-byte key · the packed config
///
/// so it cannot be taken for a signature of anything else, cannot be moved to another
/// header (times, id) or another recipient, and only someone who can open the box sees it.
package struct SealedContent: Sendable {
    package let issuerKey: [UInt8]
    package let config: Config

    static let domain = Array("lomme-vault sealed code v2".utf8) + [0]
    static let minimumSize = PublicKeyCrypto.signPublicKeySize + PublicKeyCrypto.signatureSize + 1

    package var issuerFingerprint: String { Fingerprint.of(issuerKey) }

    package static func signedMessage(header: [UInt8], recipient: [UInt8], issuer: [UInt8], packed: [UInt8]) -> [UInt8] {
        domain + header + recipient + issuer + packed
    }

    package static func encode(issuer: [UInt8], signature: [UInt8], packed: [UInt8]) -> [UInt8] {
        issuer + signature + packed
    }

    /// Reads the box's plaintext and checks the signature; `afterSignature` runs once the
    /// header is known to be the issuer's (the clock check), before the config is unpacked.
    init(_ inner: [UInt8], header: [UInt8], recipient: [UInt8], checksums: Bool,
         afterSignature: () throws(LommeError) -> Void = {}) throws(LommeError) {
        var reader = ByteReader(inner)
        guard inner.count >= SealedContent.minimumSize, let issuer = reader.take(PublicKeyCrypto.signPublicKeySize),
            let signature = reader.take(PublicKeyCrypto.signatureSize), var packed = reader.take(reader.remaining)
        else {
            throw LommeError.refused("the sealed code's contents are too short to be whole; ask for a new QR code")
        }
        defer { PublicKeyCrypto.wipe(&packed) }
        var message = SealedContent.signedMessage(header: header, recipient: recipient, issuer: issuer, packed: packed)
        defer { PublicKeyCrypto.wipe(&message) }
        guard PublicKeyCrypto.verify(signature, of: message, publicKey: issuer) else {
            throw LommeError.refused("the sealed code has been tampered with (the issuer's signature inside it does not match); do not use it")
        }
        try afterSignature()
        issuerKey = issuer
        config = try CompactConfig.decode(packed, checksums: checksums)
    }
}
