import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// The unlock session in the kernel keyring, seen from other processes.
@Suite("Keyring sessions")
struct KeyringTests {
    func made(_ box: CLI.Sandbox) -> (pw: String, v: [String]) {
        let pw = box.write("pw", "keyring passphrase 42\n")
        let v = ["--vault", box.vault]
        let r = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA)
        #expect(r.status == 0, "\(r.stderr)")
        return (pw, v)
    }

    func description(_ box: CLI.Sandbox) throws -> String {
        let sealed = try VaultFormat.parse(readFile(box.vault))
        return Session.keyDescription(salt: sealed.salt)
    }

    @Test func unlockedKeyIsVisibleToOtherProcessesAndGoneAfterLock() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        // This test process is a different process from the one that unlocked.
        let id = try #require(try Keyring().find(description(box)))
        let payload = try #require(Keyring.read(id))
        #expect(payload.count == 45)
        // keyctl(1), yet another process, sees it in the user keyring, readable by the user.
        var listed = CLI.run([], shell: "keyctl describe \(id)")
        listed.stdout = Array(listed.stdout.drop(while: { $0 == UInt8(ascii: " ") }))  // the serial is "%9d"
        // The whole line: possessor and user all, group and other nothing.
        let owner = String(format: "%5d %5d", getuid(), getgid())
        let expected = "\(id): alswrvalswrv------------ \(owner) user: \(try description(box))\n"
        #expect(listed.out == expected, "keyctl describe printed \(listed.out.debugDescription) (exit \(listed.status), \(listed.stderr)), expected \(expected.debugDescription)")
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).out == "client-A")
        #expect(CLI.run(["lock"] + v).status == 0)
        #expect(try Keyring().find(description(box)) == nil)
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).status == 3)
    }

    @Test func theKeyringHoldsTheDerivedKeyNeverThePassphrase() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        defer { _ = CLI.run(["lock"] + v) }
        let id = try #require(try Keyring().find(description(box)))
        let payload = try #require(Keyring.read(id)).bytes
        #expect(!payload.contains(Array("keyring passphrase".utf8)))
        let sealed = try VaultFormat.parse(readFile(box.vault))
        let master = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array("keyring passphrase 42".utf8))).master
        #expect(Array(payload[1..<33]) == master.bytes)
    }

    /// Idle expiry: each use restarts the timeout; without use the key goes. The waiting is
    /// done by `sh` in one process, not by this test's task: the test runner's threads are
    /// shared by every suite, and a sleeping task may wake up late on a busy machine.
    @Test func timeoutIsRefreshedByUseAndExpires() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        defer { _ = CLI.run(["lock"] + v) }
        let script = """
            vault="$1"; pw="$2"
            "$LV" unlock --timeout 6s --passphrase-file "$pw" --vault "$vault" || exit 10
            sleep 3; "$LV" get clientId --no-prompt --vault "$vault" >/dev/null; echo "after 3 s: $?"
            sleep 4; "$LV" get clientId --no-prompt --vault "$vault" >/dev/null; echo "after 7 s, used 4 s ago: $?"
            sleep 8; "$LV" get clientId --no-prompt --vault "$vault" >/dev/null 2>&1; echo "idle 8 s: $?"
            """
        let result = CLI.run([box.vault, pw], shell: script)
        #expect(result.out == "after 3 s: 0\nafter 7 s, used 4 s ago: 0\nidle 8 s: 3\n", "\(result.out)\(result.stderr)")
        #expect(try Keyring().find(description(box)) == nil)
    }

    @Test func passwdEndsTheSession() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let pw2 = box.write("pw2", "another keyring passphrase\n")
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        let old = try description(box)
        let r = CLI.run(["passwd", "--passphrase-file", pw, "--new-passphrase-file", pw2] + v)
        #expect(r.status == 0 && r.stderr.contains("locked now"), "\(r.stderr)")
        #expect(try Keyring().find(old) == nil)
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).status == 3)
    }

    @Test func twoVaultsNeverShareAKey() throws {
        let one = CLI.Sandbox(), two = CLI.Sandbox()
        let (pw1, v1) = made(one)
        _ = made(two)
        #expect(try description(one) != description(two))
        #expect(CLI.run(["unlock", "--passphrase-file", pw1] + v1).status == 0)
        defer { _ = CLI.run(["lock"] + v1) }
        #expect(CLI.run(["get", "clientId", "--no-prompt", "--vault", two.vault]).status == 3)
    }

    /// Where the keyring is refused, it says so once and falls back to the passphrase.
    @Test func withoutAKeyringItFallsBackToPrompting() {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let off = ["LOMME_VAULT_KEYRING": "off"]
        var r = CLI.run(["unlock", "--passphrase-file", pw] + v, environment: off)
        #expect(r.status == 1 && r.stderr.contains("keyring turned off (LOMME_VAULT_KEYRING=off)"))
        r = CLI.run(["get", "clientId", "--passphrase-file", pw] + v, environment: off)
        #expect(r.status == 0 && r.out == "client-A")
        #expect(r.stderr.components(separatedBy: "keyring turned off").count == 2, "said exactly once: \(r.stderr)")
        r = CLI.run(["get", "clientId", "--no-prompt"] + v, environment: off)
        #expect(r.status == 3)
    }
}
