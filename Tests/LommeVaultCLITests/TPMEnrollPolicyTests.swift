import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `enroll tpm2 --pin` on a TPM whose lockout authorization is empty (anyone may reset its
/// count of wrong PINs) is refused unless --force, saying what it means and how the owner
/// sets one; a PIN shorter than 6 characters is refused. Through the binary, against swtpm.
@Suite("TPM enroll policy")
struct TPMEnrollPolicyTests {
    @Test func anEmptyLockoutAuthorizationIsRefusedUnlessForced() throws {
        let m = try TPMSlotTests.Machine(tpm: try SoftwareTPM(lockoutAuthorization: nil))
        let before = readFile(m.box.vault)
        let refused = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw])
        expectRefusal(refused, 1, "lockout authorization is empty")
        #expect(refused.stderr.contains("tpm2_changeauth -c lockout") && refused.stderr.contains("--force"), "\(refused.stderr)")
        let unchanged = readFile(m.box.vault) == before
        #expect(unchanged, "a refused enroll wrote the vault")
        // Without a PIN there is nothing to guess: no lockout authorization needed.
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        // --force enrolls, and says what it costs.
        let forced = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--force", "--passphrase-file", m.pw])
        #expect(forced.status == 0 && forced.stderr.contains("lockout authorization is empty (--force)"), "\(forced.stderr)")
        m.unlocksWithTheTPM(["--pin-file", m.pin])
        // Once the owner sets one, no --force is needed.
        try m.tpm.tools(["tpm2_changeauth", "-c", "lockout", "owner-secret"])
        let third = m.box.write("pin3", "654321\n")
        #expect(m.run(["enroll", "tpm2", "--pin-file", third, "--passphrase-file", m.pw]).status == 0)
    }

    @Test func aPINShorterThanSixIsRefused() throws {
        let m = try TPMSlotTests.Machine()
        let short = m.box.write("short", "12345\n")
        expectRefusal(m.run(["enroll", "tpm2", "--pin-file", short, "--passphrase-file", m.pw]), 1, "at least 6 characters")
        #expect(!m.run(["slots"]).out.contains("tpm2"))
    }
}
