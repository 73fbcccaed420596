/// The sealed payload: a config encrypted to one device's receiving key, with the issuer's
/// key and signature inside the box, an issue time and an expiry. Written as `LV3:` and
/// Base45, so the whole QR code is in alphanumeric mode. docs/CODES.md describes it byte
/// by byte:
///
///     u8 version (3) · u64 issued · u64 expires · 16 id · 8 recipient key id
///     · crypto_box_seal(32 issuer Ed25519 key · 64 signature · body)
///
/// Times are Unix milliseconds (format 3; seconds in format 2, still read), big-endian.
/// The signature (see `SealedContent`) covers every header byte, the recipient's whole key,
/// the issuer's key and the body, so only someone who can open the box could re-sign it,
/// and the outer text says nothing about who issued it.
package struct Envelope: Sendable, Equatable {
    package static let textPrefix = "LV3:"
    /// The format `seal` writes; `init(text:)` reads it and `readableVersions`.
    package static let version: UInt8 = 3
    package static let readableVersions: ClosedRange<UInt8> = 2...3
    static let headerSize = 1 + 8 + 8 + 16 + 8
    /// How far clocks may disagree before an envelope counts as expired or from the future.
    package static let clockSkew: Int64 = 5 * 60
    /// The longest validity `issue --expires` gives; a code claiming more is refused.
    package static let maxLifetime: Int64 = 30 * 86400
    /// 9999-12-31T23:59:59Z: no time field may be later (every time stays printable and
    /// every sum with it stays far from overflow).
    package static let maxTime: Int64 = 253_402_300_799

    package let version: UInt8
    /// The issue and expiry times in milliseconds (a format-2 code's seconds × 1000).
    package let issuedMs: Int64
    package let expiresMs: Int64
    /// Random; two envelopes are the same issue exactly when their ids are.
    package let id: [UInt8]
    package let recipientKeyId: [UInt8]
    let header: [UInt8]
    let sealedBox: [UInt8]

    /// The times in whole seconds, as they are shown.
    package var issued: Int64 { issuedMs / 1000 }
    package var expires: Int64 { expiresMs / 1000 }

    /// True when `text` claims to be an envelope of any version, `LV` digits `:` (it may
    /// still be damaged or of a version this lomme-vault refuses).
    package static func isEnvelope(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(8))
        guard bytes.count >= 4, bytes[0] == UInt8(ascii: "L"), bytes[1] == UInt8(ascii: "V"),
            let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 2
        else { return false }
        return bytes[2..<colon].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Seals `config` to `recipient`, signed inside the box with the issuer's Ed25519 key,
    /// issued at `issuedMs` (Unix milliseconds) and valid for `lifetime` seconds.
    package static func seal(
        _ config: Config, to recipient: ReceivingKey, issuer: IssuerKeyPair, issuedMs: Int64, lifetime: Int64,
        extensions: SealedExtensions = SealedExtensions()
    ) throws(LommeError) -> String {
        guard issuedMs >= 0, issuedMs / 1000 <= maxTime - maxLifetime, lifetime > 0, lifetime <= maxLifetime else {
            throw LommeError.usage(.codeLifetimeOutOfRange, "a sealed code is valid from 1 second to 30 days, from a clock between 1970 and 9999")
        }
        let header = makeHeader(issuedMs: issuedMs, expiresMs: issuedMs + lifetime * 1000, id: PublicKeyCrypto.randomBytes(16),
                                recipient: recipient)
        var body = SealedContent.body(packed: CompactConfig.encode(config), extensions: extensions)
        defer { PublicKeyCrypto.wipe(&body) }
        var message = SealedContent.signedMessage(header: header, recipient: recipient.bytes, issuer: issuer.publicKey, body: body)
        defer { PublicKeyCrypto.wipe(&message) }
        let signature = PublicKeyCrypto.sign(message, secretKey: issuer.secretKey)
        var inner = issuer.publicKey.bytes + signature + body
        defer { PublicKeyCrypto.wipe(&inner) }
        guard let box = PublicKeyCrypto.seal(inner, to: recipient.bytes) else {
            throw LommeError.usage(.receivingKeyUnusable, ReceivingKey.unusableMessage)
        }
        return textPrefix + Base45.encode(header + box)
    }

    /// `seal` at a time in whole seconds (tests and fixtures).
    package static func seal(_ config: Config, to recipient: ReceivingKey, issuer: IssuerKeyPair, now: Int64,
                             lifetime: Int64) throws(LommeError) -> String {
        guard now >= 0, now <= maxTime else {
            throw LommeError.usage(.codeLifetimeOutOfRange, "a sealed code is valid from 1 second to 30 days, from a clock between 1970 and 9999")
        }
        return try seal(config, to: recipient, issuer: issuer, issuedMs: now * 1000, lifetime: lifetime)
    }

    package static func makeHeader(issuedMs: Int64, expiresMs: Int64, id: [UInt8], recipient: ReceivingKey) -> [UInt8] {
        [version] + bigEndian(UInt64(issuedMs)) + bigEndian(UInt64(expiresMs)) + id + recipient.keyId
    }

    /// Reads and checks everything that needs no key: the text, the version, the sizes and
    /// the bounds of the times. Refusals are exit code 7.
    package init(text: String) throws(LommeError) {
        guard Envelope.isEnvelope(text), let colon = text.firstIndex(of: ":") else {
            throw LommeError.refused(.codeNotSealed, "this is not a sealed lomme-vault code")
        }
        let prefix = String(text[..<colon]) + ":"
        if prefix == "LV1:" { throw Envelope.olderFormat(1) }
        let prefixVersion = UInt8(prefix.dropFirst(2).dropLast()) ?? UInt8.max
        if prefixVersion < Envelope.readableVersions.lowerBound { throw Envelope.olderFormat(prefixVersion) }
        guard Envelope.readableVersions.contains(prefixVersion) else {
            throw LommeError.refused(.codeNewerFormat, "the sealed code was made by a newer lomme-vault (\(prefix.dropLast()) code); upgrade lomme-vault to import it")
        }
        guard let bytes = Base45.decode(String(text[text.index(after: colon)...])), !bytes.isEmpty else {
            throw LommeError.refused(.codeDamaged, "the sealed code is damaged (not valid Base45); ask for a new QR code")
        }
        if bytes[0] < Envelope.readableVersions.lowerBound { throw Envelope.olderFormat(bytes[0]) }
        guard bytes[0] == prefixVersion else {
            throw bytes[0] > Envelope.version
                ? LommeError.refused(.codeNewerFormat, "the sealed code was made by a newer lomme-vault (format \(bytes[0])); upgrade lomme-vault to import it")
                : LommeError.refused(.codeDamaged, "the sealed code is damaged (its text says format \(prefixVersion), its bytes \(bytes[0])); ask for a new QR code")
        }
        var reader = ByteReader(bytes)
        _ = reader.byte()
        guard bytes.count >= Envelope.headerSize + PublicKeyCrypto.sealOverhead + SealedContent.minimumSize,
            let issued = reader.uint64(), let expires = reader.uint64(), let id = reader.take(16),
            let recipient = reader.take(8), let box = reader.take(reader.remaining)
        else {
            throw LommeError.refused(.codeTooShort, "the sealed code is too short to be whole; ask for a new QR code")
        }
        // Bounds before any arithmetic: a format-2 code's seconds, a format-3 code's milliseconds.
        let unit: UInt64 = prefixVersion == 2 ? 1 : 1000
        let latest = UInt64(Envelope.maxTime) * unit + (unit - 1)
        guard issued <= latest, expires <= latest, expires >= issued, expires - issued <= UInt64(Envelope.maxLifetime) * unit else {
            throw LommeError.refused(.codeImpossibleTimes, "the sealed code has impossible times (after 9999, expiring before it was issued, or valid for more than 30 days); ask for a new QR code")
        }
        version = prefixVersion
        issuedMs = Int64(issued * (1000 / unit))
        expiresMs = Int64(expires * (1000 / unit))
        self.id = id
        recipientKeyId = recipient
        header = Array(bytes.prefix(Envelope.headerSize))
        sealedBox = box
    }

    package static func olderFormat(_ version: UInt8) -> LommeError {
        LommeError.refused(.codeOlderFormat, "the sealed code was made by an older lomme-vault (format \(version), which did not bind the issuer to the config); ask the parent to update lomme-vault and issue a new code")
    }

    /// Checks the recipient, opens the box with the device key, checks the issuer's
    /// signature inside it, then the clock and the config's rules.
    package func open(with device: ReceivingKeyPair, now: Int64, checksums: Bool = true) throws(LommeError) -> SealedContent {
        guard recipientKeyId == device.publicKey.keyId else {
            throw LommeError.refused(.codeForAnotherDevice,
                "this code was sealed to another device, not to this one (receiving key \(device.publicKey.fingerprint)); ask for a code issued to what `lomme-vault key` prints on this device")
        }
        guard var inner = PublicKeyCrypto.openSealed(sealedBox, publicKey: device.publicKey.bytes, secretKey: device.secretKey) else {
            throw LommeError.refused(.codeUnopenable, "the sealed code cannot be opened with this device's key; it is damaged or was tampered with")
        }
        defer { PublicKeyCrypto.wipe(&inner) }
        let content = try SealedContent(inner, version: version, header: header, recipient: device.publicKey.bytes,
                                        checksums: checksums) { () throws(LommeError) in
            try checkClock(now: now)
        }
        return content
    }

    /// Refuses an expired code or one from the future (times are bounded, so no overflow).
    /// `now` in seconds; a code counts as expired only past the whole second it expires in.
    func checkClock(now: Int64) throws(LommeError) {
        if now > expires + Envelope.clockSkew {
            throw LommeError.refused(.codeExpired, "this code expired \(DurationText.rough(UInt64(now - expires))) ago (at \(Instant(seconds: expires).shown)); ask the parent for a new one")
        }
        if issued > now + Envelope.clockSkew {
            throw LommeError.refused(.codeFromTheFuture, "this code says it was issued \(DurationText.rough(UInt64(issued - now))) in the future; check both clocks")
        }
    }

    /// When the code expires, as `scan` and `import` say it: "expires in 3h (at …)", or
    /// within the clock-skew allowance "expired 2m ago — accepted within the 5-minute
    /// clock-skew allowance", or past it "expired 2h ago (at …): ask the parent for a new one".
    package func expiry(now: Int64) -> String {
        let at = Instant(seconds: expires).shown
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
