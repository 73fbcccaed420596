import LommeCore
import LommeTestSupport
import Testing

/// The test vectors of docs/CODES.md made by independent Python (PyNaCl, hashlib):
/// `fixtures/envelope-v3/make.py` (a format-3 sealed code with its credential extension and
/// a tag this version does not know) and `fixtures/receipt-v1/make.py` (the child's receipt
/// for that code, and two that must not open).
@Suite("Format 3 and receipt test vectors")
struct FormatVectorV3Tests {
    static func keys(_ directory: String) -> [String: String] {
        Dictionary(uniqueKeysWithValues: String(decoding: readFile(directory + "keys.txt"), as: UTF8.self)
            .split(separator: "\n").map { line in
                let parts = line.split(separator: " ")
                return (String(parts[0]), String(parts[1]))
            })
    }

    static func text(_ path: String) -> String { String(decoding: readFile(path), as: UTF8.self).trimmingASCIIWhitespace() }

    @Test func theEnvelopeOpensWithItsCredentialAndItsTamperedCopyDoesNot() throws {
        let directory = packageRoot + "/fixtures/envelope-v3/"
        let keys = Self.keys(directory)
        let child = ReceivingKeyPair.generate(seed: Sodium.unhex(keys["child-box-seed"]!)!)
        let parent = IssuerKeyPair.generate(seed: Sodium.unhex(keys["parent-sign-seed"]!)!)
        let envelope = try Envelope(text: Self.text(directory + "envelope.txt"))
        #expect(envelope.version == 3 && envelope.issuedMs == Int64(keys["issued-ms"]!)! && envelope.expiresMs == Int64(keys["expires-ms"]!)!)
        #expect(Sodium.hex(envelope.id) == keys["id"])
        let content = try envelope.open(with: child, now: envelope.issued + 60, checksums: false)
        #expect(content.issuerKey == parent.publicKey)
        #expect(content.config == (try Config(jsonBytes: readFile(directory + "config.json"), checksums: false)))
        #expect(content.extensions.credential.map(Sodium.hex) == keys["credential"], "tag 1; the unknown tag 0x50 is skipped")
        // The credential fingerprint is the household's keyed hash, as FORMAT.md says.
        var household = try Household(json: JSON.parse(Array(#"{"credentialKey":"\#(keys["credential-key"]!)"}"#.utf8)))
        #expect(household.credentialFingerprint(of: content.config) == keys["credential"])
        #expect(thrown { _ = try Envelope(text: Self.text(directory + "tampered.txt")).open(with: child, now: envelope.issued + 60, checksums: false) }?
            .reason == .codeTampered)
    }

    @Test func theReceiptOpensOnlyFromThatChildForThatParent() throws {
        let directory = packageRoot + "/fixtures/receipt-v1/"
        let keys = Self.keys(directory)
        let child = ReceivingKeyPair.generate(seed: Sodium.unhex(keys["child-box-seed"]!)!)
        let parent = IssuerKeyPair.generate(seed: Sodium.unhex(keys["parent-sign-seed"]!)!)
        let receipt = try Receipt(text: Self.text(directory + "receipt.txt"))
        #expect(receipt.codeIdHex == keys["id"])
        #expect(receipt.open(from: child.publicKey, issuer: parent).map(Sodium.hex) == keys["credential"])
        #expect(receipt.open(from: ReceivingKeyPair.generate().publicKey, issuer: parent) == nil, "another child's key")
        #expect(receipt.open(from: child.publicKey, issuer: IssuerKeyPair.generate()) == nil, "another parent")
        #expect(try Receipt(text: Self.text(directory + "other-device.txt")).open(from: child.publicKey, issuer: parent) == nil)
        #expect(try Receipt(text: Self.text(directory + "other-parent.txt")).open(from: child.publicKey, issuer: parent) == nil)
        // And one made here opens as the vector does.
        let code = DeviceIdentity.ImportedCode(id: Sodium.unhex(keys["id"]!)!, issuedMs: 0, issuer: parent.publicKey,
                                               credential: Sodium.unhex(keys["credential"]!)!)
        let made = try Receipt(text: Receipt.make(for: code, device: child))
        #expect(made.codeIdHex == keys["id"] && made.open(from: child.publicKey, issuer: parent).map(Sodium.hex) == keys["credential"])
        #expect(ClassifiedPayload(Array(Self.text(directory + "receipt.txt").utf8)).kind == .receipt)
    }

    /// Base45's alphabet holds the space: a code id whose first byte is one of these six makes
    /// a receipt whose text has a space right after `LR1:` (and, typed with spaces round
    /// it, still reads: only the ends of the whole text are trimmed).
    @Test(arguments: [5, 50, 95, 140, 185, 230] as [UInt8])
    func aReceiptBeginningWithASpaceReads(first: UInt8) throws {
        let child = ReceivingKeyPair.generate(), parent = IssuerKeyPair.generate()
        let credential = Sodium.randomBytes(16)  // the credential fingerprint (docs/CODES.md)
        let code = DeviceIdentity.ImportedCode(id: [first] + Sodium.randomBytes(15), issuedMs: 0,
                                               issuer: parent.publicKey, credential: credential)
        let text = try Receipt.make(for: code, device: child)
        #expect(text.hasPrefix(Receipt.textPrefix + " "), "\(text)")
        let read = try Receipt(text: "  " + text + "\n")
        #expect(read.codeId == code.id && read.open(from: child.publicKey, issuer: parent) == credential)
    }

    @Test func damagedAndNewerReceiptsAreRefused() throws {
        let good = Self.text(packageRoot + "/fixtures/receipt-v1/receipt.txt")
        for (text, words) in [("LR2:" + good.dropFirst(4), "newer lomme-vault"), (String(good.dropLast(3)), "damaged"),
                              ("LR1:not base45!", "damaged"), ("hello", "not a lomme-vault receipt")] {
            let error = #expect(throws: LommeError.self) { try Receipt(text: text) }
            #expect(error?.code == .refused && error?.message.contains(words) == true, "\(text): \(String(describing: error))")
        }
        let noCredential = DeviceIdentity.ImportedCode(id: [UInt8](repeating: 1, count: 16), issuedMs: 0)
        #expect((#expect(throws: LommeError.self) { try Receipt.make(for: noCredential, device: .generate()) })?.code == .notFound)
    }
}
