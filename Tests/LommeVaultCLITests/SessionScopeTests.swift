import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// How far an unlocked session reaches: its deadline, the
/// name it is found by, and what `exec` hands to the command.
@Suite("Session scope")
struct SessionScopeTests {
    let phrase = "session passphrase 77"

    func made(_ box: CLI.Sandbox) -> (pw: String, v: [String]) { box.importedVault(phrase: phrase) }

    func session(_ box: CLI.Sandbox) throws -> (id: Keyring.KeyID, payload: Session.Payload) {
        let sealed = try VaultFormat.parse(readFile(box.vault))
        let id = try #require(try Keyring().find(Session.keyDescription(salt: sealed.salt)))
        return (id, try #require(Keyring.read(id).flatMap { Session.Payload($0) }))
    }

    @Test("unlock on a live session, without a passphrase, never moves its deadline")
    func deadlineIsNotPushedBack() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        defer { _ = CLI.run(["lock"] + v) }
        // The session as it is 11 h 30 min after the passphrase was typed (half an hour left:
        // time enough for what follows however loaded the machine).
        let sealed = try VaultFormat.parse(readFile(box.vault))
        var (_, payload) = try session(box)
        let near = UInt64(time(nil)) + 1800
        payload.deadline = near
        _ = try Keyring().add(Session.keyDescription(salt: sealed.salt), payload: payload.encoded(), timeout: 1800)

        let again = CLI.run(["unlock", "--no-prompt", "--timeout", "12h"] + v)
        #expect(again.status == 0, "\(again.stderr)")
        let (id, after) = try session(box)
        #expect(after.deadline == near, "the deadline moved by \(Int64(after.deadline) - Int64(near)) s")
        #expect(after.idle == 12 * 3600)
        let kernel = try #require(Keyring.timeoutText(id))
        #expect(kernel.hasSuffix("m") || kernel.hasSuffix("s"), "kernel timeout \(kernel)")
        let status = CLI.run(["status"] + v)
        #expect(status.out.contains("at the latest") && !status.out.contains("in 11h"), "\(status.out)")

        // A passphrase proven now starts a new 12 h (from the unlock, which came after `before`).
        let before = UInt64(time(nil))
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        #expect(try session(box).payload.deadline >= before + 12 * 3600)
    }

    @Test("exec never hands the passphrase's descriptor to the command")
    func execWithholdsThePassphraseDescriptor() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let command = #"printf '%s|' "$LOMME_CLIENT_ID"; cat /dev/fd/3; cat <&3; test -e /proc/$$/fd/3 && echo fd3-open"#
        let script = #""$LV" exec --vault "$1" --passphrase-fd 3 -- sh -c "$3" 3< "$2""#
        let locked = CLI.run([box.vault, pw, command], shell: script)
        #expect(locked.out.hasPrefix("client-A|"), "\(locked.out) \(locked.stderr)")
        #expect(!locked.out.contains(phrase), "the command read the passphrase while locked")
        #expect(!locked.out.contains("fd3-open"), "fd 3 is open in the command: \(locked.out)")

        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        defer { _ = CLI.run(["lock"] + v) }
        let unlocked = CLI.run([box.vault, pw, command], shell: script)
        #expect(unlocked.out.hasPrefix("client-A|"), "\(unlocked.out) \(unlocked.stderr)")
        #expect(!unlocked.out.contains(phrase) && !unlocked.out.contains("fd3-open"), "the command read the unread passphrase")
        // Standard input as the passphrase's descriptor: the command gets /dev/null there.
        let stdin = CLI.run(["exec", "--passphrase-fd", "0"] + v + ["--", "cat"], stdin: phrase + "\n")
        #expect(stdin.status == 0 && stdin.out.isEmpty, "\(stdin.out)")
    }
}

/// `lock` finds a moved vault's session, and `lock --all` forgets everything of the user.
/// These run as a user of their own (uid 64999, through setpriv), whose user keyring
/// nothing else touches: `lock --all` must not end the sessions of tests running meanwhile.
/// Other test runs on the machine (another worktree's) use that user too: they take turns
/// (`exclusively`), so one's `lock --all` never meets another's sessions.
@Suite("Lock by the vault's id", .serialized)
struct LockScopeTests {
    static let uid = "64999"
    static let keyring = "uid-64999-keyring"

    /// The built binary as the other user.
    func asUser(_ arguments: [String], stdin: String? = nil) -> CLI.Result {
        CLI.run(["--reuid", Self.uid, "--regid", Self.uid, "--clear-groups", CLI.binary] + arguments, stdin: stdin,
                executable: "/usr/bin/setpriv")
    }

    /// A shell command as the other user ("$1"… are `arguments`).
    @discardableResult
    func shellAsUser(_ script: String, _ arguments: [String] = []) -> CLI.Result {
        let r = CLI.run(["--reuid", Self.uid, "--regid", Self.uid, "--clear-groups", "/bin/sh", "-c", script, "sh"] + arguments,
                        executable: "/usr/bin/setpriv")
        #expect(r.status == 0, "\(script): \(r.stderr)")
        return r
    }

    func userKeys() -> String { shellAsUser("keyctl show @u").out }

    func sandbox() -> CLI.Sandbox {
        let box = CLI.Sandbox()
        #expect(chown(box.path, 64999, 64999) == 0)
        return box
    }

    /// A vault of the other user's at `vault`, unlocked; returns its --vault option.
    func unlocked(_ box: CLI.Sandbox, _ vault: String) -> [String] {
        let pw = box.write("pw", "another user's passphrase\n")
        #expect(chown(pw, 64999, 64999) == 0)
        let v = ["--vault", vault]
        var r = asUser(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA)
        #expect(r.status == 0, "\(r.stderr)")
        r = asUser(["unlock", "--passphrase-file", pw] + v)
        #expect(r.status == 0, "\(r.stderr)")
        return v
    }

    @Test("a vault moved after unlock is locked by lock")
    func movedVault() throws {
        try exclusively(LockScopeTests.keyring) { () throws in
            _ = asUser(["lock", "--all"])
            let box = sandbox()
            _ = unlocked(box, box.vault)
            #expect(userKeys().contains("lomme-vault:"))
            let moved = box.path + "/moved"
            shellAsUser(#"mkdir -m 700 "$1" && mv "$2" "$1/renamed""#, [moved, box.vault])
            let r = asUser(["lock", "--vault", moved + "/renamed"])
            #expect(r.status == 0 && r.stderr.hasPrefix("Locked"), "\(r.stderr)")
            #expect(!userKeys().contains("lomme-vault:"), "\(userKeys())")
        }
    }

    @Test("lock --all forgets every session and token of the user, even of a deleted vault")
    func lockAll() throws {
        try exclusively(LockScopeTests.keyring) { () throws in
            let box = sandbox()
            _ = unlocked(box, box.vault)
            let second = unlocked(box, box.path + "/two/vault")
            shellAsUser("printf t | keyctl padd user lomme-vault-token:0a:0b @u && printf k | keyctl padd user not-ours @u")
            #expect(unlink(box.path + "/two/vault") == 0)
            let gone = asUser(["lock"] + second)
            #expect(gone.status == 6 && gone.stderr.contains("lock --all"), "\(gone.stderr)")

            let r = asUser(["lock", "--all"])
            #expect(r.status == 0 && r.stderr.contains("Forgot 2 unlocked sessions") && r.stderr.contains("Forgot 1 cached access token"), "\(r.stderr)")
            let keys = userKeys()
            #expect(!keys.contains("lomme-vault"), "\(keys)")
            #expect(keys.contains("not-ours"), "\(keys)")
            shellAsUser("keyctl clear @u")
        }
    }
}
