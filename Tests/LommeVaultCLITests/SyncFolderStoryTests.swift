import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Two parents' machines agree through a plain folder, through the built binary: after
/// `sync DIR` on both they show the same config, the same children and the same record; a
/// child added on one appears on the other, a child removed on one disappears on the
/// other, a new device (rekey) and a new secret reach the other; the folder is remembered;
/// each machine writes one file of its own there. `sync --output FILE` and `import FILE`
/// carry the same by hand.
@Suite("Sync through a folder")
struct SyncFolderStoryTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// Both machines show the same config, children and record.
    static func agree(_ home: TwoParents, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(home.sameSecret(home.mor, home.far), "\(what): the same secret", sourceLocation: sourceLocation)
        #expect(home.mor.run(["get", "clientId"]).out == home.far.run(["get", "clientId"]).out, sourceLocation: sourceLocation)
        #expect(try home.childFacts(home.mor) == home.childFacts(home.far), "\(what): the same children", sourceLocation: sourceLocation)
        #expect(try home.records(home.mor) == home.records(home.far), "\(what): the same record", sourceLocation: sourceLocation)
    }

    /// `sync` (the remembered folder) on `first`, then on `second`, each succeeding.
    static func syncBoth(_ home: TwoParents, _ first: Machine, _ second: Machine, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for machine in [first, second] {
            let synced = home.sync(machine)
            try #require(synced.status == 0 && !synced.stderr.contains("refused"), "sync on \(machine.name): \(synced.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func twoMachinesAgreeThroughAPlainFolder() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/shared"
        // No folder given and none remembered yet: exit 64, saying how.
        let none = home.sync(far)
        #expect(none.status == 64 && none.reason == .syncFolderNotSet && none.stderr.contains("sync DIR"), "\(none.status) \(none.stderr)")
        // Each machine's first sync names the folder; later ones need none.
        try TwoParents.require(home.sync(mor, folder), "sync DIR on mor")
        try TwoParents.require(home.sync(far, folder), "sync DIR on far")
        try Self.syncBoth(home, mor, far)
        try Self.agree(home, "after the first syncs")
        // Each machine writes one file of its own, named after its issuer.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files == [home.journalName(mor), home.journalName(far)].sorted(), "\(files)")
        #expect(files.allSatisfy { CLI.mode(folder + "/" + $0) == 0o600 }, "journals are 0600")

        // A child added on far's appears on mor's.
        let ola = try home.device("ola")
        try TwoParents.require(far.run(["child", "add", "ola", "--key", ola.key.text, "--account", "12345678903", "--yes"]), "child add on far")
        try Self.syncBoth(home, far, mor)
        let onMor = try home.children(mor).first { $0["name"] as? String == "ola" }
        #expect(onMor?["receivingKey"] as? String == ola.key.fingerprint && onMor?["accountNr"] as? String == "12345678903", "\(String(describing: onMor))")
        try Self.agree(home, "a child added on far's")
        // mor issues to her (the record travels), then removes her: she disappears on far's.
        #expect(home.take(try home.issue(from: mor, "ola.png", to: "ola"), device: ola).status == 0)
        try Self.syncBoth(home, mor, far)
        try Self.agree(home, "a code issued on mor's")
        try TwoParents.require(mor.run(["child", "remove", "ola", "--yes"]), "child remove on mor")
        try Self.syncBoth(home, mor, far)
        #expect(try home.children(far).map { $0["name"] as? String } == ["anna"])
        try Self.agree(home, "a child removed on mor's")
        // Anna's new phone: rekeyed on far's, it reaches mor's.
        let phone = try home.device("anna-phone")
        try TwoParents.require(far.run(["child", "rekey", "anna", "--key", phone.key.text, "--yes"]), "rekey on far")
        try Self.syncBoth(home, far, mor)
        #expect(try home.children(mor).first?["receivingKey"] as? String == phone.key.fingerprint)
        try Self.agree(home, "a rekey on far's")
        // A renewed secret on mor's reaches far's; far's next code carries it to the phone.
        try home.setSecret(mor, "renewed in the folder story")
        try Self.syncBoth(home, mor, far)
        try Self.agree(home, "a secret set on mor's")
        #expect(home.take(try home.issue(from: far, "phone.png"), device: phone).status == 0)
        let renewed = phone.run(["get", "clientSecret"]).out == home.secret(mor)
        #expect(renewed, "the phone holds the renewed secret")
        try Self.syncBoth(home, far, mor)
        try Self.agree(home, "far's code to the phone")
        // Syncing again with nothing new changes nothing on either side.
        let quiet = home.sync(mor)
        #expect(quiet.status == 0 && !quiet.stderr.contains("took"), "\(quiet.stderr)")
        try Self.agree(home, "at the end")
    }

    @Test func syncOutputAndImportCarryTheSameByHand() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        // mor: a new secret and a child; its journal carried to far's by hand.
        try home.setSecret(mor, "renewed by hand")
        let ola = try home.device("ola")
        try TwoParents.require(mor.run(["child", "add", "ola", "--key", ola.key.text, "--account", "12345678903", "--yes"]), "child add")
        let fromMor = box.path + "/mor-journal.lvh"
        let written = mor.run(["sync", "--output", fromMor])
        try #require(written.status == 0 && written.stderr.contains("far"), "\(written.stderr)")
        #expect(CLI.mode(fromMor) == 0o600)
        // Never over an existing file.
        let again = mor.run(["sync", "--output", fromMor])
        #expect(again.status == 1 && again.reason == .outputFileExists, "\(again.status) \(again.stderr)")
        let imported = far.run(["import", fromMor])
        #expect(imported.status == 0 && imported.stderr.contains("mor's machine"), "\(imported.stderr)")
        // The same file again: nothing new, nothing written.
        let farBefore = readFile(far.vault)
        let twice = far.run(["import", fromMor])
        #expect(twice.status == 0 && twice.stderr.contains("Unchanged"), "\(twice.stderr)")
        #expect(TwoParents.unchanged(far.vault, farBefore))
        // far: rekeys anna and issues to ola; its journal carried back to mor's.
        let phone = try home.device("anna-phone")
        try TwoParents.require(far.run(["child", "rekey", "anna", "--key", phone.key.text, "--yes"]), "rekey")
        #expect(home.take(try home.issue(from: far, "ola.png", to: "ola"), device: ola).status == 0)
        let fromFar = box.path + "/far-journal.lvh"
        try TwoParents.require(far.run(["sync", "--output", fromFar]), "sync --output on far")
        try TwoParents.require(mor.run(["import", fromFar]), "import on mor")
        try SyncFolderStoryTests.agree(home, "carried by hand")
        #expect(try home.children(mor).first { $0["name"] as? String == "ola" }?["issuedBy"] as? String == "far's machine")
    }
}
