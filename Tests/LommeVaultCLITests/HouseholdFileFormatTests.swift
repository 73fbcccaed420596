import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The files two parents' machines exchange, as the built binary writes them, read by an
/// independent reader (Tests/scripts/household-open.py: PyNaCl, from docs/SYNC.md): the
/// hand-over opens for the new machine alone, a journal for every other parent's machine and
/// not for its writer, each signed by its writer's issuer; nothing of the secret is in them
/// in clear.
@Suite("Two parents: the files, read by PyNaCl")
struct HouseholdFileFormatTests {
    typealias Machine = HouseholdStoryTests.Machine

    static func keys(_ machine: Machine) throws -> (public: String, secret: String, issuer: String) {
        let plain = try RecoveryKitTests.plaintext(machine.vault, machine.folder + "/pw")
        let device = try #require(plain["device"] as? [String: Any])
        let receiving = try #require(device["receiving"] as? [String: String]), signing = try #require(device["signing"] as? [String: String])
        return (receiving["public"]!, receiving["secret"]!, signing["public"]!)
    }

    static func open(_ file: String, for machine: Machine) throws -> CLI.Result {
        let (publicKey, secretKey, _) = try keys(machine)
        return CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/household-open.py' '\(file)' \(publicKey) \(secretKey)")
    }

    @Test func theHandOverAndTheJournalsAreWhatTheFormatSays() throws {
        let home = try RecoveryKitTests.Household()
        let box = home.box
        let far = Machine(box, "far")
        let joined = far.run(["init", "--parent", "--join"])
        try #require(joined.status == 0, "\(joined.stderr)")
        let key = joined.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("lvp1"))
        let handOver = box.path + "/handover.lvh"
        let added = home.parent.run(["parent", "add", "far", "--key", key, "--recovery-file", box.write("kit.txt", home.key), "--output", handOver,
                                     "--yes", "--as", "mor"])
        try #require(added.status == 0, "\(added.stderr)")
        #expect(CLI.mode(handOver) == 0o600)
        // The hand-over opens for far's machine, and is signed by mor's issuer.
        let opened = try Self.open(handOver, for: far)
        #expect(opened.status == 0, "\(opened.stderr)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(opened.out.utf8)) as? [String: Any])
        let morIssuer = try Self.keys(home.parent).issuer
        #expect(read["kind"] as? String == "hand-over" && read["writer"] as? String == morIssuer)
        let body = try #require(read["body"] as? [String: Any])
        #expect((body["children"] as? [[String: Any]])?.first?["name"] as? String == "anna")
        let forMor = try Self.open(handOver, for: home.parent)
        #expect(forMor.status != 0, "the hand-over is for far's machine alone")
        #expect(!readFile(handOver).contains(Array(Sample.secretB.utf8)), "no secret in clear")
        try #require(far.run(["import", handOver, "--yes"]).status == 0)
        // Each machine's journal opens for the other, not for itself.
        let folder = box.path + "/shared"
        try #require(home.parent.run(["sync", folder]).status == 0)
        try #require(far.run(["sync", folder]).status == 0)
        let journals = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".journal") }.sorted()
        #expect(journals.count == 2, "\(journals)")
        for name in journals {
            let file = folder + "/" + name
            #expect(CLI.mode(file) == 0o600)
            #expect(!readFile(file).contains(Array(Sample.secretB.utf8)))
            let byMor = try Self.open(file, for: home.parent), byFar = try Self.open(file, for: far)
            #expect((byMor.status == 0) != (byFar.status == 0), "\(name) opens for exactly the other machine")
            let reader = byMor.status == 0 ? byMor : byFar
            let journal = try #require(try JSONSerialization.jsonObject(with: Data(reader.out.utf8)) as? [String: Any])
            #expect(journal["kind"] as? String == "journal")
            #expect(((journal["body"] as? [String: Any])?["sequence"] as? Int ?? 0) >= 1)
        }
    }
}
