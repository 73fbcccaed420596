@testable import LommeCore
import LommeTestSupport
import Testing

@Suite("Sealed envelopes")
struct SealedTests {
    @Test func base45MatchesRFC9285() {
        let vectors = [("AB", "BB8"), ("Hello!!", "%69 VD92EX0"), ("base-45", "UJCLQE7W581"), ("ietf!", "QED8WEX0")]
        for (plain, encoded) in vectors {
            #expect(Base45.encode(Array(plain.utf8)) == encoded)
            #expect(Base45.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base45.decode("GGW") == nil, "65535 + 1 is over range")
        #expect(Base45.decode("a") == nil)
        #expect(Base45.decode("BB8B") == nil)
        let random = PublicKeyCrypto.randomBytes(301)
        #expect(Base45.decode(Base45.encode(random)) == random)
    }

    @Test func bech32MatchesBIP173AndCatchesTypos() throws {
        #expect(Bech32.decode("A12UEL5L", prefix: "a") == [])
        #expect(Bech32.decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw", prefix: "abcdef") != nil)
        let key = ReceivingKeyPair.generate().publicKey
        let text = key.text
        #expect(text.hasPrefix("lvk1"))
        #expect(try ReceivingKey(text: text.uppercased()) == key)
        var typo = Array(text)
        typo[10] = typo[10] == "q" ? "p" : "q"
        #expect(throws: LommeError.self) { try ReceivingKey(text: String(typo)) }
    }

    @Test func fingerprintsAreShortAndStable() {
        let pair = IssuerKeyPair.generate(seed: [UInt8](repeating: 7, count: 32))
        let print = pair.fingerprint
        #expect(print.count == 19)
        #expect(print == IssuerKeyPair.generate(seed: [UInt8](repeating: 7, count: 32)).fingerprint)
        #expect(print != IssuerKeyPair.generate(seed: [UInt8](repeating: 8, count: 32)).fingerprint)
    }

    @Test func roundTripOpensOnlyForTheRecipientAndHidesTheIssuer() throws {
        let child = ReceivingKeyPair.generate()
        let stranger = ReceivingKeyPair.generate()
        let parent = IssuerKeyPair.generate()
        let config = sampleConfig(extras: [JSON.Member("name", .string("Kåre"))])
        let text = try Envelope.seal(config, to: child.publicKey, issuer: parent, now: 1_800_000_000, lifetime: 86400)
        #expect(text.hasPrefix("LV3:"))
        #expect(text.utf8.allSatisfy { Base45.alphabet.contains($0) || $0 == UInt8(ascii: ":") })
        for field in [config.clientId, config.clientSecret, config.userId, config.accountNr] {
            #expect(!text.contains(field))
        }
        let bytes = try #require(Base45.decode(String(text.dropFirst(4))))
        #expect(!bytes.contains(parent.publicKey.bytes), "the outer bytes name no issuer")
        let content = try Envelope(text: text).open(with: child, now: 1_800_000_100)
        #expect(content.issuerKey == parent.publicKey)
        #expect(content.config == config)
        #expect(throws: LommeError.self) { try Envelope(text: text).open(with: stranger, now: 1_800_000_100) }
    }

    @Test func expiryAndFutureAndVersionsAreRefusedWithReasons() throws {
        let child = ReceivingKeyPair.generate()
        let text = try Envelope.seal(sampleConfig(), to: child.publicKey, issuer: .generate(), now: 1_800_000_000, lifetime: 3600)
        let envelope = try Envelope(text: text)
        // What went wrong, by name; the wording here is a promise too (how long ago, and when,
        // in the machine's own time zone).
        let at = Instant(seconds: 1_800_000_000 + 3600).shown
        let expired = thrown { _ = try envelope.open(with: child, now: 1_800_000_000 + 3600 + 7200) }
        #expect(expired?.reason == .codeExpired && expired?.message == "this code expired 2h ago (at \(at)); ask the parent for a new one")
        _ = try envelope.open(with: child, now: 1_800_000_000 + 3600 + 200)
        // How scan and import say it, before, within the allowance, and after.
        #expect(envelope.expiry(now: 1_800_000_000 + 1) == "expires in 59m59s (at \(at))")
        #expect(envelope.expiry(now: 1_800_000_000 - 7200) == "expires in 3h (at \(at))")
        #expect(envelope.expiry(now: 1_800_000_000 + 3600 + 120) == "expired 2m ago (at \(at)) — accepted within the 5-minute clock-skew allowance")
        #expect(envelope.expiry(now: 1_800_000_000 + 3600 + 301) == "expired 5m1s ago (at \(at)): ask the parent for a new one")
        let future = thrown { _ = try envelope.open(with: child, now: 1_800_000_000 - 3600) }
        #expect(future?.reason == .codeFromTheFuture && future?.message == "this code says it was issued 1h in the future; check both clocks")
        var bytes = try #require(Base45.decode(String(text.dropFirst(4))))
        bytes[0] = 4
        #expect(thrown { _ = try Envelope(text: "LV3:" + Base45.encode(bytes)) }?.reason == .codeNewerFormat)
        #expect(thrown { _ = try Envelope(text: "LV4:" + Base45.encode(bytes)) }?.reason == .codeNewerFormat)
        bytes[0] = 2
        #expect(thrown { _ = try Envelope(text: "LV3:" + Base45.encode(bytes)) }?.reason == .codeDamaged)
        bytes[0] = 1
        #expect(throws: Envelope.olderFormat(1)) { try Envelope(text: "LV3:" + Base45.encode(bytes)) }
        #expect(throws: Envelope.olderFormat(1)) { try Envelope(text: "LV1:" + Base45.encode(bytes)) }
        #expect(Envelope.olderFormat(1).reason == .codeOlderFormat)
        #expect(throws: LommeError.self) { try Envelope(text: "LV2:" + Base45.encode(bytes)) }
    }

    @Test func lowOrderAndZeroDeviceKeysAreRefused() throws {
        #expect(!PublicKeyCrypto.isUsableBoxKey([UInt8](repeating: 0, count: 32)))
        for hex in SealedTests.lowOrderPoints {
            #expect(!PublicKeyCrypto.isUsableBoxKey(Sodium.unhex(hex)!), "\(hex)")
            let text = Bech32.encode(prefix: "lvk", data: Sodium.unhex(hex)!)
            #expect(throws: LommeError.usage(.receivingKeyUnusable, ReceivingKey.unusableMessage)) { try ReceivingKey(text: text) }
        }
        #expect(PublicKeyCrypto.isUsableBoxKey(ReceivingKeyPair.generate().publicKey.bytes))
        #expect(PublicKeyCrypto.seal([1, 2, 3], to: [UInt8](repeating: 0, count: 32)) == nil, "crypto_box_seal's refusal is seen")
    }

    /// A key is read as X25519 reads it: bit 255 set, or a value of 2^255 − 19 or more, is
    /// the same point as a canonical key, so its text is refused (exit 64); a key a vault
    /// stored before that rule is read in its canonical form, so the vault still opens.
    @Test func nonCanonicalDeviceKeysAreRefusedAndStoredOnesAreReadCanonically() throws {
        let key = ReceivingKeyPair.generate().publicKey
        #expect(ReceivingKey.isCanonical(key.bytes))
        var high = key.bytes
        high[31] |= 0x80
        let text = Bech32.encode(prefix: "lvk", data: high)
        #expect(throws: LommeError.usage(.receivingKeyNotCanonical, ReceivingKey.nonCanonicalMessage)) { try ReceivingKey(text: text) }
        #expect(throws: LommeError.usage(.receivingKeyNotCanonical, ReceivingKey.nonCanonicalMessage)) { try ReceivingKey(text: text.uppercased()) }
        #expect(ReceivingKey(stored: text) == key)
        #expect(ReceivingKey(stored: key.text) == key)
        // 2^255 − 19 + 9 is 9, the base point: canonical only as 9.
        let nine = [UInt8](repeating: 0, count: 32).enumerated().map { $0.offset == 0 ? UInt8(9) : 0 }
        let aboveP = [UInt8(0xED + 9)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        #expect(ReceivingKey.isCanonical(nine) && !ReceivingKey.isCanonical(aboveP))
        #expect(throws: LommeError.usage(.receivingKeyNotCanonical, ReceivingKey.nonCanonicalMessage)) { try ReceivingKey(text: Bech32.encode(prefix: "lvk", data: aboveP)) }
        #expect(ReceivingKey(stored: Bech32.encode(prefix: "lvk", data: aboveP))?.bytes == nine)
        let justBelow = [UInt8(0xEC)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
        #expect(ReceivingKey.isCanonical(justBelow))
    }

    @Test func deviceSecretKeysLiveInSecureBytesAndRoundTripThroughTheVaultsHex() throws {
        let identity = DeviceIdentity.generate()
        let boxSecret: SecureBytes = identity.receiving.secretKey  // sodium_malloc'ed, not an array
        let signSecret: SecureBytes = identity.signing.secretKey
        let again = try #require(try DeviceIdentity(json: identity.json))
        #expect(again.receiving.secretKey.isEqual(to: boxSecret) && again.signing.secretKey.isEqual(to: signSecret))
        #expect(again.receiving.publicKey == identity.receiving.publicKey && again.signing.publicKey == identity.signing.publicKey)
        let hex = SecretHex.encode(boxSecret)
        #expect(hex.count == 64 && SecretHex.decode(hex, count: 32)?.isEqual(to: boxSecret) == true)
        for bad in [String(hex.dropLast()), String(hex.dropLast(2)), "zz" + hex.dropFirst(2), hex + "00"] {
            #expect(SecretHex.decode(bad, count: 32) == nil, "\(bad.count) characters")
        }
        // A receiving secret key that does not belong to its public key is refused.
        #expect(ReceivingKeyPair(publicKey: ReceivingKeyPair.generate().publicKey.bytes, secretKey: boxSecret) == nil)
    }

    /// Points of order 1, 2, 4 and 8 on Curve25519 and non-canonical encodings of them
    /// (the list libsodium and the X25519 papers give).
    static let lowOrderPoints = [
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ]
}
