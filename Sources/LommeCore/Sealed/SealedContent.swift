/// What travels inside an envelope's sealed box:
///
///     32 issuer Ed25519 key · 64 signature · body
///
/// The body is, in format 3, `varint n · packed config (n bytes, CompactConfig) ·
/// extensions` (`SealedExtensions`); in format 2 it is the packed config alone. The
/// signature is Ed25519 (`crypto_sign_detached`) over a domain-separated message:
///
///     "lomme-vault sealed code vN" 0x00 · the 41 header bytes · the recipient's 32-byte
///     X25519 key · the issuer's 32-byte key · the body
///
/// so it cannot be taken for a signature of anything else, cannot be moved to another
/// header (times, id) or another recipient, and only someone who can open the box sees it.
package struct SealedContent: Sendable {
    package let issuerKey: IssuerKey
    package let config: Config
    /// What a format-3 code carries besides the config (empty for format 2).
    package let extensions: SealedExtensions

    static let minimumSize = PublicKeyCrypto.signPublicKeySize + PublicKeyCrypto.signatureSize + 1

    package var issuerFingerprint: String { issuerKey.fingerprint }

    static func domain(_ version: UInt8) -> [UInt8] { Array("lomme-vault sealed code v\(version)".utf8) + [0] }

    static func signedMessage(header: [UInt8], recipient: [UInt8], issuer: IssuerKey, body: [UInt8]) -> [UInt8] {
        domain(header[0]) + header + recipient + issuer.bytes + body
    }

    /// A format-3 body: the packed config's length and bytes, then the extensions.
    static func body(packed: [UInt8], extensions: SealedExtensions) -> [UInt8] {
        var output: [UInt8] = []
        ByteWriter.appendVarint(packed.count, to: &output)
        return output + packed + extensions.encoded
    }

    /// Reads the box's plaintext and checks the signature; `afterSignature` runs once the
    /// header is known to be the issuer's (the clock check), before the config is unpacked.
    init(_ inner: [UInt8], version: UInt8, header: [UInt8], recipient: [UInt8], checksums: Bool,
         afterSignature: () throws(LommeError) -> Void = {}) throws(LommeError) {
        var reader = ByteReader(inner)
        guard inner.count >= SealedContent.minimumSize, let issuer = reader.take(IssuerKey.size).flatMap(IssuerKey.init(bytes:)),
            let signature = reader.take(PublicKeyCrypto.signatureSize), var body = reader.take(reader.remaining)
        else {
            throw LommeError.refused(.codeTooShort, "the sealed code's contents are too short to be whole; ask for a new QR code")
        }
        defer { PublicKeyCrypto.wipe(&body) }
        var message = SealedContent.signedMessage(header: header, recipient: recipient, issuer: issuer, body: body)
        defer { PublicKeyCrypto.wipe(&message) }
        guard issuer.verifies(signature, of: message) else {
            throw LommeError.refused(.codeTampered, "the sealed code has been tampered with (the issuer's signature inside it does not match); do not use it")
        }
        try afterSignature()
        issuerKey = issuer
        guard version >= 3 else {
            config = try CompactConfig.decode(body, checksums: checksums)
            extensions = SealedExtensions()
            return
        }
        var parts = ByteReader(body)
        guard let length = parts.varint(), var packed = parts.take(length),
            let extensions = SealedExtensions(parts.take(parts.remaining) ?? [])
        else {
            throw LommeError.refused(.codeMalformed, "the sealed config is malformed; ask for a new QR code")
        }
        defer { PublicKeyCrypto.wipe(&packed) }
        config = try CompactConfig.decode(packed, checksums: checksums)
        self.extensions = extensions
    }
}
