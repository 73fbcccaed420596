/// A file one parent's machine writes for the others — its journal, or the household
/// handed over to a new parent — sealed to every recipient's receiving key and signed,
/// inside, by the writer's issuer key, as age seals a file to several recipients
/// (docs/SYNC.md, "Household files"):
///
///     "LVHF" · u8 format (1) · u8 kind (1 journal, 2 hand-over) · u8 n (1…16) ·
///     n × (8-byte recipient key id · 80-byte crypto_box_seal of the 32-byte file key) ·
///     24-byte nonce · XChaCha20-Poly1305 under the file key (associated data: every byte
///     before the ciphertext) of: 32-byte writer's Ed25519 key · 64-byte signature · body
///
/// The signature is Ed25519 of `"lomme-vault household file v1" 0x00 ‖ the header (every
/// byte before the nonce) ‖ body`: it binds the kind and the recipients, and travels inside
/// the encryption, so whoever holds the folder cannot tell whose file it is from its bytes
/// or re-sign it. As text (a QR code, standard input): `LVH1:` and Base45 of the bytes.
package enum HouseholdFile {
    package enum Kind: UInt8, Sendable {
        case journal = 1, handOver = 2
    }

    static let magic = Array("LVHF".utf8)
    static let format: UInt8 = 1
    static let keyLength = 32
    static let stanzaLength = 8 + 32 + 48
    static let maximumRecipients = 16
    static let domain = Array("lomme-vault household file v1".utf8) + [0]
    package static let textPrefix = "LVH1:"
    /// Larger than any household lomme-vault writes (the vault itself holds at most 8 MiB).
    package static let maximumLength = 16 << 20

    /// True when `bytes` start like a household file, as bytes or as text.
    package static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: magic) || bytes.starts(with: Array(textPrefix.utf8))
    }

    /// `body` sealed to `recipients` and signed by `writer`.
    package static func seal(_ body: SecureBytes, kind: Kind, to recipients: [ReceivingKey], writer: IssuerKeyPair) throws(LommeError) -> [UInt8] {
        guard (1...maximumRecipients).contains(recipients.count) else {
            throw LommeError.failure(.parentsTooMany, "a household file is sealed to 1 to \(maximumRecipients) parents' machines; nothing was written")
        }
        let fileKey = SecureBytes.random(count: keyLength)
        var header = magic + [format, kind.rawValue, UInt8(recipients.count)]
        for recipient in recipients {
            guard let sealed = fileKey.withUnsafeBytes({ PublicKeyCrypto.seal(Array($0), to: recipient.bytes) }) else {
                throw LommeError.usage(.receivingKeyUnusable, ReceivingKey.unusableMessage)
            }
            header += recipient.keyId + sealed
        }
        let signature = body.withUnsafeBytes { PublicKeyCrypto.sign(domain + header + Array($0), secretKey: writer.secretKey) }
        let inner = SecureBytes(count: 32 + 64 + body.count)
        inner.withUnsafeMutableBytes { out in
            out.copyBytes(from: writer.publicKey.bytes + signature)
            body.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[96...]).copyMemory(from: $0) }
        }
        let nonce = Sodium.randomBytes(XChaCha.nonceLength)
        let ad = header + nonce
        return ad + XChaCha.seal(inner, ad: ad, nonce: nonce, key: fileKey)
    }

    /// What `open` found: the kind, the writer's issuer key, the recipients' key ids and the body.
    package struct Opened: Sendable {
        package var kind: Kind
        package var writer: IssuerKey
        package var recipients: [[UInt8]]
        package var body: SecureBytes
    }

    /// Opens a file (bytes, or its `LVH1:` text) with this machine's receiving key and
    /// checks the writer's signature. Exit 7 for anything else: not such a file, damaged
    /// or cut short, not sealed to this machine, tampered with.
    package static func open(_ data: [UInt8], with receiving: ReceivingKeyPair) throws(LommeError) -> Opened {
        var bytes = data
        if data.starts(with: Array(textPrefix.utf8)) {
            let text = String(decoding: data.dropFirst(textPrefix.utf8.count), as: UTF8.self).trimmingASCIIWhitespace()
            guard let decoded = Base45.decode(text) else {
                throw LommeError.refused(.householdFileDamaged, "it is not a readable household file (its text is damaged); copy it again")
            }
            bytes = decoded
        }
        var reader = ByteReader(bytes)
        guard reader.take(4) == magic else {
            throw LommeError.refused(.householdFileDamaged, "it is not a lomme-vault household file")
        }
        guard let version = reader.byte(), version == format else {
            throw LommeError.refused(.householdFileNewer, "it was written by a newer lomme-vault; upgrade lomme-vault here")
        }
        guard let kindByte = reader.byte(), let kind = Kind(rawValue: kindByte), let count = reader.byte(),
              (1...maximumRecipients).contains(Int(count)) else {
            throw LommeError.refused(.householdFileDamaged, "it is damaged (its header is not understood)")
        }
        var recipients: [[UInt8]] = []
        var sealedKey: [UInt8]?
        for _ in 0..<count {
            guard let id = reader.take(8), let sealed = reader.take(stanzaLength - 8) else {
                throw LommeError.refused(.householdFileDamaged, "it is damaged (cut short)")
            }
            recipients.append(id)
            if id == receiving.publicKey.keyId { sealedKey = sealed }
        }
        guard let nonce = reader.take(XChaCha.nonceLength) else { throw LommeError.refused(.householdFileDamaged, "it is damaged (cut short)") }
        let headerLength = magic.count + 3 + Int(count) * stanzaLength
        guard let sealedKey else {
            throw LommeError.refused(.householdFileNotForUs, "it is not sealed to this machine (written before this machine joined the household, or another household's)")
        }
        guard var key = PublicKeyCrypto.openSealed(sealedKey, publicKey: receiving.publicKey.bytes, secretKey: receiving.secretKey),
              key.count == keyLength else {
            throw LommeError.refused(.householdFileTampered, "it does not open with this machine's key (damaged or changed)")
        }
        defer { SecureBytes.wipe(&key) }
        let ad = Array(bytes[0..<(headerLength + XChaCha.nonceLength)])
        guard let inner = XChaCha.open(bytes[ad.count...], ad: ad, nonce: nonce, key: SecureBytes(copying: key)), inner.count >= 96 else {
            throw LommeError.refused(.householdFileTampered, "it was changed or cut short after it was written")
        }
        let writerBytes = inner.slice(0..<32).bytes, signature = inner.slice(32..<96).bytes
        let body = inner.slice(96..<inner.count)
        let header = Array(bytes[0..<headerLength])
        guard let writer = IssuerKey(bytes: writerBytes),
              body.withUnsafeBytes({ writer.verifies(signature, of: domain + header + Array($0)) }) else {
            throw LommeError.refused(.householdFileTampered, "its signature does not hold (changed after it was written)")
        }
        return Opened(kind: kind, writer: writer, recipients: recipients, body: body)
    }
}
