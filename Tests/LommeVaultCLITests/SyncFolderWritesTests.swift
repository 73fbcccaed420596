import Foundation
import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// docs/SYNC.md, "The sync folder": a machine writes only its own journal, atomically (a
/// temp file, fsync, rename, the folder fsynced), mode 0600; a sync killed at any write,
/// fsync, link, rename or unlink of its run loses nothing, and the next sync leaves only
/// whole files in the folder; two machines syncing into one folder at the same moment both
/// succeed and then agree. Seen in the system calls of the built binary (strace), and with
/// SIGKILL delivered at a counted system call — never by timing.
@Suite("Sync writes its own files whole")
struct SyncFolderWritesTests {
    typealias Machine = HostileHousehold.Machine
    static let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    /// `sync` on `machine` under strace: the log's path.
    static func traced(_ home: HostileHousehold, _ machine: Machine, trace: String, extra: String = "") -> (CLI.Result, String) {
        let log = home.box.path + "/strace-\(UUID().uuidString.prefix(8)).log"
        let result = CLI.run(["sync", home.folder, "--passphrase-file", machine.folder + "/pw"], environment: ["LOMME_VAULT": machine.vault],
                             shell: "exec strace -f -qq -o '\(log)' -e trace=\(trace) \(extra) \"$LV\" \"$@\"")
        return (result, log)
    }

    /// The names in `folder` that are not lomme-vault's journals: a temp file left behind shows here.
    static func strays(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { SyncFolder.entry($0) == nil }.sorted()
    }

    @Test(.enabled(if: hasStrace, "strace is not installed (debian-packages.txt lists it)"))
    func aJournalIsWrittenAtomicallyAndNothingElseInTheFolderIsWritten() throws {
        let home = try HostileHousehold()
        try home.addChild("ola", on: home.far)
        let name = try home.journalName(home.far)
        let others = try [home.mor, home.tante].map { try home.journalName($0) }
        let before = others.map { readFile(home.folder + "/" + $0) }
        let (result, log) = Self.traced(home, home.far, trace: "openat,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,link,linkat")
        #expect(result.status == 0, "\(result.stderr)")
        let calls = PromiseDurabilityTests.calls(String(decoding: readFile(log), as: UTF8.self))
        // The folder, opened once; every call on a name in it goes through that descriptor.
        let folderOpen = try #require(calls.first { $0.name == "openat" && $0.arguments.contains("\"\(home.folder)\"") && $0.arguments.contains("O_DIRECTORY") })
        let folderFD = folderOpen.result
        let inFolder = calls.filter { $0.arguments.hasPrefix(folderFD + ",") }
        let temp = try #require(inFolder.firstIndex { $0.name == "openat" && $0.arguments.contains("\".\(name).tmp-") && $0.arguments.contains("O_CREAT") },
                                "a temp file .\(name).tmp-… made in the folder")
        let tempFD = inFolder[temp].result
        let writes = inFolder.filter { $0.name == "openat" && ($0.arguments.contains("O_WRONLY") || $0.arguments.contains("O_RDWR") || $0.arguments.contains("O_CREAT")) }
        #expect(writes.count == 1, "one file opened for writing in the folder: \(writes.map(\.arguments))")
        let renames = inFolder.filter { $0.name.hasPrefix("rename") || $0.name.hasPrefix("link") || $0.name.hasPrefix("unlink") }
        #expect(renames.count == 1 && renames[0].arguments.contains("\".\(name).tmp-") && renames[0].arguments.hasSuffix("\"\(name)\"") && renames[0].result == "0",
                "the temp file renamed over this machine's journal, nothing else: \(renames.map(\.arguments))")
        let renameAt = try #require(calls.firstIndex { $0.name.hasPrefix("rename") && $0.arguments.hasPrefix(folderFD + ",") })
        let tempAt = try #require(calls.firstIndex { $0.name == "openat" && $0.result == tempFD && $0.arguments.contains(".tmp-") })
        #expect(calls[tempAt..<renameAt].contains { ($0.name == "fsync" || $0.name == "fdatasync") && $0.arguments == tempFD && $0.result == "0" },
                "the temp file (fd \(tempFD)) synced before the rename")
        #expect(calls[renameAt...].contains { $0.name == "fsync" && $0.arguments == folderFD && $0.result == "0" }, "the folder synced after the rename")
        // Whole, its own mode, no temp file left, the others' journals as they were.
        #expect(CLI.mode(home.folder + "/" + name) == 0o600)
        #expect(Self.strays(home.folder).isEmpty, "\(Self.strays(home.folder))")
        #expect(others.map { readFile(home.folder + "/" + $0) } == before, "the other machines' journals untouched")
        let taken = home.sync(home.mor)
        #expect(taken.status == 0 && taken.stderr.contains("took 1 child"), "\(taken.stderr)")
    }

    /// far, holding a change of its own (Per), syncs a folder holding tante's journal with a
    /// change (Ola), killed (SIGKILL, by strace) as it enters each write, fsync, link,
    /// rename and unlink of the run in turn. Each time: the next sync of far's exits 0 with
    /// nothing refused, the folder holds no temp file and only whole journals (mor's sync
    /// takes far's without a refusal), and nothing is lost (far holds Ola, mor gets Per).
    @Test(.enabled(if: hasStrace, "strace is not installed (debian-packages.txt lists it)"))
    func aSyncKilledAtAnyWriteLosesNothingAndLeavesNoHalfFile() throws {
        let home = try HostileHousehold()
        try home.addChild("ola", on: home.tante)
        try HostileHousehold.require(home.sync(home.tante), "tante's sync")
        try home.addChild("per", on: home.far)
        let saved = try home.newFolder("saved")
        let box = home.box.path
        let keep = CLI.run([], shell: "cd '\(box)' && cp -a far mor folder '\(saved)'/")
        try #require(keep.status == 0, "\(keep.stderr)")
        func restore() throws {
            let back = CLI.run([], shell: "cd '\(box)' && rm -rf far mor folder && cp -a '\(saved)'/far '\(saved)'/mor '\(saved)'/folder .")
            try #require(back.status == 0, "\(back.stderr)")
        }
        let kinds = ["write", "fsync", "link", "rename", "renameat", "unlink"]
        let (counted, log) = Self.traced(home, home.far, trace: kinds.joined(separator: ","))
        try #require(counted.status == 0, "\(counted.stderr)")
        let calls = PromiseDurabilityTests.calls(String(decoding: readFile(log), as: UTF8.self))
        var killed = 0
        for kind in kinds {
            let count = calls.filter { $0.name == kind }.count
            guard count > 0 else { continue }
            for n in 1...count {
                try restore()
                let (run, _) = Self.traced(home, home.far, trace: kind, extra: "-e inject=\(kind):signal=SIGKILL:when=\(n)")
                if run.status != 0 { killed += 1 }
                let next = home.sync(home.far)
                #expect(next.status == 0 && HostileHousehold.refusals(next.stderr).isEmpty, "killed at \(kind) #\(n); the next sync: \(next.status) \(next.stderr)")
                #expect(Self.strays(home.folder).isEmpty, "killed at \(kind) #\(n): left in the folder \(Self.strays(home.folder))")
                let vaultFolder = (home.far.vault as NSString).deletingLastPathComponent
                let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: vaultFolder)) ?? []).filter { $0.contains(".tmp-") || $0.contains(".bak-") }
                #expect(leftovers.isEmpty, "killed at \(kind) #\(n): left beside the vault \(leftovers)")
                for name in (try? FileManager.default.contentsOfDirectory(atPath: home.folder)) ?? [] {
                    #expect(CLI.mode(home.folder + "/" + name) == 0o600, "killed at \(kind) #\(n): \(name)")
                }
                let taken = home.sync(home.mor)
                #expect(taken.status == 0 && HostileHousehold.refusals(taken.stderr).isEmpty, "killed at \(kind) #\(n); mor's sync: \(taken.stderr)")
                #expect(try home.children(home.mor) == ["anna", "ola", "per"], "killed at \(kind) #\(n): mor's children")
                #expect(try home.children(home.far) == ["anna", "ola", "per"], "killed at \(kind) #\(n): far's children")
            }
        }
        #expect(killed >= 10, "the kills happened: \(killed)")
    }

    /// mor and far each change something and sync into the same folder at the same moment,
    /// four rounds: both succeed each time, refuse nothing, and after a last sync each the
    /// two hold the same children, records and config.
    @Test func twoMachinesSyncingIntoOneFolderAtOnceBothSucceedAndAgree() throws {
        let home = try HostileHousehold()
        let pair = [home.mor, home.far]
        for round in 1...4 {
            try home.addChild("m\(round)", on: home.mor)
            try home.addChild("f\(round)", on: home.far)
            for machine in pair {
                try HostileHousehold.require(machine.run(["issue", "--to", "anna", "--output", home.box.path + "/\(machine.name)-\(round).png"]), "issue")
            }
            let results = Results()
            let folder = home.folder, runs = pair.map { ($0.folder + "/pw", $0.vault) }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = CLI.run(["sync", folder, "--passphrase-file", runs[index].0], environment: ["LOMME_VAULT": runs[index].1])
                results.set(index, result)
            }
            for (index, result) in results.all.enumerated() {
                #expect(result?.status == 0 && HostileHousehold.refusals(result?.stderr ?? "").isEmpty,
                        "round \(round), \(pair[index].name): \(result?.status ?? -1) \(result?.stderr ?? "")")
            }
            #expect(Self.strays(home.folder).isEmpty, "round \(round): \(Self.strays(home.folder))")
        }
        for machine in pair + pair { try HostileHousehold.require(home.sync(machine), "sync on \(machine.name)") }
        let children = try pair.map { try home.children($0) }
        #expect(children[0] == children[1] && children[0].count == 9, "\(children)")
        let records = try pair.map { machine in
            ((try home.plaintext(machine)["household"] as? [String: Any])?["issued"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
        }
        #expect(records[0] == records[1] && records[0].count == 8, "\(records)")
        let sameConfig = pair.map { $0.run(["get", "clientSecret"]).out }.allSatisfy { $0 == home.mor.run(["get", "clientSecret"]).out }
        #expect(sameConfig, "the same config on both")
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [CLI.Result?] = [nil, nil]
        func set(_ index: Int, _ value: CLI.Result) { lock.lock(); values[index] = value; lock.unlock() }
        var all: [CLI.Result?] { lock.lock(); defer { lock.unlock() }; return values }
    }
}
