/// The sealed payload, format version 2: a config encrypted to one device's receiving key,
/// with the issuer's key and signature inside the box, an issue time and an expiry.
/// Written as `LV2:` and Base45, so the whole QR code is in alphanumeric mode.
/// docs/FORMAT.md describes it byte by byte:
///
///     u8 version (2) · u64 issued · u64 expires · 16 id · 8 recipient key id
///     · crypto_box_seal(32 issuer Ed25519 key · 64 signature · packed config)
///
/// Times are Unix seconds, big-endian. The signature (see `SealedContent`) covers every
/// header byte, the recipient's whole package key, the issuer's key and the packed config,
/// so only someone who can open the box could re-sign it, and the outer text says nothing
/// about who issued it.
package struct Envelope: Sendable, Equatable {
    package static let textPrefix = "LV2:"
    package static let version: UInt8 = 2
    static let headerSize = 1 + 8 + 8 + 16 + 8
    /// How far clocks may disagree before an envelope counts as expired or from the future.
    package static let clockSkew: Int64 = 5 * 60
    /// The longest validity `issue --expires` gives; a code claiming more is refused.
    package static let maxLifetime: Int64 = 30 * 86400
    /// 9999-12-31T23:59:59Z: no time field may be later (every time stays printable and
    /// every sum with it stays far from overflow).
    package static let maxTime: Int64 = 253_402_300_799

    package let issued: Int64
    package let expires: Int64
    /// Random; two envelopes are the same issue exactly when their ids are.
    package let id: [UInt8]
    package let recipientKeyId: [UInt8]
    let header: [UInt8]
    let sealedBox: [UInt8]

    package var idHex: String { Sodium.hex(id) }

    /// True when `text` claims to be an envelope of any version, `LV` digits `:` (it may
    /// still be damaged or of a version this lomme-vault refuses).
    package static func isEnvelope(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(8))
        guard bytes.count >= 4, bytes[0] == UInt8(ascii: "L"), bytes[1] == UInt8(ascii: "V"),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 2
        else { return false }
        return bytes[2..<colon].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Seals `config` to `recipient`, signed inside the box with the issuer's Ed25519 key.
    package static func seal(
        _ config: Config, to recipient: ReceivingKey, issuer: SigningKeyPair, now: Int64, lifetime: Int64
    ) throws(LommeError) -> String {
        guard now >= 0, now <= maxTime - maxLifetime, lifetime > 0, lifetime <= maxLifetime else {
            throw LommeError.usage("a sealed code is valid from 1 second to 30 days, from a clock between 1970 and 9999")
        }
        let header = makeHeader(issued: now, expires: now + lifetime, id: PublicKeyCrypto.randomBytes(16), recipient: recipient)
        var packed = CompactConfig.encode(config)
        defer { PublicKeyCrypto.wipe(&packed) }
        let signature = PublicKeyCrypto.sign(
            SealedContent.signedMessage(header: header, recipient: recipient.bytes, issuer: issuer.publicKey, packed: packed),
            secretKey: issuer.secretKey)
        var inner = SealedContent.encode(issuer: issuer.publicKey, signature: signature, packed: packed)
        defer { PublicKeyCrypto.wipe(&inner) }
        guard let box = PublicKeyCrypto.seal(inner, to: recipient.bytes) else {
            throw LommeError.usage(ReceivingKey.unusableMessage)
        }
        return textPrefix + Base45.encode(header + box)
    }

    package static func makeHeader(issued: Int64, expires: Int64, id: [UInt8], recipient: ReceivingKey) -> [UInt8] {
        [version] + bigEndian(UInt64(issued)) + bigEndian(UInt64(expires)) + id + recipient.keyId
    }

    /// Reads and checks everything that needs no key: the text, the version, the sizes and
    /// the bounds of the times. Refusals are exit code 7.
    package init(text: String) throws(LommeError) {
        guard Envelope.isEnvelope(text), let colon = text.firstIndex(of: ":") else {
            throw LommeError.refused("this is not a sealed lomme-vault code")
        }
        let prefix = String(text[..<colon]) + ":"
        if prefix == "LV1:" { throw Envelope.olderFormat(1) }
        guard prefix == Envelope.textPrefix else {
            throw LommeError.refused("the sealed code was made by a newer lomme-vault (\(prefix.dropLast()) code); upgrade lomme-vault to import it")
        }
        guard let bytes = Base45.decode(String(text[text.index(after: colon)...])), !bytes.isEmpty else {
            throw LommeError.refused("the sealed code is damaged (not valid Base45); ask for a new QR code")
        }
        if bytes[0] < Envelope.version { throw Envelope.olderFormat(bytes[0]) }
        guard bytes[0] == Envelope.version else {
            throw LommeError.refused("the sealed code was made by a newer lomme-vault (format \(bytes[0])); upgrade lomme-vault to import it")
        }
        var reader = ByteReader(bytes)
        _ = reader.byte()
        guard bytes.count >= Envelope.headerSize + PublicKeyCrypto.sealOverhead + SealedContent.minimumSize,
            let issued = reader.uint64(), let expires = reader.uint64(), let id = reader.take(16),
            let recipient = reader.take(8), let box = reader.take(reader.remaining)
        else {
            throw LommeError.refused("the sealed code is too short to be whole; ask for a new QR code")
        }
        guard issued <= UInt64(Envelope.maxTime), expires <= UInt64(Envelope.maxTime), expires >= issued,
            expires - issued <= UInt64(Envelope.maxLifetime)
        else {
            throw LommeError.refused("the sealed code has impossible times (after 9999, expiring before it was issued, or valid for more than 30 days); ask for a new QR code")
        }
        self.issued = Int64(issued)
        self.expires = Int64(expires)
        self.id = id
        recipientKeyId = recipient
        header = Array(bytes.prefix(Envelope.headerSize))
        sealedBox = box
    }

    package static func olderFormat(_ version: UInt8) -> LommeError {
        LommeError.refused("the sealed code was made by an older lomme-vault (format \(version), which did not bind the issuer to the config); ask the parent to update lomme-vault and issue a new code")
    }

    /// Checks the recipient, opens the box with the device key, checks the issuer's
    /// signature inside it, then the clock and the config's rules.
    package func open(with device: ReceivingKeyPair, now: Int64, checksums: Bool = true) throws(LommeError) -> SealedContent {
        guard recipientKeyId == device.publicKey.keyId else {
            throw LommeError.refused(
                "this code was sealed to another device, not to this one (receiving key \(device.publicKey.fingerprint)); ask for a code issued to what `lomme-vault key` prints on this device")
        }
        guard var inner = PublicKeyCrypto.openSealed(sealedBox, publicKey: device.publicKey.bytes, secretKey: device.secretKey) else {
            throw LommeError.refused("the sealed code cannot be opened with this device's key; it is damaged or was tampered with")
        }
        defer { PublicKeyCrypto.wipe(&inner) }
        let content = try SealedContent(inner, header: header, recipient: device.publicKey.bytes, checksums: checksums) { () throws(LommeError) in
            try checkClock(now: now)
        }
        return content
    }

    /// Refuses an expired code or one from the future (times are bounded, so no overflow).
    func checkClock(now: Int64) throws(LommeError) {
        if now > expires + Envelope.clockSkew {
            throw LommeError.refused("this code expired \(DurationText.rough(UInt64(now - expires))) ago (at \(VaultContents.timestamp(Int(expires)))); ask the parent for a new one")
        }
        if issued > now + Envelope.clockSkew {
            throw LommeError.refused("this code says it was issued \(DurationText.rough(UInt64(issued - now))) in the future; check both clocks")
        }
    }

    /// When the code expires, as `scan` and `import` say it: "expires in 3h (at …)", or
    /// within the clock-skew allowance "expired 2m ago — accepted within the 5-minute
    /// clock-skew allowance", or past it "expired 2h ago (at …): ask the parent for a new one".
    package func expiry(now: Int64) -> String {
        let at = VaultContents.timestamp(Int(expires))
        if now <= expires { return "expires in \(DurationText.rough(UInt64(expires - now))) (at \(at))" }
        let ago = DurationText.rough(UInt64(now - expires))
        if now <= expires + Envelope.clockSkew {
            return "expired \(ago) ago (at \(at)) — accepted within the \(Envelope.clockSkew / 60)-minute clock-skew allowance"
        }
        return "expired \(ago) ago (at \(at)): ask the parent for a new one"
    }

    package static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8((value >> UInt64(56 - 8 * $0)) & 0xFF) }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
