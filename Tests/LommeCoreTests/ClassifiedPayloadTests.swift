@testable import LommeCore
import LommeTestSupport
import Testing

/// What a payload is — a plain config, a sealed code, a receiving key, or none of these —
/// is decided in one place (`Payload.kind(of:)`), once, as `ClassifiedPayload`.
@Suite("Classified payloads")
struct ClassifiedPayloadTests {
    @Test func eachKindIsRecognisedOnceAndOnlyTheTwoConfigKindsAreImportable() throws {
        let child = ReceivingKeyPair.generate()
        let plain = Array(PlainPayload.encode(sampleConfig()).utf8)
        let sealed = Array(try Envelope.seal(sampleConfig(), to: child.publicKey, issuer: IssuerKeyPair.generate(), now: 1_800_000_000, lifetime: 60).utf8)
        let key = Array(child.publicKey.text.utf8)
        let other = Array("https://example.invalid/not-a-config".utf8)
        let cases: [([UInt8], Payload.Kind, Bool)] = [(plain, .plain, true), (sealed, .sealed, true), (key, .receivingKey, false), (other, .other, false)]
        for (bytes, kind, importable) in cases {
            let classified = ClassifiedPayload(bytes)
            #expect(classified.kind == kind && classified.bytes == bytes)
            #expect(Payload.isImportable(bytes) == importable)
        }
        guard case .receivingKey(let parsed?, nil) = ClassifiedPayload(key).payload else {
            Issue.record("a receiving key is not classified as one")
            return
        }
        #expect(parsed == child.publicKey)
        // A key with a typo is still a receiving key, one that cannot be used, and says why.
        var typo = Array(child.publicKey.text)
        typo[12] = typo[12] == "q" ? "p" : "q"
        if case .receivingKey(nil, let problem?) = ClassifiedPayload(Array(String(typo).utf8)).payload {
            #expect(!problem.message.isEmpty)
        }
    }
}
