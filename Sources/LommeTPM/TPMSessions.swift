import CTSS2
import LommeCore

/// The sessions this layer starts: salted and parameter-encrypting for what carries secrets,
/// and trial policy sessions for computing a policy digest.
extension TPMConnection {
    /// A session salted with `primary` (the salt travels encrypted to that key, so only that
    /// TPM knows the session key) with AES-128-CFB parameter encryption: `attributes` picks
    /// the directions (DECRYPT: the command's first parameter, ENCRYPT: the response's).
    func saltedSession(_ type: TPM2_SE, primary: ESYS_TR, attributes: TPMA_SESSION) throws(LommeError) -> ESYS_TR {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMAlgorithm.aes
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPMAlgorithm.cfb
        var session: ESYS_TR = ESYS_TR_NONE
        try check(Esys_StartAuthSession(context, primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                        nil, type, &symmetric, TPMAlgorithm.sha256, &session), "start a salted session")
        _ = track(session)
        try check(Esys_TRSess_SetAttributes(context, session, attributes | TPMA_SESSION_CONTINUESESSION, 0xFF),
                  "set the session's attributes")
        return session
    }

    /// Runs PolicyPCR (current values of `pcrs`, when any) and PolicyAuthValue (when
    /// `withAuth`) in `session`; a trial session then yields the digest to seal under.
    func applyPolicy(_ session: ESYS_TR, pcrs: [Int], withAuth: Bool) throws(LommeError) {
        if !pcrs.isEmpty {
            var empty = TPM2B_DIGEST()
            var selection = TPMBuffers.selection(pcrs)
            try check(Esys_PolicyPCR(context, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &empty, &selection),
                      "bind to the PCRs")
        }
        if withAuth {
            try check(Esys_PolicyAuthValue(context, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE), "add the PIN to the policy")
        }
    }

    /// The policy digest of PolicyPCR(current `pcrs`) [+ PolicyAuthValue], from a trial session.
    func policyDigest(pcrs: [Int], withAuth: Bool) throws(LommeError) -> [UInt8] {
        var none = TPMT_SYM_DEF()
        none.algorithm = TPMAlgorithm.null
        var session: ESYS_TR = ESYS_TR_NONE
        try check(Esys_StartAuthSession(context, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                        nil, TPM2_SE_TRIAL, &none, TPMAlgorithm.sha256, &session), "start a trial session")
        _ = track(session)
        try applyPolicy(session, pcrs: pcrs, withAuth: withAuth)
        var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
        try check(Esys_PolicyGetDigest(context, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &digest), "compute the policy")
        defer { Esys_Free(digest) }
        guard let digest else { throw TPMErrors.other(0, "compute the policy") }
        return TPMBuffers.bytes(of: digest.pointee.buffer, size: digest.pointee.size)
    }
}
