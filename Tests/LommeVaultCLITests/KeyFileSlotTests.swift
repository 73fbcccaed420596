import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// Key-file slots through the built binary: `enroll keyfile PATH` makes a 32-byte file,
/// mode 0400, never over an existing one; `unlock --with keyfile PATH` opens the vault with
/// it; a wrong file is exit 4; a file others may read, or that cannot be read, is refused
/// with what to do; `unenroll keyfile`; `passwd` keeps the file key for it and `passwd
/// --rotate` removes it.
@Suite("Key-file slots")
struct KeyFileSlotTests {
    struct Vault {
        let box = CLI.Sandbox()
        let pw: String
        var v: [String] { ["--vault", box.vault] }

        init() {
            pw = box.write("pw", "key file test passphrase\n")
            let imported = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA)
            #expect(imported.status == 0, "\(imported.stderr)")
        }

        func run(_ arguments: [String]) -> CLI.Result { CLI.run(arguments + v) }

        /// Unlocks with the key file, checks that `get` then needs nothing, and locks again.
        func unlocks(with key: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let unlocked = run(["unlock", "--with", "keyfile", key, "--no-prompt"])
            #expect(unlocked.status == 0, "\(unlocked.stderr)", sourceLocation: sourceLocation)
            #expect(run(["get", "clientId", "--no-prompt"]).out == "client-A", sourceLocation: sourceLocation)
            _ = run(["lock"])
        }
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func enrollMakesAPrivateFileAndItUnlocks() throws {
        let m = Vault()
        let key = m.box.path + "/stick/vault.key"
        try FileManager.default.createDirectory(atPath: m.box.path + "/stick", withIntermediateDirectories: true)
        let enrolled = m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw])
        #expect(enrolled.status == 0 && enrolled.stderr.contains("Enrolled slot 1 (keyfile "), "\(enrolled.stderr)")
        #expect(enrolled.stderr.contains("unlock --with keyfile PATH") && enrolled.stderr.contains("passwd --rotate"), "\(enrolled.stderr)")
        #expect(readFile(key).count == 32 && Self.mode(key) == 0o400)
        m.unlocks(with: key)
        let slots = m.run(["slots"])
        #expect(slots.out.contains("1     keyfile") && slots.out.contains("key file"), "\(slots.out)")
        // Never over an existing file (the key file itself, or anything else).
        let before = readFile(key)
        expectRefusal(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]), 1, "never overwrites")
        #expect(readFile(key) == before)
        let other = m.box.write("notes.txt", "keep me\n")
        expectRefusal(m.run(["enroll", "keyfile", other, "--passphrase-file", m.pw]), 1, "never overwrites")
        #expect(String(decoding: readFile(other), as: UTF8.self) == "keep me\n")
        #expect(!m.run(["slots"]).out.contains("2     keyfile"))
        // No path: a usage error naming what is missing.
        expectRefusal(m.run(["enroll", "keyfile", "--passphrase-file", m.pw]), 64, "key file's path")
        expectRefusal(m.run(["unlock", "--with", "keyfile", "--no-prompt"]), 64, "key file's path")
    }

    @Test func aWrongFileIsExitFourAndLeavesNoSession() throws {
        let m = Vault()
        let key = m.box.path + "/vault.key"
        #expect(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]).status == 0)
        // Another vault's key file: 32 bytes, mode 0400, but not this slot's.
        let other = Vault()
        let otherKey = other.box.path + "/other.key"
        #expect(other.run(["enroll", "keyfile", otherKey, "--passphrase-file", other.pw]).status == 0)
        expectRefusal(m.run(["unlock", "--with", "keyfile", otherKey, "--no-prompt"]), 4, "opens no key-file slot")
        // A file of other bytes: not a key file.
        let random = m.box.path + "/random.bin"
        #expect(FileManager.default.createFile(atPath: random, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o400]))
        expectRefusal(m.run(["unlock", "--with", "keyfile", random, "--no-prompt"]), 4, "opens no key-file slot")
        let short = m.box.path + "/short.bin"
        #expect(FileManager.default.createFile(atPath: short, contents: Data(repeating: 7, count: 31), attributes: [.posixPermissions: 0o400]))
        expectRefusal(m.run(["unlock", "--with", "keyfile", short, "--no-prompt"]), 4, "not a lomme-vault key file")
        #expect(m.run(["get", "clientId", "--no-prompt"]).status == 3, "a wrong key file left a session")
        // The right one still opens.
        m.unlocks(with: key)
    }

    @Test func aKeyFileOthersCanReadOrNobodyCanIsRefusedWithWhatToDo() throws {
        let m = Vault()
        let key = m.box.path + "/vault.key"
        #expect(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]).status == 0)
        for mode in [0o444, 0o440, 0o404, 0o600 | 0o004] as [mode_t] {
            chmod(key, mode)
            let refused = m.run(["unlock", "--with", "keyfile", key, "--no-prompt"])
            expectRefusal(refused, 1, "chmod 400")
            #expect(refused.reason == .keyFileReadableByOthers && refused.stderr.contains("passwd --rotate"), "\(refused.stderr)")
        }
        chmod(key, 0o400)
        m.unlocks(with: key)
        // Unreadable (run as root, mode 000 still reads: a missing file stands in).
        expectRefusal(m.run(["unlock", "--with", "keyfile", m.box.path + "/missing.key", "--no-prompt"]), 1, "cannot read the key file")
        // A directory is not a key file.
        expectRefusal(m.run(["unlock", "--with", "keyfile", m.box.path, "--no-prompt"]), 1, "not a regular file")
    }

    @Test func unenrollAndPasswd() throws {
        let m = Vault()
        let key = m.box.path + "/vault.key"
        #expect(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]).status == 0)
        // passwd cannot re-wrap a key-file slot without its file: it keeps the file key and says so.
        let pw2 = m.box.write("pw2", "second key file passphrase\n")
        let kept = m.run(["passwd", "--passphrase-file", m.pw, "--new-passphrase-file", pw2])
        #expect(kept.status == 0 && kept.stderr.contains("The file key stays") && kept.stderr.contains("1 (keyfile)"), "\(kept.stderr)")
        m.unlocks(with: key)
        // --rotate makes a new one, removes the slot and names what to run; the old file opens nothing.
        let rotated = m.run(["passwd", "--rotate", "--passphrase-file", pw2, "--new-passphrase-file", m.pw])
        #expect(rotated.status == 0 && rotated.stderr.contains("Removed slot 1 (keyfile, key file)") && rotated.stderr.contains("enroll keyfile"), "\(rotated.stderr)")
        expectRefusal(m.run(["unlock", "--with", "keyfile", key, "--no-prompt"]), 1, "no key-file slot")
        // Enroll again, then unenroll by kind: gone from the vault and its .bak.
        let key2 = m.box.path + "/vault2.key"
        #expect(m.run(["enroll", "keyfile", key2, "--passphrase-file", m.pw]).status == 0)
        m.unlocks(with: key2)
        let removed = m.run(["unenroll", "keyfile", "--passphrase-file", m.pw])
        #expect(removed.status == 0 && removed.stderr.contains("Removed slot 1 (keyfile, key file)"), "\(removed.stderr)")
        for file in [m.box.vault, m.box.vault + ".bak"] {
            let tried = CLI.run(["unlock", "--with", "keyfile", key2, "--no-prompt", "--vault", file])
            #expect(tried.status != 0, "\(file) still opens with the removed key file")
        }
        #expect(CLI.run(["get", "clientId", "--vault", m.box.vault + ".bak", "--passphrase-file", m.pw]).out == "client-A")
    }

    @Test func forceAndPINGoWithTPM2Only() throws {
        let box = CLI.Sandbox()
        expectRefusal(CLI.run(["enroll", "keyfile", box.path + "/k", "--force", "--vault", box.vault]), 64, "--force: only with tpm2, not keyfile")
        expectRefusal(CLI.run(["unlock", "--with", "keyfile", box.path + "/k", "--pin-file", box.path + "/p", "--vault", box.vault]), 64, "only with tpm2, not keyfile")
    }
}
