import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `passwd --rotate` (a new file key after a suspected leak) leaves no file in the vault's
/// folder that the old passphrase opens: the `.bak` is the new vault too. Through the binary.
@Suite("passwd --rotate and the backup")
struct RotateBackupTests {
    @Test func afterRotateTheOldPassphraseOpensNoFileInTheFolder() throws {
        let box = CLI.Sandbox()
        let (pw, v) = box.importedVault(phrase: "old passphrase 1234", configs: [Sample.configA, Sample.configB])
        let pw2 = box.write("pw2", "new passphrase 5678\n")
        let before = try VaultFormat.parse(readFile(box.vault + ".bak"))
        let r = CLI.run(["passwd", "--rotate", "--passphrase-file", pw, "--new-passphrase-file", pw2] + v)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("passphrase and the file key"), "\(r.stderr)")

        let folder = box.path + "/data"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.contains("vault") && files.contains("vault.bak"), "\(files)")
        for name in files {
            let old = CLI.run(["get", "clientId", "--no-prompt", "--vault", folder + "/" + name, "--passphrase-file", pw])
            #expect(old.status != 0 && old.out.isEmpty, "\(name) opens with the old passphrase")
        }
        // The .bak was replaced (a new salt), and the new passphrase opens it.
        #expect(try VaultFormat.parse(readFile(box.vault + ".bak")).salt != before.salt)
        #expect(CLI.run(["get", "clientId", "--vault", box.vault + ".bak", "--passphrase-file", pw2]).out == "client-B")
    }
}
