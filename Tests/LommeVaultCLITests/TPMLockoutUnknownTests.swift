import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `enroll tpm2 --pin` fails closed: a TPM that answers the question whether its lockout
/// authorization is set without the property asked for (as one that does not have it:
/// the next property, every bit set) has not said it is set, and is refused unless
/// --force, the vault unchanged. (An error for an answer:
/// `TPMEnrollPolicyTests.aLockoutAuthorizationThatCannotBeReadIsRefusedUnlessForced`.)
/// Through the binary, against swtpm behind a relay that answers that question itself.
@Suite("enroll tpm2 --pin when the lockout authorization is not known")
struct TPMLockoutUnknownTests {
    @Test func aTPMThatAnswersWithoutThePropertyIsRefusedAPIN() throws {
        let m = try TPMSlotTests.Machine()
        let filter = try TPMCommandFilter(forwardingTo: m.tpm.port, answer: TPMCommandFilter.permanentPropertiesSkipped)
        let before = readFile(m.box.vault)
        let refused = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw], tcti: filter.tcti)
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1, "\(refused.status): \(refused.stderr)")
        #expect(refused.reason == .tpmLockoutAuthUnknown && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(filter.refused > 0, "the relay never saw the question")
        let unchanged = readFile(m.box.vault) == before
        #expect(unchanged, "a refused enroll wrote the vault")
        #expect(!m.run(["slots", "--passphrase-file", m.pw]).out.contains("tpm2"))
        // --force enrolls, saying that the TPM did not say.
        let forced = m.run(["enroll", "tpm2", "--pin-file", m.pin, "--force", "--passphrase-file", m.pw], tcti: filter.tcti)
        #expect(forced.status == 0 && forced.stderr.contains("lomme-vault: warning:"), "\(forced.stderr)")
    }
}
