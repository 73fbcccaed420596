@testable import LommeCore
import LommeTestSupport
import Testing

/// Every region of a version-3 code changed, each refused with its own reason; and boxes
/// that open (made with the test's own keys) but carry a signature that does not hold.
@Suite("Sealed code tampering")
struct SealedTamperTests {
    let child = ReceivingKeyPair.generate()
    let parent = IssuerKeyPair.generate()
    let now: Int64 = 1_800_000_000

    /// The reason expected when byte `index` of a version-3 code is changed to give `changed`.
    static func reason(forByteAt index: Int, in changed: [UInt8]) -> LommeError.Reason {
        var reader = ByteReader(Array(changed[1..<17]))
        let issued = reader.uint64()!, expires = reader.uint64()!
        let latest = UInt64(Envelope.maxTime) * 1000 + 999
        let plausible = expires <= latest && issued <= latest && issued <= expires && expires - issued <= UInt64(Envelope.maxLifetime) * 1000
        switch index {
        case 0: return .codeOlderFormat
        case 1..<17 where !plausible: return .codeImpossibleTimes  // refused before any arithmetic
        case 1..<33: return .codeTampered  // issued, expires, id: covered by the signature in the box
        case 33..<41: return .codeForAnotherDevice  // the recipient key id
        default: return .codeUnopenable  // ephemeral key, MAC, ciphertext of the box
        }
    }

    @Test func everyRegionOfTheCodeIsRefusedWithItsReason() throws {
        let text = try Envelope.seal(sampleConfig(), to: child.publicKey, issuer: parent, now: now, lifetime: 3600)
        let bytes = try #require(Base45.decode(String(text.dropFirst(4))))
        _ = try Envelope(text: text).open(with: child, now: now)
        var seen = Set<LommeError.Reason>()
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= index == 0 ? 0x02 : 0x01  // version 3 → 1
            let expected = Self.reason(forByteAt: index, in: changed)
            seen.insert(expected)
            do {
                _ = try Envelope(text: "LV3:" + Base45.encode(changed)).open(with: child, now: now)
                Issue.record("byte \(index) changed and the code still opened")
            } catch {
                #expect(error.code == .refused)
                #expect(error.reason == expected, "byte \(index): \(error.reason) \(error.message)")
            }
        }
        #expect(seen.count == 5, "all four regions were attacked, and times made impossible")
        #expect(throws: LommeError.self) { try Envelope(text: "LV3:" + Base45.encode(Array(bytes.dropLast(bytes.count - 100)))) }
    }

    /// A box that opens with the child's key, holding `signature` made by `signer` over
    /// `message`, and claiming `claimed` as the issuer.
    func forged(claimed: IssuerKey, signer: IssuerKeyPair, message: ([UInt8], [UInt8]) -> [UInt8]) throws -> String {
        let header = Envelope.makeHeader(issuedMs: now * 1000, expiresMs: (now + 3600) * 1000, id: PublicKeyCrypto.randomBytes(16), recipient: child.publicKey)
        let packed = SealedContent.body(packed: CompactConfig.encode(sampleConfig()), extensions: SealedExtensions(credential: [UInt8](repeating: 1, count: 16)))
        let signature = PublicKeyCrypto.sign(message(header, packed), secretKey: signer.secretKey)
        let box = try #require(PublicKeyCrypto.seal(claimed.bytes + signature + packed, to: child.publicKey.bytes))
        return Envelope.textPrefix + Base45.encode(header + box)
    }

    @Test func aBoxThatOpensButWhoseSignatureDoesNotHoldIsRefused() throws {
        let recipient = child.publicKey.bytes
        let honest = try forged(claimed: parent.publicKey, signer: parent) { header, packed in
            SealedContent.signedMessage(header: header, recipient: recipient, issuer: parent.publicKey, body: packed)
        }
        #expect(try Envelope(text: honest).open(with: child, now: now).issuerKey == parent.publicKey, "the builder makes good codes")
        let other = IssuerKeyPair.generate()
        let cases: [(String, String)] = [
            ("signed by another key than the one it names", try forged(claimed: parent.publicKey, signer: other) { header, packed in
                SealedContent.signedMessage(header: header, recipient: recipient, issuer: parent.publicKey, body: packed)
            }),
            ("signed without the domain separation", try forged(claimed: parent.publicKey, signer: parent) { header, packed in
                header + recipient + parent.publicKey.bytes + packed
            }),
            ("signed for another recipient", try forged(claimed: parent.publicKey, signer: parent) { header, packed in
                SealedContent.signedMessage(header: header, recipient: ReceivingKeyPair.generate().publicKey.bytes, issuer: parent.publicKey, body: packed)
            }),
            ("signed over another header", try forged(claimed: parent.publicKey, signer: parent) { header, packed in
                SealedContent.signedMessage(header: [3] + header.dropFirst().map { $0 ^ 1 }, recipient: recipient, issuer: parent.publicKey, body: packed)
            }),
            ("signed over another config", try forged(claimed: parent.publicKey, signer: parent) { header, packed in
                SealedContent.signedMessage(header: header, recipient: recipient, issuer: parent.publicKey, body: packed + [0])
            }),
        ]
        for (what, text) in cases {
            #expect(thrown { _ = try Envelope(text: text).open(with: child, now: now) }?.reason == .codeTampered, "\(what)")
        }
    }

    @Test func impossibleTimesAreRefusedBeforeAnyArithmetic() throws {
        // Format 2 in seconds, format 3 in milliseconds: the same bounds.
        for (version, unit) in [(UInt8(2), UInt64(1)), (3, 1000)] {
            for (issued, expires) in [(UInt64(0), UInt64(Int64.max)), (0, UInt64.max), (300_000_000_000 * unit, 300_000_003_600 * unit),
                                      (1_800_000_000 * unit, 1_799_999_999 * unit), (1_800_000_000 * unit, (1_800_000_000 + 31 * 86400) * unit)] {
                let header = [version] + Envelope.bigEndian(issued) + Envelope.bigEndian(expires) + [UInt8](repeating: 7, count: 16) + child.publicKey.keyId
                let text = "LV\(version):" + Base45.encode(header + PublicKeyCrypto.randomBytes(200))
                let error = #expect(throws: LommeError.self, "\(issued) \(expires)") { try Envelope(text: text) }
                #expect(error?.reason == .codeImpossibleTimes, "\(String(describing: error))")
            }
        }
        #expect(Instant(seconds: Int64.max).text.contains("outside"))
        #expect(Instant(seconds: 67_768_006_275_743_760).text.contains("outside"))
        #expect(Instant(seconds: 253_402_300_799).text == "9999-12-31T23:59:59Z")
    }
}
