import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// Key slots without a TPM: the v1 → v2 upgrade, passwd and the file key,
/// `slots`, `unenroll`, and the public keys a locked vault shows.
@Suite("Key slots")
struct SlotsTests {
    /// The version 1 vector (fixtures/vault-v1) in a sandbox, with its passphrase file.
    func versionOneVault(_ box: CLI.Sandbox) -> (pw: String, v: [String]) {
        mkdir(box.path + "/data", 0o700)
        _ = FileManager.default.createFile(atPath: box.vault, contents: Data(fixture("vault")), attributes: [.posixPermissions: 0o600])
        return (box.write("pw", "correct horse battery staple\n"), ["--vault", box.vault])
    }

    @Test func aVersionOneVaultOpensAndBecomesVersionTwoAtItsNextWrite() throws {
        // Every copy of the vector is one session in the keyring: taken in turn (`exclusively`).
        try exclusively(versionOneSession) { () throws in
            let box = CLI.Sandbox()
            let (pw, v) = versionOneVault(box)
            let listed = CLI.run(["slots"] + v)
            #expect(listed.status == 0 && listed.out.contains("format version 1"), "\(listed.out)")
            #expect(CLI.run(["get", "clientId", "--passphrase-file", pw] + v).out == "demo-client")
            #expect(readFile(box.vault) == fixture("vault"), "reading wrote")
            // An unlocked session from before the upgrade keeps working after it.
            #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
            defer { _ = CLI.run(["lock"] + v) }
            let imported = CLI.run(["import", "--stdin", "--yes", "--no-check", "--no-prompt"] + v, stdin: Sample.configB)
            #expect(imported.status == 0, "\(imported.stderr)")
            let bytes = readFile(box.vault)
            #expect(bytes[8] == 2)
            #expect(try VaultFormat.parse(bytes).salt == Array(0..<16), "the vault id changed in the upgrade")
            #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).out == "client-B", "the session was lost")
            _ = CLI.run(["lock"] + v)
            #expect(CLI.run(["get", "clientId", "--passphrase-file", pw] + v).out == "client-B")
            let opened = CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/vault-open.py' '\(box.vault)' '\(pw)'")
            #expect(opened.status == 0 && opened.out.contains("client-B"), "the independent reader: \(opened.stderr)")
            let slots = CLI.run(["slots", "--json"] + v)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(slots.stdout)) as? [[String: Any]])
            #expect(parsed.count == 1 && parsed[0]["kind"] as? String == "passphrase" && parsed[0]["id"] as? Int == 0)
        }
    }

    @Test func passwdMakesANewFileKeyWhenNoSlotIsLost() throws {
        let box = CLI.Sandbox()
        let (pw, v) = box.importedVault(phrase: "first passphrase 123")
        let before = try VaultFormat.parse(readFile(box.vault))
        let key = try VaultFormat.open(before, passphrase: SecureBytes(copying: Array("first passphrase 123".utf8))).master
        let pw2 = box.write("pw2", "second passphrase 456\n")
        let changed = CLI.run(["passwd", "--passphrase-file", pw, "--new-passphrase-file", pw2] + v)
        #expect(changed.status == 0 && changed.stderr.contains("and the file key"), "\(changed.stderr)")
        let after = try VaultFormat.parse(readFile(box.vault))
        #expect(after.salt != before.salt, "the vault id stayed")
        #expect(throws: LommeError.self) { try VaultFormat.open(after, master: key) }
        #expect(CLI.run(["get", "clientId", "--passphrase-file", pw2] + v).out == "client-A")
    }

    /// `unlock` notes the slot's last unlock in the file, but leaves the `.bak` (the version
    /// before the last import) as it was.
    @Test func unlockNotesTheLastUnlockAndKeepsTheBackup() throws {
        let box = CLI.Sandbox()
        let (pw, v) = box.importedVault(phrase: "backup passphrase 1", configs: [Sample.configA, Sample.configB])
        let backup = readFile(box.vault + ".bak")
        #expect(CLI.run(["unlock", "--passphrase-file", pw] + v).status == 0)
        defer { _ = CLI.run(["lock"] + v) }
        #expect(try VaultFormat.parse(readFile(box.vault)).slots[0].lastUsed > 0)
        let kept = readFile(box.vault + ".bak") == backup
        #expect(kept, "unlock replaced the .bak")
        #expect(CLI.run(["get", "clientId", "--vault", box.vault + ".bak", "--passphrase-file", pw]).out == "client-A")
    }

    @Test func theLastPassphraseSlotStaysAndUnknownSlotsAreSixAndListingNeedsNoPassphrase() {
        let box = CLI.Sandbox()
        let (pw, v) = box.importedVault(phrase: "only passphrase 123")
        let listed = CLI.run(["slots"] + v)
        #expect(listed.status == 0 && listed.out.contains("0     passphrase"), "\(listed.out)\(listed.stderr)")
        let before = readFile(box.vault)
        expectRefusal(CLI.run(["unenroll", "0", "--passphrase-file", pw] + v), 1, "only passphrase slot")
        expectRefusal(CLI.run(["unenroll", "passphrase", "--passphrase-file", pw] + v), 1, "only passphrase slot")
        expectRefusal(CLI.run(["unenroll", "7", "--passphrase-file", pw] + v), 6, "no slot 7")
        expectRefusal(CLI.run(["unenroll", "tpm2", "--passphrase-file", pw] + v), 6, "no tpm2 slot")
        #expect(readFile(box.vault) == before)
    }

    /// `key` and the fingerprints in `status` are public and read from the header, so a
    /// locked vault shows them; a key swapped in the file is caught at the next open.
    @Test func publicKeysShowOnALockedVaultAndASwapIsCaughtAtTheNextOpen() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "public keys passphrase\n")
        let v = ["--vault", box.vault]
        #expect(CLI.run(["init", "--passphrase-file", pw] + v).status == 0)
        let unlockedKey = CLI.run(["key", "--text", "--passphrase-file", pw] + v).out
        let lockedKey = CLI.run(["key", "--text", "--no-prompt"] + v)
        #expect(lockedKey.status == 0 && lockedKey.out == unlockedKey && lockedKey.out.hasPrefix("lvk1"), "\(lockedKey.stderr)")
        let status = CLI.run(["status"] + v)
        let receiving = try ReceivingKey(text: unlockedKey.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(status.out.contains(receiving.fingerprint), "\(status.out)")
        // Swap the header's receiving key: shown while locked, refused at the next open.
        var bytes = readFile(box.vault)
        bytes[53] ^= 0x01
        _ = FileManager.default.createFile(atPath: box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        #expect(CLI.run(["key", "--text", "--no-prompt"] + v).out != unlockedKey)
        expectRefusal(CLI.run(["get", "clientId", "--passphrase-file", pw] + v), 5, "header was changed")
        expectRefusal(CLI.run(["unlock", "--passphrase-file", pw] + v), 5, "header was changed")
    }
}
