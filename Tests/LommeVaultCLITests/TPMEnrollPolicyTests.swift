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
        #expect(refused.reason == .tpmLockoutAuthUnset && refused.stderr.contains("tpm2_changeauth -c lockout") && refused.reason == .tpmLockoutAuthUnset && refused.stderr.contains("--force"), "\(refused.stderr)")
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

    /// Fails closed: a TPM that answers everything but the question whether its lockout
    /// authorization is set (a relay answers that one with TPM_RC_FAILURE) is refused as one
    /// without, unless --force, which says what it may cost. Directly, the same TPM says it
    /// is set, and enrolls without --force (the control).
    @Test func aLockoutAuthorizationThatCannotBeReadIsRefusedUnlessForced() throws {
        let m = try TPMSlotTests.Machine()
        let filter = try TPMCommandFilter(forwardingTo: m.tpm.port, refuse: TPMCommandFilter.permanentProperties)
        let before = readFile(m.box.vault)
        let refused = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw], tcti: filter.tcti)
        expectRefusal(refused, 1, "did not say whether its lockout authorization is set")
        #expect(refused.reason == .tpmLockoutAuthUnknown && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(filter.refused > 0, "the relay never saw the question")
        let unchanged = readFile(m.box.vault) == before
        #expect(unchanged, "a refused enroll wrote the vault")
        let forced = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--force", "--passphrase-file", m.pw], tcti: filter.tcti)
        #expect(forced.status == 0 && forced.stderr.contains("lomme-vault: warning: this TPM's lockout authorization may be empty"), "\(forced.stderr)")
        m.unlocksWithTheTPM(["--pin-file", m.pin])
        let direct = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw])
        #expect(direct.status == 0 && !direct.stderr.contains("warning"), "\(direct.stderr)")
    }

    /// No TPM is said before anything is asked: not "the vault is locked" (exit 3, the
    /// passphrase it would have asked for first), and the vault is not touched.
    @Test func noTPMIsSaidBeforeThePassphraseIsAsked() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "no tpm passphrase 2026\n")
        #expect(CLI.run(["init", "--vault", box.vault, "--passphrase-file", pw]).status == 0)
        let before = readFile(box.vault)
        let none = ["LOMME_VAULT_TPM": "swtpm:host=127.0.0.1,port=1"]
        for extra in [["--pin"], ["--pin-file", pw], []] {
            let result = CLI.run(["enroll", "tpm2", "--vault", box.vault] + extra, environment: none)
            expectRefusal(result, 1, "no TPM 2.0 reachable")
        }
        #expect(readFile(box.vault) == before)
        // A key file that exists is said first too.
        expectRefusal(CLI.run(["enroll", "keyfile", pw, "--vault", box.vault]), 1, "never overwrites a key file")
    }

    @Test func aPINShorterThanSixIsRefused() throws {
        let m = try TPMSlotTests.Machine()
        let short = m.box.write("short", "12345\n")
        expectRefusal(m.run(["enroll", "tpm2", "--pin-file", short, "--passphrase-file", m.pw]), 1, "at least 6 characters")
        #expect(!m.run(["slots"]).out.contains("tpm2"))
    }
}
