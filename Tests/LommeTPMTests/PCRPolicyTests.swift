import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

@Suite("TPM PCR policy")
struct PCRPolicyTests {
    @Test(arguments: [false, true])
    func aChangedPCRRefusesWithoutCountingAWrongPIN(withPIN: Bool) throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let auth = withPIN ? Secrets.auth : nil
        let sealed = try device.seal(Secrets.secret, auth: auth, pcrs: [7])
        #expect(try device.unseal(sealed, auth: auth, pcrs: [7]).isEqual(to: Secrets.secret))
        if withPIN {
            let wrong = failure { () throws(LommeError) in try device.unseal(sealed, auth: Secrets.wrongAuth, pcrs: [7]) }
            #expect(wrong?.code == .wrongPassphrase, "\(String(describing: wrong))")
        }
        let failedBefore = device.lockoutState()?.failedTries

        try tpm.extendPCR(7)
        let error = failure { () throws(LommeError) in try device.unseal(sealed, auth: auth, pcrs: [7]) }
        #expect(error?.code == .failure, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("the TPM refuses: PCR 7 changed since enrollment") == true, "\(String(describing: error))")
        #expect(device.lockoutState()?.failedTries == failedBefore)
    }

    /// Another PCR than the ones bound may change.
    @Test func anUnboundPCRMayChange() throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let sealed = try device.seal(Secrets.secret, auth: nil, pcrs: [7, 11])
        try tpm.extendPCR(8)
        #expect(try device.unseal(sealed, auth: nil, pcrs: [7, 11]).isEqual(to: Secrets.secret))
        try tpm.extendPCR(11)
        let error = failure { () throws(LommeError) in try device.unseal(sealed, auth: nil, pcrs: [7, 11]) }
        #expect(error?.message.hasPrefix("the TPM refuses: one of PCRs 7, 11 changed") == true, "\(String(describing: error))")
    }
}
