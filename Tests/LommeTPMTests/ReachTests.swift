import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

@Suite("Reaching a TPM")
struct ReachTests {
    /// A loopback port nothing listens on (swtpm started and stopped there).
    @Test func aClosedPortIsNoTPM() throws {
        let tpm = try SoftwareTPM()
        let tcti = tpm.tcti
        tpm.stop()
        let device = TPMDevice(tcti: tcti)
        let error = failure { () throws(LommeError) in try device.seal(Secrets.secret, auth: Secrets.auth, pcrs: []) }
        #expect(error?.code == .failure, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("no TPM 2.0 reachable (") == true && error?.message.contains(tcti) == true,
                "\(String(describing: error))")
        #expect(error?.message.hasSuffix("; unlock with the passphrase, or set LOMME_VAULT_TPM") == true)
        #expect(device.lockoutState() == nil)
    }

    @Test func aMissingDeviceSaysSo() {
        let device = TPMDevice(tcti: "device:/nonexistent/tpmrm9")
        let error = failure { () throws(LommeError) in try device.unseal(
            TPMSealedObject(publicArea: [0, 1], privateArea: [0, 1], primaryName: []), auth: nil, pcrs: []) }
        #expect(error?.message.contains("/nonexistent/tpmrm9 does not exist") == true, "\(String(describing: error))")
    }
}
