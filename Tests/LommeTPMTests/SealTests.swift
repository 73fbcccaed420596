import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

@Suite("TPM seal and unseal")
struct SealTests {
    @Test func aSecretComesBackWithoutAuth() throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let secret = SecureBytes.random(count: 32)
        let sealed = try device.seal(secret, auth: nil, pcrs: [])
        let back = try device.unseal(sealed, auth: nil, pcrs: [])
        #expect(back.isEqual(to: secret))
    }
}
