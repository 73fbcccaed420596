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
        #expect(payload.count == 46)  // format 2: key, deadline, idle, the kind of slot that opened it
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

    /// Seconds left on a key as /proc/keys shows it (reading it does not use the key).
    func secondsLeft(_ id: Keyring.KeyID) -> Int? {
        guard let text = Keyring.timeoutText(id) else { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()) else { return nil }
        return count * unit
    }

    /// Idle expiry: each use restarts the timeout; without use the key goes. No idle time is
    /// waited out and then checked (a loaded machine could take the seconds a test counts on):
    /// the key's kernel timeout is cut to 100 s, as if the session had been idle all but that,
    /// and a use puts it back to the idle time (1 h), twice; cut to a second and waited past,
    /// the key is gone and the vault locked.
    @Test func timeoutIsRefreshedByUseAndExpires() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        defer { _ = CLI.run(["lock"] + v) }
        #expect(CLI.run(["unlock", "--timeout", "1h", "--passphrase-file", pw] + v).status == 0)
        let id = try #require(try Keyring().find(description(box)))
        for use in 1...2 {
            Keyring.setTimeout(id, 100)
            #expect(try #require(secondsLeft(id)) <= 100)
            #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).out == "client-A", "use \(use)")
            let left = try #require(secondsLeft(id))
            #expect(left > 100 && left <= 3600, "use \(use): \(left) s left")
        }
        Keyring.setTimeout(id, 1)
        let idle = CLI.run([box.vault], shell: #"sleep 2; "$LV" get clientId --no-prompt --vault "$1" >/dev/null 2>&1; echo "idle past its timeout: $?""#)
        #expect(idle.out == "idle past its timeout: 3\n", "\(idle.out)\(idle.stderr)")
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
        #expect(r.status == 1 && r.reason == .keyringUnavailable && r.stderr.contains("keyring turned off (LOMME_VAULT_KEYRING=off)"))
        r = CLI.run(["get", "clientId", "--passphrase-file", pw] + v, environment: off)
        #expect(r.status == 0 && r.out == "client-A")
        #expect(r.stderr.components(separatedBy: "keyring turned off").count == 2, "said exactly once: \(r.stderr)")
        r = CLI.run(["get", "clientId", "--no-prompt"] + v, environment: off)
        #expect(r.status == 3)
    }
}
