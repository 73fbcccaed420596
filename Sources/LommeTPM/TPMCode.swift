import CTSS2

/// The response codes this layer tells apart (TPM 2.0 Part 2, 6.6), as TPM-layer values
/// with the handle/session/parameter number removed (`TPMCode.base`).
enum TPMCode {
    static let success: TSS2_RC = 0
    static let authFail: TSS2_RC = 0x08E    // TPM_RC_AUTH_FAIL: HMAC check failed (DA-protected)
    static let badAuth: TSS2_RC = 0x0A2     // TPM_RC_BAD_AUTH: authorization failure (no DA)
    static let policyFail: TSS2_RC = 0x09D  // TPM_RC_POLICY_FAIL: the policy digest differs
    static let pcrChanged: TSS2_RC = 0x128  // TPM_RC_PCR_CHANGED: PCRs moved during the policy session
    static let lockout: TSS2_RC = 0x921     // TPM_RC_LOCKOUT: dictionary-attack lockout
    static let warning: TSS2_RC = 0x900     // TPM_RC_WARN: format-zero warnings (retry, memory, …)

    /// The error without its layer's number for TPM responses, nil for errors of the TSS
    /// itself (ESYS, TCTI, MU layers) or of the kernel's resource manager.
    static func base(_ rc: TSS2_RC) -> TSS2_RC? {
        guard rc >> 16 == 0 else { return nil }
        if rc & 0x080 != 0 { return 0x080 | (rc & 0x03F) }  // format one: drop N (bits 8-11) and P (bit 6)
        return rc & 0xFFF
    }
}
