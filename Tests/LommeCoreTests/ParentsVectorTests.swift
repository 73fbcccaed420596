@testable import LommeCore
import LommeTestSupport
import Testing

/// The parent key and a household file (a journal sealed to two machines) against the
/// vectors `fixtures/parents-v1/make.py` writes from docs/SYNC.md with PyNaCl alone.
@Suite("Two parents: test vectors")
struct ParentsVectorTests {
    static let folder = packageRoot + "/fixtures/parents-v1/"
    static let vectors: [String: String] = Dictionary(uniqueKeysWithValues: String(decoding: readFile(folder + "vectors.txt"), as: UTF8.self)
        .split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return (String(parts[0]), String(parts[1]))
        })
    static func hex(_ name: String) -> [UInt8] { Sodium.unhex(vectors[name]!)! }

    static let writer = IssuerKeyPair.generate(seed: hex("writer-sign-seed"))
    static let reader = ReceivingKeyPair.generate(seed: hex("reader-box-seed"))

    @Test func theParentKeyIsTheBech32OfBothKeys() throws {
        let receiving = ReceivingKeyPair.generate(seed: Self.hex("writer-box-seed")).publicKey
        let key = ParentKey(receiving: receiving, issuer: Self.writer.publicKey)
        #expect(key.text == Self.vectors["parent-key"])
        #expect(try ParentKey(text: Self.vectors["parent-key"]!.uppercased()) == key)
        var typo = Array(Self.vectors["parent-key"]!)
        typo[20] = typo[20] == "q" ? "p" : "q"
        #expect((#expect(throws: LommeError.self) { try ParentKey(text: String(typo)) })?.reason == .parentKeyTypo)
        #expect((#expect(throws: LommeError.self) { try ParentKey(text: receiving.text) })?.reason == .parentKeyNotOne)
    }

    @Test func theJournalOpensForEachRecipientAndSaysWhatPythonWrote() throws {
        for name in ["journal.lvh", "journal.txt"] {
            for seed in ["reader-box-seed", "other-box-seed"] {
                let opened = try HouseholdFile.open(readFile(Self.folder + name), with: ReceivingKeyPair.generate(seed: Self.hex(seed)))
                #expect(opened.kind == .journal && opened.writer == Self.writer.publicKey && opened.recipients.count == 2)
                let json = try JSON.parse(String(decoding: opened.body.bytes, as: UTF8.self))
                let journal = try Journal(json: json, writer: try #require(IssuerID(bytes: Self.hex("writer-id"))))
                #expect(journal.sequence == 7 && journal.written.text == "2026-01-01T00:00:00Z")
                #expect(journal.facts.vouch.bytes == Self.hex("vouch") && journal.facts.vouch.names(Self.writer.publicKey))
                #expect(journal.facts.configs.map(\.revision) == [3] && journal.facts.configs.first?.by == IssuerID(bytes: Self.hex("writer-id")))
                #expect(journal.facts.children.map(\.name) == ["anna"] && journal.facts.children.first?.version == 2)
                #expect(journal.facts.children.first?.by == IssuerID(bytes: Self.hex("writer-id")))
                #expect(journal.facts.gone == [ChildTombstone(name: "ola", version: 4, by: try #require(IssuerID(bytes: Self.hex("writer-id"))))])
            }
        }
        // Not sealed to the writer's own receiving key: not for it.
        let notOurs = #expect(throws: LommeError.self) {
            try HouseholdFile.open(readFile(Self.folder + "journal.lvh"), with: ReceivingKeyPair.generate(seed: Self.hex("writer-box-seed")))
        }
        #expect(notOurs?.reason == .householdFileNotForUs && notOurs?.code == .refused)
        // One byte changed anywhere after the header's stanzas: refused.
        let bytes = readFile(Self.folder + "journal.lvh")
        for position in [0, 5, 7, 30, bytes.count / 2, bytes.count - 1] {
            var changed = bytes
            changed[position] ^= 0x01
            #expect(throws: LommeError.self, "byte \(position)") { try HouseholdFile.open(changed, with: Self.reader) }
        }
        #expect(throws: LommeError.self) { try HouseholdFile.open(Array(bytes.dropLast(10)), with: Self.reader) }
    }

    /// What Swift seals, PyNaCl's reader would open: the same layout both ways (a round trip
    /// here; Tests/scripts/household-open.py reads the files the binary writes).
    @Test func aFileSealedHereOpensForEveryRecipientOnly() throws {
        let other = ReceivingKeyPair.generate()
        let body = SecureBytes(copying: Array(#"{"format":1}"#.utf8))
        let file = try HouseholdFile.seal(body, kind: .handOver, to: [Self.reader.publicKey, other.publicKey], writer: Self.writer)
        for pair in [Self.reader, other] {
            let opened = try HouseholdFile.open(file, with: pair)
            #expect(opened.kind == .handOver && opened.body.bytes == body.bytes && opened.writer == Self.writer.publicKey)
        }
        #expect(throws: LommeError.self) { try HouseholdFile.open(file, with: ReceivingKeyPair.generate()) }
    }
}
