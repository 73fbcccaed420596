import Testing
@testable import LommeVault

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
        let pair = SigningKeyPair.generate(seed: [UInt8](repeating: 7, count: 32))
        let print = pair.fingerprint
        #expect(print.count == 19)
        #expect(print == SigningKeyPair.generate(seed: [UInt8](repeating: 7, count: 32)).fingerprint)
        #expect(print != SigningKeyPair.generate(seed: [UInt8](repeating: 8, count: 32)).fingerprint)
    }

    @Test func roundTripOpensOnlyForTheRecipient() throws {
        let child = ReceivingKeyPair.generate()
        let stranger = ReceivingKeyPair.generate()
        let parent = SigningKeyPair.generate()
        let config = sampleConfig(extras: [JSON.Member("name", .string("Kåre"))])
        let text = Envelope.seal(config, to: child.publicKey, issuer: parent, now: 1_800_000_000, lifetime: 86400)
        #expect(text.hasPrefix("LV1:"))
        #expect(text.utf8.allSatisfy { Base45.alphabet.contains($0) || $0 == UInt8(ascii: ":") })
        for field in [config.clientId, config.clientSecret, config.userId, config.accountNr] {
            #expect(!text.contains(field))
        }
        let envelope = try Envelope(text: text)
        #expect(envelope.issuerKey == parent.publicKey)
        #expect(try envelope.open(with: child, now: 1_800_000_100) == config)
        #expect(throws: LommeError.self) { try envelope.open(with: stranger, now: 1_800_000_100) }
    }

    @Test func everyChangedByteIsRefused() throws {
        let child = ReceivingKeyPair.generate()
        let text = Envelope.seal(sampleConfig(), to: child.publicKey, issuer: .generate(), now: 1_800_000_000, lifetime: 3600)
        let bytes = Base45.decode(String(text.dropFirst(4)))!
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            let altered = "LV1:" + Base45.encode(changed)
            do {
                _ = try Envelope(text: altered).open(with: child, now: 1_800_000_000)
                Issue.record("byte \(index) changed and still opened")
            } catch {
                #expect(error.code == .refused)
            }
        }
    }

    @Test func expiryAndFutureAndVersionAreRefusedWithReasons() throws {
        let child = ReceivingKeyPair.generate()
        let text = Envelope.seal(sampleConfig(), to: child.publicKey, issuer: .generate(), now: 1_800_000_000, lifetime: 3600)
        let envelope = try Envelope(text: text)
        #expect(throws: LommeError.refused("this code expired 2 hours ago; ask for a new one")) {
            try envelope.open(with: child, now: 1_800_000_000 + 3600 + 7200)
        }
        _ = try envelope.open(with: child, now: 1_800_000_000 + 3600 + 200)
        #expect(throws: LommeError.self) { try envelope.open(with: child, now: 1_800_000_000 - 3600) }
        var bytes = Base45.decode(String(text.dropFirst(4)))!
        bytes[0] = 2
        #expect(throws: LommeError.refused("the sealed code was made by a newer lomme-vault (format 2); upgrade lomme-vault to import it")) {
            try Envelope(text: "LV1:" + Base45.encode(bytes))
        }
    }
}
