import CTSS2
import Glibc
import LommeCore

/// The one-line errors of the TPM layer (docs/tpm.md, "Errors"). None holds auth or secret
/// bytes: only TCTI strings, response codes, PCR numbers and counters.
enum TPMErrors {
    static func unreachable(_ tcti: String, reason: String) -> LommeError {
        .failure(.tpmUnreachable, "no TPM 2.0 reachable (\(reason); TCTI \(tcti)); unlock with the passphrase, or set LOMME_VAULT_TPM")
    }

    /// For a `device:` TCTI whose file is missing or closed to this user, what is wrong.
    static func deviceProblem(_ tcti: String) -> String? {
        guard tcti.hasPrefix("device:") else { return nil }
        let path = String(tcti.dropFirst("device:".count))
        if access(path, F_OK) != 0 { return "\(path) does not exist: this machine has no TPM 2.0 or its driver is not loaded" }
        if access(path, R_OK | W_OK) != 0 && errno == EACCES {
            return "permission denied on \(path): add the user to the group tss (sudo usermod -aG tss $USER) and log in again"
        }
        return nil
    }

    static let anotherTPM = LommeError.failure(
        .tpmSlotOfAnotherTPM, "this TPM slot was made by another TPM (another machine, or this TPM was cleared); unlock with the passphrase and enroll again")

    static func damaged(_ detail: String) -> LommeError {
        LommeError(.damaged, .tpmSlotDamaged, "the TPM slot is damaged (\(detail)); unlock with the passphrase and enroll again")
    }

    static func wrongAuth(_ state: TPMLockoutState?) -> LommeError {
        guard let state else { return LommeError(.wrongPassphrase, .pinWrong, "wrong PIN") }
        if state.triesLeft == 0 {
            return LommeError(.wrongPassphrase, .pinWrong,
                "wrong PIN; no tries left: the TPM now locks out (it forgives one every \(DurationText.format(UInt64(state.recoverySeconds)))); unlock with the passphrase (`lomme-vault unlock`)")
        }
        let tries = state.triesLeft == 1 ? "1 try" : "\(state.triesLeft) tries"
        return LommeError(.wrongPassphrase, .pinWrong, "wrong PIN; \(tries) left before the TPM locks out")
    }

    static func lockedOut(_ state: TPMLockoutState?) -> LommeError {
        let forgives = state.map { " (it forgives one every \(DurationText.format(UInt64($0.recoverySeconds))))" } ?? ""
        return .failure(.tpmLockedOut, "the TPM is locked out after too many wrong PINs\(forgives); unlock with the passphrase (`lomme-vault unlock`)")
    }

    static func pcrChanged(_ pcrs: [Int]) -> LommeError {
        let list = pcrs.sorted().map(String.init).joined(separator: ", ")
        let which = pcrs.count == 1 ? "PCR \(list)" : "one of PCRs \(list)"
        return .failure(.tpmPCRChanged, "the TPM refuses: \(which) changed since enrollment (a firmware, boot-loader or Secure Boot change); "
            + "unlock with the passphrase and enroll again")
    }

    static func other(_ rc: TSS2_RC, _ what: String) -> LommeError {
        .failure(.tpmFailed, "the TPM could not \(what): \(decode(rc))")
    }

    /// tpm2-tss's own text for a response code, with the code.
    static func decode(_ rc: TSS2_RC) -> String {
        let text = Tss2_RC_Decode(rc).map { String(cString: $0) } ?? "unknown error"
        let hex = String(rc, radix: 16)
        return "\(text) (0x\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex))"
    }
}
