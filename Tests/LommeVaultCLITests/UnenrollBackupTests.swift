import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// After `unenroll`, no file in the vault's folder opens with the removed slot: the `.bak`
/// is replaced by the new vault too. Through the built binary, against swtpm.
@Suite("unenroll and the backup")
struct UnenrollBackupTests {
    @Test func theRemovedTPMSlotOpensNoFileInTheFolder() throws {
        let m = try TPMSlotTests.Machine()
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        // A change after enrolling, so the .bak too holds the TPM slot.
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", m.pw] + m.v, stdin: Sample.configB).status == 0)
        let bak = m.box.vault + ".bak"
        #expect(CLI.run(["unlock", "--with", "tpm2", "--no-prompt", "--vault", bak], environment: ["LOMME_VAULT_TPM": m.tpm.tcti]).status == 0,
                "the .bak holds the TPM slot before unenroll")
        _ = CLI.run(["lock", "--vault", bak])

        let removed = m.run(["unenroll", "tpm2", "--passphrase-file", m.pw])
        #expect(removed.status == 0, "\(removed.stderr)")
        let folder = m.box.path + "/data"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("vault") && !name.hasSuffix(".lock") {
            let file = folder + "/" + name
            let unlocked = CLI.run(["unlock", "--with", "tpm2", "--no-prompt", "--vault", file], environment: ["LOMME_VAULT_TPM": m.tpm.tcti])
            #expect(unlocked.status != 0, "\(name) still opens with the removed TPM slot")
            _ = CLI.run(["lock", "--vault", file])
        }
        // The passphrase opens both, with the config as it was.
        for file in [m.box.vault, bak] {
            #expect(CLI.run(["get", "clientId", "--vault", file, "--passphrase-file", m.pw]).out == "client-B")
        }
    }
}
