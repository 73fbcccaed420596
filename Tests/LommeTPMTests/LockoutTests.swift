import LommeCore
import LommeTPM
import LommeTestSupport
import Testing

@Suite("TPM dictionary-attack lockout")
struct LockoutTests {
    @Test func wrongPINsCountDownToLockoutWhichRefusesEvenTheRightOne() throws {
        let tpm = try SoftwareTPM()
        try tpm.setLockout(maxTries: 3, recovery: 120)
        let device = TPMDevice(tcti: tpm.tcti)
        #expect(device.lockoutState() == TPMLockoutState(failedTries: 0, maxTries: 3, recoverySeconds: 120))
        let sealed = try device.seal(Secrets.secret, auth: Secrets.auth, pcrs: [])

        var messages: [String] = []
        for _ in 0..<3 {
            let error = failure { () throws(LommeError) in try device.unseal(sealed, auth: Secrets.wrongAuth, pcrs: []) }
            #expect(error?.code == .wrongPassphrase)
            messages.append(error?.message ?? "")
        }
        #expect(messages[0] == "wrong PIN; 2 tries left before the TPM locks out", "\(messages)")
        #expect(messages[1] == "wrong PIN; 1 try left before the TPM locks out", "\(messages)")
        #expect(messages[2].hasPrefix("wrong PIN; no tries left: the TPM now locks out (it forgives one every 2m)"), "\(messages)")

        let locked = failure { () throws(LommeError) in try device.unseal(sealed, auth: Secrets.auth, pcrs: []) }
        #expect(locked?.code == .failure, "\(String(describing: locked))")
        #expect(locked?.message == "the TPM is locked out after too many wrong PINs (it forgives one every 2m); "
            + "unlock with the passphrase (`lomme-vault unlock`)", "\(String(describing: locked))")
        #expect(device.lockoutState()?.failedTries == 3)
    }

    /// A slot without PIN has nothing to guess: wrong PINs on another slot that lock the TPM
    /// out do not lock it too.
    @Test func aSlotWithoutPINOpensWhileTheTPMIsLockedOut() throws {
        let tpm = try SoftwareTPM()
        let device = TPMDevice(tcti: tpm.tcti)
        let withoutPIN = try device.seal(Secrets.secret, auth: nil, pcrs: [])
        let withPIN = try device.seal(Secrets.secret, auth: Secrets.auth, pcrs: [])
        for _ in 0..<3 { _ = failure { () throws(LommeError) in try device.unseal(withPIN, auth: Secrets.wrongAuth, pcrs: []) } }
        #expect(failure { () throws(LommeError) in try device.unseal(withPIN, auth: Secrets.auth, pcrs: []) }?.message.contains("locked out") == true)
        #expect(try device.unseal(withoutPIN, auth: nil, pcrs: []).isEqual(to: Secrets.secret))
    }

    /// swtpm's defaults, which a fresh test TPM starts with.
    @Test func aFreshSoftwareTPMAllowsThreeTriesAndForgivesOneEvery1000Seconds() throws {
        let tpm = try SoftwareTPM()
        #expect(TPMDevice(tcti: tpm.tcti).lockoutState() == TPMLockoutState(failedTries: 0, maxTries: 3, recoverySeconds: 1000))
    }
}

@Suite("TPM lockout authorization")
struct LockoutAuthorizationTests {
    /// swtpm starts with an empty lockout authorization: anyone may reset the counter.
    /// Once the owner sets one (`tpm2_changeauth -c lockout`), the TPM says so.
    @Test func aFreshTPMHasNoLockoutAuthorizationUntilTheOwnerSetsOne() throws {
        let tpm = try SoftwareTPM(lockoutAuthorization: nil)
        let device = TPMDevice(tcti: tpm.tcti)
        #expect(try device.lockoutAuthorization() == false)
        try tpm.tools(["tpm2_changeauth", "-c", "lockout", "lockout-secret-for-tests"])
        #expect(try device.lockoutAuthorization() == true)
    }

    /// No TPM is an error (the caller says so), never an answer either way.
    @Test func anUnreachableTPMIsAnError() {
        #expect(throws: LommeError.self) { try TPMDevice(tcti: "swtpm:host=127.0.0.1,port=1").lockoutAuthorization() }
    }
}
