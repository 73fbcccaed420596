import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// The vault at rest: what `passwd` leaves in the folder, and
/// folders and lock files that another user could write or hold.
@Suite("At rest")
struct AtRestTests {
    let oldPhrase = "old passphrase 1234"

    /// Two imports, so the .bak holds something.
    func made(_ box: CLI.Sandbox) -> (pw: String, v: [String]) {
        box.importedVault(phrase: oldPhrase, configs: [Sample.configA, Sample.configB])
    }

    /// One line on stderr, and it says `words`.
    func refused(_ r: CLI.Result, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(words), "\(r.stderr)", sourceLocation: sourceLocation)
    }

    @Test("after passwd, neither the old passphrase nor the old unlocked key opens any file in the folder")
    func passwdLeavesNothingOldBehind() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let pw2 = box.write("pw2", "new passphrase 5678\n")
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        let oldSalt = try VaultFormat.parse(readFile(box.vault)).salt
        // The attacker's copy of the unlocked key, taken with keyctl before passwd.
        let saved = box.path + "/old-key"
        let taken = CLI.run([Session.keyDescription(salt: oldSalt), saved], shell: #"keyctl pipe "$(keyctl search @u user "$1")" > "$2""#)
        #expect(taken.status == 0 && readFile(saved).count == 46, "\(taken.stderr)")
        let oldMaster = SecureBytes(copying: Array(readFile(saved)[1..<33]))

        let r = CLI.run(["passwd", "--passphrase-file", pw, "--new-passphrase-file", pw2] + v)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Keyring().find(Session.keyDescription(salt: oldSalt)) == nil, "the session was revoked")

        let folder = box.path + "/data"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.contains("vault") && files.contains("vault.bak"), "\(files)")
        for name in files {
            let file = folder + "/" + name
            let withPhrase = CLI.run(["get", "clientId", "--vault", file, "--passphrase-file", pw])
            #expect(withPhrase.status != 0 && withPhrase.out.isEmpty, "\(name) opens with the old passphrase")
            // The old key put back into the keyring under the name this file's session would have.
            guard let sealed = try? VaultFormat.parse(readFile(file)) else { continue }
            #expect(throws: LommeError.self, "\(name) opens with the old key") { try VaultFormat.open(sealed, master: oldMaster) }
            let description = Session.keyDescription(salt: sealed.salt)
            let put = CLI.run([description, saved], shell: #"keyctl padd user "$1" @u < "$2" > /dev/null"#)
            #expect(put.status == 0, "\(put.stderr)")
            let withKey = CLI.run(["get", "clientId", "--no-prompt", "--vault", file])
            #expect(withKey.status == 3 && withKey.out.isEmpty, "\(name) opens with the old key: \(withKey.stderr)")
            if let id = try Keyring().find(description) { Keyring.remove(id) }
        }
        // The new passphrase opens both the vault and its .bak.
        for file in [box.vault, box.vault + ".bak"] {
            #expect(CLI.run(["get", "clientId", "--vault", file, "--passphrase-file", pw2]).out == "client-B")
        }
    }

    @Test("a folder another user owns, or others can write, is refused with the fix")
    func folderOwnerAndMode() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let folder = box.path + "/data"
        let get = ["get", "clientId", "--passphrase-file", pw] + v

        #expect(chown(folder, 65534, 65534) == 0)
        refused(CLI.run(get), "the folder \(folder) belongs to another user (uid 65534)")
        refused(CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA),
                "belongs to another user")
        #expect(chown(folder, getuid(), getgid()) == 0)

        for mode in [0o770, 0o707, 0o1777] {
            #expect(chmod(folder, mode_t(mode)) == 0)
            refused(CLI.run(get), "run `chmod go-w \(folder)`")
        }
        #expect(CLI.run([folder], shell: #"chmod go-w "$1""#).status == 0)  // what the message says
        #expect(CLI.run(get).out == "client-B")

        // A folder above may be writable by others only with the sticky bit (as /tmp).
        #expect(chmod(box.path, 0o777) == 0)
        refused(CLI.run(get), "the folder \(box.path) has mode 777")
        #expect(chmod(box.path, 0o1777) == 0)
        #expect(CLI.run(get).out == "client-B")
        #expect(chmod(box.path, 0o700) == 0)
    }

    @Test("a lock file of another user, or a link, is refused and the vault is left as it was")
    func lockFile() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let lock = box.vault + ".lock"
        let before = readFile(box.vault)
        let pw2 = box.write("pw2", "new passphrase 5678\n")
        let write = ["passwd", "--passphrase-file", pw, "--new-passphrase-file", pw2] + v

        #expect(chown(lock, 65534, 65534) == 0)
        refused(CLI.run(write), "the lock file \(lock) belongs to another user (uid 65534)")
        #expect(readFile(box.vault) == before)

        #expect(unlink(lock) == 0 && symlink(box.path + "/elsewhere", lock) == 0)
        refused(CLI.run(write), "the lock file \(lock) is a symbolic link")
        #expect(readFile(box.vault) == before)
        #expect(!FileManager.default.fileExists(atPath: box.path + "/elsewhere"))

        #expect(unlink(lock) == 0)
        #expect(CLI.run(write).status == 0)
    }
}

extension CLI.Sandbox {
    /// The sandbox's vault, made by importing `configs` one after the other under
    /// `phrase` (kept in the file `pw`); returns that file and the --vault option.
    func importedVault(phrase: String, configs: [String] = [Sample.configA]) -> (pw: String, v: [String]) {
        let pw = write("pw", phrase + "\n")
        let v = ["--vault", vault]
        for config in configs {
            let r = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: config)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return (pw, v)
    }
}
