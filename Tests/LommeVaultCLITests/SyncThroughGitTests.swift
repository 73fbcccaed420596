import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The sync folder as two clones of one git repository, through the built binary and git:
/// the household is handed over into mor's clone and far's machine joins from its own;
/// then, over several rounds in which both machines change something between syncs, each
/// runs `sync` in its clone and `git add -A && git commit && git pull --rebase && git
/// push`: git never meets a conflict (each machine writes only files of its own), the
/// repository's own files are left alone, and after the rounds both machines show the same
/// config, children and record.
@Suite("Sync through git")
struct SyncThroughGitTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// git with no system or user configuration of this machine, never asking.
    static func git(_ command: String, in folder: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> CLI.Result {
        let result = CLI.run([], environment: ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0"],
                             shell: "cd '\(folder)' && git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main \(command)",
                             timeout: 600)
        try #require(result.status == 0, "git \(command) in \(folder): \(result.out) \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!(result.out + result.stderr).contains("CONFLICT"), "git \(command): \(result.out) \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// What each parent does after a sync: commit what changed in the clone, take the
    /// other's commits (rebasing its own over them), push.
    static func share(_ clone: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for command in ["add -A", "commit -q --allow-empty -m sync", "pull -q --rebase", "push -q"] {
            _ = try git(command, in: clone, sourceLocation: sourceLocation)
        }
        let status = try git("status --porcelain", in: clone, sourceLocation: sourceLocation)
        #expect(status.out.isEmpty, "nothing left uncommitted: \(status.out)", sourceLocation: sourceLocation)
    }

    /// `sync` in the remembered clone: succeeds, refuses nothing (git's files are not read).
    static func sync(_ home: TwoParents, _ machine: Machine, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let synced = home.sync(machine)
        try #require(synced.status == 0 && !synced.stderr.contains("refused"), "sync on \(machine.name): \(synced.stderr)", sourceLocation: sourceLocation)
    }

    @Test func twoClonesOfOneRepositoryCarryTheHouseholdWithoutAConflict() throws {
        let home = try TwoParents(joined: false)
        let box = home.box, mor = home.mor, far = home.far
        // A bare repository with one commit, and a clone for each parent's machine.
        _ = try Self.git("init -q --bare repo.git", in: box.path)
        _ = try Self.git("clone -q file://\(box.path)/repo.git seed", in: box.path)
        box.write("seed/README", "the household's sync folder\n")
        _ = try Self.git("add -A && git -c user.name=t -c user.email=t@example.invalid commit -q -m start && git push -q origin HEAD", in: box.path + "/seed")
        let morClone = box.path + "/mor-clone", farClone = box.path + "/far-clone"
        _ = try Self.git("clone -q file://\(box.path)/repo.git mor-clone", in: box.path)
        _ = try Self.git("clone -q file://\(box.path)/repo.git far-clone", in: box.path)

        // mor's machine syncs into its clone (remembered) and hands the household over into it.
        try TwoParents.require(home.sync(mor, morClone), "sync CLONE on mor")
        try TwoParents.require(far.run(["init", "--parent", "--join"]), "init --parent --join")
        let added = mor.run(["parent", "add", "far", "--key", try home.parentKey(far), "--recovery-file", home.kit, "--yes", "--as", "mor"])
        try #require(added.status == 0 && added.stderr.contains("put into the sync folder"), "\(added.stderr)")
        try Self.sync(home, mor)
        try Self.share(morClone)
        // far's machine: the clone brings the hand-over; joining asks, and without a terminal needs --yes.
        try Self.share(farClone)
        let farBefore = readFile(far.vault)
        let asked = home.sync(far, farClone)
        #expect(asked.status == 1 && asked.reason == .noTerminalToConfirm && asked.stderr.contains("--yes"), "\(asked.status) \(asked.stderr)")
        #expect(TwoParents.unchanged(far.vault, farBefore))
        let joined = far.run(["sync", farClone, "--yes"])
        try #require(joined.status == 0 && joined.stderr.contains("joined the household"), "\(joined.stderr)")
        try Self.share(farClone)
        try Self.share(morClone)
        try Self.sync(home, mor)
        try Self.share(morClone)
        try SyncFolderStoryTests.agree(home, "joined through git")

        // Rounds: both machines change something, then sync and share — far's commit is
        // rebased over mor's each time — then both sync and share again.
        let ola = try home.device("ola"), per = try home.device("per"), phone = try home.device("anna-phone")
        let rounds: [(mor: [String], far: [String], label: String)] = [
            (["set", "clientSecret"], ["child", "add", "ola", "--key", ola.key.text, "--account", "12345678903", "--yes"], "a secret, a child"),
            (["child", "add", "per", "--key", per.key.text, "--account", "97104133219", "--yes"], ["issue", "--to", "ola", "--output", box.path + "/ola.png"], "a child, a code"),
            (["child", "remove", "per", "--yes"], ["child", "rekey", "anna", "--key", phone.key.text, "--yes"], "a removal, a rekey"),
            (["issue", "--to", "anna", "--output", box.path + "/phone.png"], ["set", "clientSecret"], "a code, a secret"),
        ]
        for (index, round) in rounds.enumerated() {
            let changed = mor.run(round.mor, stdin: "secret of round \(index) on mor\n")
            try #require(changed.status == 0, "\(round.label) on mor: \(changed.stderr)")
            let changedFar = far.run(round.far, stdin: "secret of round \(index) on far\n")
            try #require(changedFar.status == 0, "\(round.label) on far: \(changedFar.stderr)")
            try Self.sync(home, mor)
            try Self.sync(home, far)
            try Self.share(morClone)
            try Self.share(farClone)
            try Self.share(morClone)
            try Self.sync(home, mor)
            try Self.sync(home, far)
            try Self.share(morClone)
            try Self.share(farClone)
            try Self.share(morClone)
            try SyncFolderStoryTests.agree(home, "round \(index + 1): \(round.label)")
        }
        #expect(try home.children(mor).map { $0["name"] as? String ?? "?" }.sorted() == ["anna", "ola"])
        #expect(try home.children(far).first { $0["name"] as? String == "anna" }?["receivingKey"] as? String == phone.key.fingerprint)
        // far's secret of the last round is the household's, on both machines and on the phone after far's next code.
        #expect(home.take(try home.issue(from: far, "phone-2.png"), device: phone).status == 0)
        let secretReached = phone.run(["get", "clientSecret"]).out == home.secret(mor)
        #expect(secretReached)

        // The repository holds git's files, the README and the household's files: one journal
        // per machine and the hand-over, nothing else (no temp file left behind).
        let tracked = try Self.git("ls-files", in: morClone).out.split(separator: "\n").map(String.init).sorted()
        let handOver = tracked.filter { $0.contains(".handover-") }
        #expect(tracked == (["README", home.journalName(mor), home.journalName(far)] + handOver).sorted() && handOver.count == 1, "\(tracked)")
        let log = try Self.git("log --oneline", in: farClone)
        #expect(log.out.split(separator: "\n").count > 10, "every share made a commit: \(log.out)")
    }
}
