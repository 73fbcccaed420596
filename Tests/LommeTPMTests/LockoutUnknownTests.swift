import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

/// Whether the lockout authorization is set is known only from the TPM's own answer to
/// that question: a TPM that answers it with an error, or answers without the property
/// (TPMA_PERMANENT) it was asked for, has said nothing (nil), never "set". Against swtpm
/// through a relay (`TPMCommandFilter`) that answers that one question itself.
@Suite("TPM lockout authorization not known")
struct LockoutUnknownTests {
    /// The control: asked directly, the test TPM (its owner set one) says it is set.
    @Test func theTestTPMSaysItsLockoutAuthorizationIsSet() throws {
        let tpm = try SoftwareTPM()
        #expect(try TPMDevice(tcti: tpm.tcti).lockoutAuthorization() == true)
    }

    @Test func anErrorForAnswerIsNotKnown() throws {
        let tpm = try SoftwareTPM()
        let filter = try TPMCommandFilter(forwardingTo: tpm.port, refuse: TPMCommandFilter.permanentProperties)
        #expect(try TPMDevice(tcti: filter.tcti).lockoutAuthorization() == nil)
        #expect(filter.refused > 0, "the relay never saw the question")
    }

    @Test func anAnswerWithoutThePropertyIsNotKnown() throws {
        let tpm = try SoftwareTPM()
        let filter = try TPMCommandFilter(forwardingTo: tpm.port, answer: TPMCommandFilter.permanentPropertiesSkipped)
        #expect(try TPMDevice(tcti: filter.tcti).lockoutAuthorization() == nil)
        #expect(filter.refused > 0, "the relay never saw the question")
    }
}
