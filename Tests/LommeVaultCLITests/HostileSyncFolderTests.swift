import Foundation
import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// docs/SYNC.md, "The sync folder": the folder is untrusted storage. Through the built
/// binary, far's machine syncs a folder holding one hostile file: changed, cut short, an
/// older copy (rolled back), another machine's journal under a name not its own, another
/// journal of a sequence already taken (forked), another household's, a machine no vouch
/// names, a symbolic link, a file too large, a directory or garbage named like a journal.
/// (A removed machine's journal written after its removal is ignored, said in one line and
/// not a failure of the sync: a nightly sync goes on working.) Each is refused with one line on stderr
/// naming it; alone in the folder, nothing else is read and sync exits 7 with far's vault as
/// it was (but for its own sequence and the folder it remembers); beside a good journal
/// (tante's, adding Ola), sync exits 0, the good one is taken and nothing of the hostile
/// one is. Files that are not lomme-vault's are never touched nor complained about.
@Suite("The sync folder is untrusted storage")
struct HostileSyncFolderTests {
    typealias Machine = HostileHousehold.Machine

    /// `plant(folder)` puts the hostile file `name` into a folder. Alone in a new folder: far
    /// refuses it, exit 7, its vault unchanged. Beside tante's good journal in the shared
    /// folder: far refuses it, takes Ola, exit 0. Neither time does a child called Mallory
    /// (what each hostile journal that opens carries) reach far's vault, nor does what far
    /// remembers of mor's journals change (`morsJournalSeen`).
    func expectRefused(_ home: HostileHousehold, _ name: String, saying words: String, morsJournalSeen: Bool = true,
                       sourceLocation: SourceLocation = #_sourceLocation, plant: (String) throws -> Void) throws {
        let alone = try home.newFolder("alone-\(UUID().uuidString.prefix(8))")
        try plant(alone)
        let before = try home.state(home.far)
        let seen = try home.seen(home.far)
        let lone = home.sync(home.far, alone)
        #expect(lone.status == 7, "alone: exit \(lone.status): \(lone.stderr)", sourceLocation: sourceLocation)
        let refused = HostileHousehold.refusals(lone.stderr)
        #expect(refused.count == 1 && refused[0].contains(name) && refused[0].contains(words), "alone: \(lone.stderr)", sourceLocation: sourceLocation)
        let unchanged = try home.state(home.far) == before
        #expect(unchanged, "alone: far's vault changed (beyond its own sequence and the folder)", sourceLocation: sourceLocation)

        try home.addChild("ola", on: home.tante)
        try HostileHousehold.require(home.sync(home.tante), "tante's sync")
        try plant(home.folder)
        let beside = home.sync(home.far)
        #expect(beside.status == 0, "beside a good journal: exit \(beside.status): \(beside.stderr)", sourceLocation: sourceLocation)
        let again = HostileHousehold.refusals(beside.stderr)
        #expect(again.count == 1 && again[0].contains(name) && again[0].contains(words), "beside: \(beside.stderr)", sourceLocation: sourceLocation)
        #expect(beside.stderr.contains("took 1 child"), "tante's journal taken: \(beside.stderr)", sourceLocation: sourceLocation)
        let children = try home.children(home.far)
        #expect(children == ["anna", "ola"], "\(children)", sourceLocation: sourceLocation)
        if morsJournalSeen {
            let morID = try home.parentKey(home.mor).issuer.id.hex
            let now = try HostileHousehold.entry(morID, of: try home.seen(home.far)), then = try HostileHousehold.entry(morID, of: seen)
            #expect(now == then && now != "null", "what far took of mor's journals is as it was", sourceLocation: sourceLocation)
        }
    }

    /// mor adds Mallory and writes its journal into a folder of its own (not the shared one):
    /// the bytes of that journal, its name, and mor's journal in the shared folder before.
    func morsJournalWithMallory(_ home: HostileHousehold) throws -> (bytes: [UInt8], name: String) {
        try home.addChild("mallory", on: home.mor)
        let elsewhere = try home.newFolder("mor-elsewhere")
        try HostileHousehold.require(home.sync(home.mor, elsewhere), "mor's sync elsewhere")
        let name = try home.journalName(home.mor)
        return (readFile(elsewhere + "/" + name), name)
    }

    static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
    }

    @Test func aJournalWithOneByteChangedIsRefused() throws {
        let home = try HostileHousehold()
        var (bytes, name) = try morsJournalWithMallory(home)
        bytes[bytes.count / 2] ^= 0x01
        try expectRefused(home, name, saying: "changed") { Self.write(bytes, to: $0 + "/" + name) }
    }

    @Test func aTruncatedJournalIsRefused() throws {
        let home = try HostileHousehold()
        let (bytes, name) = try morsJournalWithMallory(home)
        try expectRefused(home, name, saying: "cut short") { Self.write(Array(bytes.prefix(bytes.count - 40)), to: $0 + "/" + name) }
    }

    @Test func anOlderCopyOfAMachinesJournalIsRefusedAsRolledBack() throws {
        let home = try HostileHousehold()
        let name = try home.journalName(home.mor)
        // mor adds Mallory and syncs; the copy is kept; mor removes her and syncs again; far takes that.
        try home.addChild("mallory", on: home.mor)
        try HostileHousehold.require(home.sync(home.mor), "mor's sync")
        let older = readFile(home.folder + "/" + name)
        try HostileHousehold.require(home.mor.run(["child", "remove", "mallory", "--yes"]), "child remove")
        try HostileHousehold.require(home.sync(home.mor), "mor's second sync")
        try HostileHousehold.require(home.sync(home.far), "far's sync")
        try expectRefused(home, name, saying: "rolled back") { Self.write(older, to: $0 + "/" + name) }
        #expect(try home.plaintext(home.far)["household"].map { "\($0)" }?.contains("mallory") == true, "her removal is held")
    }

    @Test func aJournalUnderAnotherMachinesNameIsRefused() throws {
        let home = try HostileHousehold()
        let (bytes, _) = try morsJournalWithMallory(home)
        // Under the name of a machine the folder has no file of, and (alone) under tante's.
        let stranger = HostileHousehold.strangerName(), tantes = try home.journalName(home.tante)
        let alone = try home.newFolder("under-tantes-name")
        Self.write(bytes, to: alone + "/" + tantes)
        let lone = home.sync(home.far, alone)
        #expect(lone.status == 7 && HostileHousehold.refusals(lone.stderr).count == 1, "\(lone.stderr)")
        #expect(lone.stderr.contains("\(tantes): refused: it is named after another machine"), "\(lone.stderr)")
        try expectRefused(home, stranger, saying: "named after another machine") { Self.write(bytes, to: $0 + "/" + stranger) }
    }

    /// True when `stderr` says that `name` was ignored, as a journal of a removed machine.
    static func ignored(_ stderr: String, _ name: String) -> Bool {
        stderr.split(separator: "\n").contains { $0.contains(name) && $0.contains(": ignored: ") && $0.contains("removed from the household") }
    }

    /// A second copy of mor's vault (a restored backup, a cloned disk) that syncs otherwise:
    /// its journal has the sequence far took from mor's already, with other content.
    @Test func anotherJournalOfATakenSequenceIsRefusedAsForked() throws {
        let home = try HostileHousehold()
        let mor2 = Machine(home.box, "mor2")
        try home.copy(home.mor.folder + "/.", mor2.folder)
        try home.addChild("mallory", on: mor2)
        let elsewhere = try home.newFolder("mor2-elsewhere")
        try HostileHousehold.require(home.sync(mor2, elsewhere), "mor2's sync")
        // mor changes something too (a child added and removed), so its next journal has
        // the sequence mor2's has (an unchanged journal is not written again).
        try home.addChild("kari", on: home.mor)
        try HostileHousehold.require(home.mor.run(["child", "remove", "kari", "--yes"]), "child remove kari")
        try HostileHousehold.require(home.sync(home.mor), "mor's sync")
        try HostileHousehold.require(home.sync(home.far), "far's sync")
        let name = try home.journalName(home.mor)
        let forked = readFile(elsewhere + "/" + name)
        try expectRefused(home, name, saying: "another journal of a sequence already taken") { Self.write(forked, to: $0 + "/" + name) }
    }

    /// A third household's parent machine that added far's parent key with its own kit: its
    /// journal opens with far's key, and is of another household.
    @Test func anotherHouseholdsJournalIsRefused() throws {
        let home = try HostileHousehold()
        let other = Machine(home.box, "other")
        let pdf = home.box.path + "/other-kit.pdf"
        try HostileHousehold.require(other.run(["init", "--parent", "--recovery-kit", pdf]), "init --parent")
        let kit = home.box.write("other-kit.txt", try RecoveryKitTests.readKit(pdf, in: home.box).qr + "\n")
        try HostileHousehold.require(other.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configA), "import")
        try HostileHousehold.require(other.run(["parent", "add", "far", "--key", try HostileHousehold.parentKey(home.far), "--recovery-file", kit,
                                                "--output", home.box.path + "/other.lvh", "--yes", "--as", "other"]), "parent add")
        try home.addChild("mallory", on: other)
        let elsewhere = try home.newFolder("other-household")
        try HostileHousehold.require(home.sync(other, elsewhere), "the other household's sync")
        let name = try home.journalName(other)
        let foreign = readFile(elsewhere + "/" + name)
        try expectRefused(home, name, saying: "another household") { Self.write(foreign, to: $0 + "/" + name) }
        #expect(try home.children(home.far) == ["anna", "ola"])
    }

    /// A machine no vouch names writes a journal of this household: it knows the household
    /// key and the vouch (every code a child holds carries both) and far's receiving key
    /// (its parent key is no secret).
    @Test func aJournalOfAMachineNoVouchNamesIsRefused() throws {
        let home = try HostileHousehold()
        let root = try #require((try home.plaintext(home.mor)["household"] as? [String: Any])?["root"] as? [String: Any])
        let household = try #require((root["public"] as? String).flatMap(HouseholdKey.init(hex:)))
        let vouch = try #require((root["vouch"] as? String).flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)))
        let intruder = IssuerKeyPair.generate()
        var facts = HouseholdFacts(household: household, vouch: vouch, rotations: [])
        var mallory = Child(name: "mallory", receivingKey: ReceivingKeyPair.generate().publicKey, accountNr: "12345678903", fields: [],
                            added: Instant.now())
        mallory.version = 1
        facts.children = [mallory]
        let body = Journal(sequence: 1, written: Instant.now(), facts: facts).json.text
        let bytes = try HouseholdFile.seal(SecureBytes(copying: Array(body.utf8)), kind: .journal,
                                           to: [try home.parentKey(home.far).receiving], writer: intruder)
        let name = SyncFolder.journalName(intruder.publicKey)
        try expectRefused(home, name, saying: "a machine the household key does not vouch for") { Self.write(bytes, to: $0 + "/" + name) }
    }

    /// mor removes tante with the kit and syncs; far takes that. tante, not knowing, adds
    /// Mallory and writes its next journal: far refuses it. (The good journal beside it is
    /// mor's here, adding Ola.)
    @Test func aRemovedParentsJournalWrittenAfterItsRemovalIsIgnored() throws {
        let home = try HostileHousehold()
        try HostileHousehold.require(home.mor.run(["parent", "remove", "tante", "--recovery-file", home.kit, "--yes"]), "parent remove")
        try HostileHousehold.require(home.sync(home.mor), "mor's sync")
        try HostileHousehold.require(home.sync(home.far), "far's sync")
        let name = try home.journalName(home.tante)
        try home.addChild("mallory", on: home.tante)
        let elsewhere = try home.newFolder("tante-elsewhere")
        try HostileHousehold.require(home.sync(home.tante, elsewhere), "tante's sync")
        let later = readFile(elsewhere + "/" + name)
        #expect(!later.isEmpty, "tante wrote a journal")

        let alone = try home.newFolder("alone")
        Self.write(later, to: alone + "/" + name)
        let before = try home.state(home.far)
        let lone = home.sync(home.far, alone)
        #expect(lone.status == 0, "ignored, not a failure of the sync: \(lone.stderr)")
        #expect(HostileHousehold.refusals(lone.stderr).isEmpty && Self.ignored(lone.stderr, name), "\(lone.stderr)")
        #expect(try home.state(home.far) == before, "far's vault unchanged")

        try home.addChild("ola", on: home.mor)
        try HostileHousehold.require(home.sync(home.mor), "mor's sync")
        Self.write(later, to: home.folder + "/" + name)
        let beside = home.sync(home.far)
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(HostileHousehold.refusals(beside.stderr).isEmpty && Self.ignored(beside.stderr, name), "\(beside.stderr)")
        #expect(try home.children(home.far) == ["anna", "ola"])
    }

    /// A link under mor's journal's name to mor's newer journal (which brings Mallory):
    /// not followed, so nothing of it is taken.
    @Test func aSymbolicLinkNamedLikeAJournalIsNotFollowed() throws {
        let home = try HostileHousehold()
        try home.addChild("mallory", on: home.mor)
        let elsewhere = try home.newFolder("mor-elsewhere")
        try HostileHousehold.require(home.sync(home.mor, elsewhere), "mor's sync elsewhere")
        let name = try home.journalName(home.mor)
        try expectRefused(home, name, saying: "symbolic link") { folder in
            unlink(folder + "/" + name)
            try #require(symlink(elsewhere + "/" + name, folder + "/" + name) == 0)
        }
    }

    @Test func aFileTooLargeIsRefusedUnread() throws {
        let home = try HostileHousehold()
        let name = HostileHousehold.strangerName()
        try expectRefused(home, name, saying: "larger than any household file") { folder in
            let made = CLI.run([], shell: "truncate -s 17M '\(folder)/\(name)'")
            try #require(made.status == 0, "\(made.stderr)")
        }
    }

    @Test func aDirectoryOrAPipeNamedLikeAJournalIsRefused() throws {
        let home = try HostileHousehold()
        let name = HostileHousehold.strangerName()
        try expectRefused(home, name, saying: "not a regular file") { folder in
            try #require(mkdir(folder + "/" + name, 0o700) == 0)
        }
        // A named pipe: refused without waiting for a writer.
        let pipe = try home.newFolder("pipe")
        let fifo = HostileHousehold.strangerName()
        try #require(mkfifo(pipe + "/" + fifo, 0o600) == 0)
        let result = CLI.run(["sync", pipe, "--passphrase-file", home.far.folder + "/pw"], environment: ["LOMME_VAULT": home.far.vault], timeout: 600)
        #expect(result.signal == nil && result.status == 7, "\(result.status) \(result.stderr)")
        #expect(HostileHousehold.refusals(result.stderr).first?.contains("\(fifo): refused: it is not a regular file") == true, "\(result.stderr)")
    }

    @Test func garbageNamedLikeAJournalIsRefused() throws {
        let home = try HostileHousehold()
        let name = HostileHousehold.strangerName()
        try expectRefused(home, name, saying: "not a lomme-vault household file") { folder in
            Self.write(Sodium.randomBytes(3000), to: folder + "/" + name)
        }
        // Garbage after a household file's magic and header: refused too.
        let deeper = try home.newFolder("deeper")
        let other = HostileHousehold.strangerName()
        Self.write(Array("LVHF".utf8) + [1, 1, 2] + Sodium.randomBytes(600), to: deeper + "/" + other)
        let result = home.sync(home.far, deeper)
        #expect(result.status == 7 && HostileHousehold.refusals(result.stderr).count == 1, "\(result.stderr)")
    }

    /// mor adds a fourth machine with the sync folder set: the household is handed over into
    /// the folder. far's and tante's syncs leave that file alone and say nothing of it (it
    /// opens with the new machine's key only); the new machine joins from it.
    @Test func aHandOverToAnotherMachineIsLeftAlone() throws {
        let home = try HostileHousehold()
        try HostileHousehold.require(home.sync(home.mor), "mor's sync (the folder remembered here)")
        let oma = Machine(home.box, "oma")
        try HostileHousehold.require(oma.run(["init", "--parent", "--join"]), "init --parent --join")
        try HostileHousehold.require(home.mor.run(["parent", "add", "oma", "--key", try HostileHousehold.parentKey(oma), "--recovery-file", home.kit, "--yes"]),
                                     "parent add oma (into the folder)")
        let handOver = try #require(try FileManager.default.contentsOfDirectory(atPath: home.folder).first { $0.contains(".handover-") })
        let bytes = readFile(home.folder + "/" + handOver)
        for machine in [home.far, home.tante] {
            let result = home.sync(machine)
            #expect(result.status == 0 && !result.stderr.contains(handOver), "\(machine.name): \(result.stderr)")
        }
        #expect(readFile(home.folder + "/" + handOver) == bytes)
        let joined = oma.run(["sync", home.folder, "--yes"])
        #expect(joined.status == 0 && joined.stderr.contains("\(handOver) (mor's machine): joined the household"), "\(joined.stderr)")
        #expect(try home.children(oma) == ["anna"])
    }

    /// `.git/`, `.stfolder`, Syncthing's temp and conflict copies (also of a journal), a
    /// README, another program's files: every machine's sync leaves them as they were and
    /// says nothing of them.
    @Test func otherFilesInTheFolderAreLeftAloneAndNeverComplainedAbout() throws {
        let home = try HostileHousehold()
        let folder = home.folder
        let git = CLI.run([], shell: "cd '\(folder)' && git init -q && git add -A && git -c user.name=t -c user.email=t@example.org commit -qm first")
        try #require(git.status == 0, "\(git.stderr)")
        try #require(mkdir(folder + "/.stfolder", 0o700) == 0)
        let mors = try home.journalName(home.mor)
        let stem = String(mors.dropLast(".journal".count))
        try home.copy(folder + "/" + mors, folder + "/" + stem + ".sync-conflict-20261129-101010-ABCDEFG.journal")
        try home.copy(folder + "/" + mors, folder + "/.syncthing." + mors + ".tmp")
        home.box.write("folder/x.sync-conflict-20261129-101010-ABCDEFG.txt", "a conflict copy of another file\n")
        home.box.write("folder/README", "This folder is shared by the parents' machines.\n")
        home.box.write("folder/lomme-notes.txt", "not a journal\n")
        home.box.write("folder/lomme-" + stem + ".journal.orig", "what a merge tool left\n")
        let journals = Set(try home.all.map { try home.journalName($0) })
        let before = HostileHousehold.snapshot(folder).filter { !journals.contains($0.key) }
        for machine in home.all {
            let result = home.sync(machine)
            #expect(result.status == 0 && HostileHousehold.refusals(result.stderr).isEmpty, "\(machine.name): \(result.stderr)")
            for other in before.keys where !other.contains("/") {
                #expect(!result.stderr.contains(other), "\(machine.name) spoke of \(other): \(result.stderr)")
            }
        }
        let after = HostileHousehold.snapshot(folder).filter { !journals.contains($0.key) }
        #expect(after == before, "changed: \(Set(after.keys).symmetricDifference(before.keys)) \(after.filter { before[$0.key] != $0.value }.keys.sorted())")
    }
}
