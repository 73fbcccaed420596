/// The sealed payload: a config encrypted to one device's receiving key, signed by the
/// issuer, with an issue time and an expiry. Written as `LV1:` and Base45, so the whole
/// QR code is in alphanumeric mode. docs/FORMAT.md describes it byte by byte:
///
///     u8 version (1) · u64 issued · u64 expires · 16 id · 8 recipient key id
///     · 32 issuer Ed25519 key · sealed box (48 + config) · 64 signature
///
/// Times are Unix seconds, big-endian. The signature covers every byte before it.
public struct Envelope: Sendable, Equatable {
    public static let textPrefix = "LV1:"
    public static let version: UInt8 = 1
    static let headerSize = 1 + 8 + 8 + 16 + 8 + 32
    /// How far clocks may disagree before an envelope counts as expired or from the future.
    public static let clockSkew: Int64 = 5 * 60

    public let issued: Int64
    public let expires: Int64
    /// Random; two envelopes are the same issue exactly when their ids are.
    public let id: [UInt8]
    public let recipientKeyId: [UInt8]
    public let issuerKey: [UInt8]
    let sealedBox: [UInt8]
    let signature: [UInt8]

    public var idHex: String { id.map { String($0, radix: 16).leftPadded(2) }.joined() }
    public var issuerFingerprint: String { Fingerprint.of(issuerKey) }

    /// True when `text` claims to be an envelope (it may still be damaged).
    public static func isEnvelope(_ text: String) -> Bool { text.hasPrefix(textPrefix) }

    /// Seals `config` to `recipient`, signed with the issuer's Ed25519 secret key.
    public static func seal(
        _ config: Config, to recipient: ReceivingKey, issuer: SigningKeyPair, now: Int64, lifetime: Int64
    ) -> String {
        let id = PublicKeyCrypto.randomBytes(16)
        var bytes: [UInt8] = [version]
        bytes += bigEndian(UInt64(now)) + bigEndian(UInt64(now + lifetime)) + id + recipient.keyId + issuer.publicKey
        var plaintext = CompactConfig.encode(config)
        bytes += PublicKeyCrypto.seal(plaintext, to: recipient.bytes)
        PublicKeyCrypto.wipe(&plaintext)
        bytes += PublicKeyCrypto.sign(bytes, secretKey: issuer.secretKey)
        return textPrefix + Base45.encode(bytes)
    }

    /// Reads and checks everything that needs no secret: the text, the version and the
    /// signature. Refusals are exit code 7.
    public init(text: String) throws(LommeError) {
        guard text.hasPrefix(Envelope.textPrefix) else {
            throw LommeError.refused("this is not a sealed lomme-vault code")
        }
        guard let bytes = Base45.decode(String(text.dropFirst(Envelope.textPrefix.count))), !bytes.isEmpty else {
            throw LommeError.refused("the sealed code is damaged (not valid Base45); ask for a new QR code")
        }
        guard bytes[0] == Envelope.version else {
            throw LommeError.refused("the sealed code was made by a newer lomme-vault (format \(bytes[0])); upgrade lomme-vault to import it")
        }
        var reader = ByteReader(bytes)
        _ = reader.byte()
        guard bytes.count >= Envelope.headerSize + PublicKeyCrypto.sealOverhead + PublicKeyCrypto.signatureSize,
            let issued = reader.uint64(), let expires = reader.uint64(), let id = reader.take(16),
            let recipient = reader.take(8), let issuer = reader.take(32),
            let box = reader.take(reader.remaining - PublicKeyCrypto.signatureSize),
            let signature = reader.take(PublicKeyCrypto.signatureSize)
        else {
            throw LommeError.refused("the sealed code is too short to be whole; ask for a new QR code")
        }
        guard PublicKeyCrypto.verify(signature, of: Array(bytes.dropLast(PublicKeyCrypto.signatureSize)), publicKey: issuer) else {
            throw LommeError.refused("the sealed code has been tampered with (its signature does not match); do not use it")
        }
        guard issued <= UInt64(Int64.max), expires <= UInt64(Int64.max) else {
            throw LommeError.refused("the sealed code has impossible times; ask for a new QR code")
        }
        self.issued = Int64(issued)
        self.expires = Int64(expires)
        self.id = id
        recipientKeyId = recipient
        issuerKey = issuer
        sealedBox = box
        self.signature = signature
    }

    /// Checks the recipient and the clock, then decrypts the config with the device key.
    public func open(with device: ReceivingKeyPair, now: Int64, checksums: Bool = true) throws(LommeError) -> Config {
        guard recipientKeyId == device.publicKey.keyId else {
            throw LommeError.refused(
                "this code was sealed to another device, not to this one (\(device.publicKey.fingerprint)); ask for a code issued to 'lomme-vault key' of this device")
        }
        if now > expires + Envelope.clockSkew {
            throw LommeError.refused("this code expired \(Envelope.describeAge(now - expires)) ago; ask for a new one")
        }
        if issued > now + Envelope.clockSkew {
            throw LommeError.refused("this code says it was issued \(Envelope.describeAge(issued - now)) in the future; check both clocks")
        }
        guard var plaintext = PublicKeyCrypto.openSealed(sealedBox, publicKey: device.publicKey.bytes, secretKey: device.secretKey) else {
            throw LommeError.refused("the sealed code cannot be opened with this device's key; it is damaged or was tampered with")
        }
        defer { PublicKeyCrypto.wipe(&plaintext) }
        return try CompactConfig.decode(plaintext, checksums: checksums)
    }

    static func describeAge(_ seconds: Int64) -> String {
        switch seconds {
        case ..<120: "\(seconds) seconds"
        case ..<7200: "\(seconds / 60) minutes"
        case ..<172_800: "\(seconds / 3600) hours"
        default: "\(seconds / 86400) days"
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8((value >> UInt64(56 - 8 * $0)) & 0xFF) }
    }
}

/// A device's receiving key pair (X25519), kept in the vault.
public struct ReceivingKeyPair: Sendable {
    public let publicKey: ReceivingKey
    let secretKey: [UInt8]

    public static func generate(seed: [UInt8]? = nil) -> ReceivingKeyPair {
        let pair = PublicKeyCrypto.boxKeyPair(seed: seed)
        return ReceivingKeyPair(publicKey: ReceivingKey(bytes: pair.publicKey)!, secretKey: pair.secretKey)
    }

    public init?(publicKey: [UInt8], secretKey: [UInt8]) {
        guard let key = ReceivingKey(bytes: publicKey), secretKey.count == PublicKeyCrypto.boxSecretKeySize else { return nil }
        self.init(publicKey: key, secretKey: secretKey)
    }

    init(publicKey: ReceivingKey, secretKey: [UInt8]) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    public var secretKeyBytes: [UInt8] { secretKey }
}

/// A device's signing key pair (Ed25519), for issuing sealed codes; kept in the vault.
public struct SigningKeyPair: Sendable {
    public let publicKey: [UInt8]
    let secretKey: [UInt8]

    public static func generate(seed: [UInt8]? = nil) -> SigningKeyPair {
        let pair = PublicKeyCrypto.signKeyPair(seed: seed)
        return SigningKeyPair(publicKey: pair.publicKey, secretKey: pair.secretKey)
    }

    public init?(publicKey: [UInt8], secretKey: [UInt8]) {
        guard publicKey.count == PublicKeyCrypto.signPublicKeySize, secretKey.count == PublicKeyCrypto.signSecretKeySize else {
            return nil
        }
        self.init(publicKey: publicKey, secretKey: secretKey, checked: ())
    }

    init(publicKey: [UInt8], secretKey: [UInt8], checked: Void = ()) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    public var secretKeyBytes: [UInt8] { secretKey }
    public var fingerprint: String { Fingerprint.of(publicKey) }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
