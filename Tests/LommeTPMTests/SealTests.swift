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
        #expect(try device.unseal(sealed, auth: nil, pcrs: []).isEqual(to: secret))
    }

    @Test func aSecretComesBackOnlyWithItsAuth() throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let sealed = try device.seal(Secrets.secret, auth: Secrets.auth, pcrs: [])
        #expect(try device.unseal(sealed, auth: Secrets.auth, pcrs: []).isEqual(to: Secrets.secret))
        #expect(failure { () throws(LommeError) in try device.unseal(sealed, auth: nil, pcrs: []) }?.code == .wrongPassphrase)
    }

    /// The TPM drops an auth value's trailing zero bytes; a KDF output ends in one 1 time in 256.
    @Test func anAuthValueEndingInZerosWorks() throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let auth = SecureBytes(copying: Sodium.randomBytes(30) + [0, 0])
        let sealed = try device.seal(Secrets.secret, auth: auth, pcrs: [])
        #expect(try device.unseal(sealed, auth: auth, pcrs: []).isEqual(to: Secrets.secret))
    }

    /// The same TPM after a reboot (its state copied: same seeds) opens it; a fresh swtpm,
    /// another machine, refuses without touching the object.
    @Test func onlyTheSameTPMOpensIt() throws {
        let tpm = try SoftwareTPM()
        let sealed = try TPMDevice(tcti: tpm.tcti).seal(Secrets.secret, auth: Secrets.auth, pcrs: [])
        let rebooted = try tpm.copy()
        #expect(try TPMDevice(tcti: rebooted.tcti).unseal(sealed, auth: Secrets.auth, pcrs: []).isEqual(to: Secrets.secret))

        let other = try SoftwareTPM()
        let error = failure { () throws(LommeError) in try TPMDevice(tcti: other.tcti).unseal(sealed, auth: Secrets.auth, pcrs: []) }
        #expect(error?.code == .failure && error?.message.contains("made by another TPM") == true, "\(String(describing: error))")
    }

    @Test(arguments: ["flip", "truncate", "empty"])
    func aDamagedObjectIsExitFive(_ damage: String) throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        var sealed = try device.seal(Secrets.secret, auth: nil, pcrs: [])
        switch damage {
        case "flip": sealed.privateArea[sealed.privateArea.count / 2] ^= 0x01
        case "truncate": sealed.privateArea.removeLast()
        default: sealed.publicArea = []
        }
        let error = failure { () throws(LommeError) in try device.unseal(sealed, auth: nil, pcrs: []) }
        #expect(error?.code == .damaged && error?.message.contains("the TPM slot is damaged") == true, "\(String(describing: error))")
    }

    @Test func inputsOutsideTheLimitsAreRefusedBeforeTheTPM() {
        let device = TPMDevice(tcti: "swtpm:host=127.0.0.1,port=1")
        #expect(failure { () throws(LommeError) in try device.seal(SecureBytes(count: 65), auth: nil, pcrs: []) }?.code == .failure)
        #expect(failure { () throws(LommeError) in try device.seal(Secrets.secret, auth: SecureBytes(count: 33), pcrs: []) }?.code == .failure)
        #expect(failure { () throws(LommeError) in try device.seal(Secrets.secret, auth: nil, pcrs: [24]) }?.code == .usage)
        #expect(TPMDevice(tcti: nil).tcti == "device:/dev/tpmrm0" && TPMDevice(tcti: "").tcti == "device:/dev/tpmrm0")
    }
}
