@testable import LommeCore
import LommeTestSupport
import Testing

/// A code's kind is one type (`CodeKind`), decided once from its text, as `ClassifiedPayload`,
/// with each kind's facts in one place.
@Suite("Code kinds")
struct CodeKindTests {
    @Test func eachKindIsRecognisedOnceAndOnlyTheTwoConfigKindsAreImportable() throws {
        let child = ReceivingKeyPair.generate()
        let plain = Array(PlainPayload.encode(sampleConfig()).utf8)
        let sealed = Array(try Envelope.seal(sampleConfig(), to: child.publicKey, issuer: SigningKeyPair.generate(), now: 1_800_000_000, lifetime: 60).utf8)
        let key = Array(child.publicKey.text.utf8)
        let other = Array("https://example.invalid/not-a-config".utf8)
        let parent = Array(ParentKey(receiving: child.publicKey, issuer: IssuerKeyPair.generate().publicKey).text.uppercased().utf8)
        let household = Array((HouseholdFile.textPrefix + "ABC").utf8)
        let cases: [([UInt8], CodeKind, Bool)] = [(plain, .plain, true), (sealed, .sealed, true), (key, .receivingKey, false),
                                                  (parent, .parentKey, false), (household, .household, true), (other, .other, false)]
        for (bytes, kind, importable) in cases {
            let classified = ClassifiedPayload(bytes)
            #expect(classified.kind == kind && classified.bytes == bytes && classified.text == String(decoding: bytes, as: UTF8.self))
            #expect(classified.kind.isImportable == importable)
            #expect(classified.kind.isOurs == (kind != .other))
        }
        guard case .receivingKey(let parsed?, nil) = ClassifiedPayload(key).payload else {
            Issue.record("a receiving key is not classified as one")
            return
        }
        #expect(parsed == child.publicKey)
        guard case .parentKey(let parentKey?, nil) = ClassifiedPayload(parent).payload else {
            Issue.record("a parent key (upper case, as its QR code holds it) is not classified as one")
            return
        }
        #expect(parentKey.receiving == child.publicKey)
        // A key with a typo is still a receiving key, one that cannot be used, and says why.
        var typo = Array(child.publicKey.text)
        typo[12] = typo[12] == "q" ? "p" : "q"
        if case .receivingKey(nil, let problem?) = ClassifiedPayload(Array(String(typo).utf8)).payload {
            #expect(!problem.message.isEmpty)
        }
    }

    /// JSON that names a config's fields is a plain code even when it cannot be read as a
    /// config: `import` takes it and says which rule it breaks; `scan` stops at it.
    @Test func configJSONThatBreaksARuleIsAPlainCodeWithItsProblem() {
        let missing = ClassifiedPayload(Array(#"{"clientId":"app","clientSecret":"s3cret"}"#.utf8))
        #expect(missing.kind == .plain && missing.kind.isImportable)
        guard case .plain(nil, let problem?) = missing.payload else {
            Issue.record("a config missing its userId is not a plain code with a problem: \(missing.payload)")
            return
        }
        #expect(problem.message.contains("userId is missing"))
        // Bytes that are not UTF-8 are no config, whatever Latin-1 makes of them.
        let latin1 = ClassifiedPayload(Array(#"{"clientId":"app","clientSecret":"s"#.utf8) + [0xE6] + Array(#""}"#.utf8))
        guard case .plain(nil, let notUTF8?) = latin1.payload else {
            Issue.record("config JSON in Latin-1 is not a plain code with a problem")
            return
        }
        #expect(notUTF8.reason == .configNotJSON)
    }

    /// What is true of each kind, in one place: a secret's file is 0600, every kind of ours
    /// has the level it is made at, and another application's code is made by none of us.
    @Test(arguments: CodeKind.allCases)
    func eachKindsFactsAgree(kind: CodeKind) {
        #expect(kind.fileMode == (kind.holdsSecret ? 0o600 : 0o644))
        #expect((kind.facts.level == nil) == (kind == .other))
        #expect(!kind.what.isEmpty)
        let expected: [CodeKind: QRErrorCorrection] = [.plain: .H, .recoveryKey: .Q, .sealed: .M, .receivingKey: .M, .receipt: .M, .parentKey: .M, .household: .M]
        #expect(kind.facts.level == expected[kind])
        #expect(kind.holdsSecret == [.plain, .recoveryKey].contains(kind))
        #expect(kind.isImportable == [.plain, .sealed, .household].contains(kind))
    }
}
