import CTSS2
import LommeCore

/// TPM2_Load and TPM2_Unseal of a sealed object: the storage primary is made again and must
/// have the Name recorded at seal time (the same TPM, not cleared since); the salted session
/// then goes to that key, so only that TPM can know the session key, and the response (the
/// secret) is encrypted under it.
struct TPMUnseal {
    let connection: TPMConnection

    func unseal(_ object: TPMSealedObject, auth: SecureBytes?, pcrs: [Int]) throws(LommeError) -> SecureBytes {
        guard var publicArea = TPMMarshal.publicArea(object.publicArea),
              var privateArea = TPMMarshal.privateArea(object.privateArea) else {
            throw TPMErrors.damaged("its TPM blobs do not parse")
        }
        let primary = try connection.storagePrimary()
        guard primary.name == object.primaryName else { throw TPMErrors.anotherTPM }
        var loaded: ESYS_TR = ESYS_TR_NONE
        let rc = Esys_Load(connection.context, primary.handle, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                           &privateArea, &publicArea, &loaded)
        if rc != TPMCode.success {
            let transient = TPMCode.base(rc).map { $0 & TPMCode.warning == TPMCode.warning } ?? true
            throw transient ? TPMErrors.other(rc, "load the TPM slot") : TPMErrors.damaged("the TPM cannot load it: \(TPMErrors.decode(rc))")
        }
        _ = connection.track(loaded)

        var authValue = TPM2B_AUTH()
        defer { TPMBuffers.wipe(&authValue) }
        TPMBuffers.setAuth(&authValue, auth)
        try connection.check(Esys_TR_SetAuth(connection.context, loaded, &authValue), "take the PIN")
        let session = try session(primary: primary.handle, pcrs: pcrs, withAuth: auth != nil)

        var data: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        defer {
            if let data { TPMBuffers.wipe(pointer: data) }
            Esys_Free(data)
        }
        let unsealed = Esys_Unseal(connection.context, loaded, session, ESYS_TR_NONE, ESYS_TR_NONE, &data)
        if unsealed != TPMCode.success { throw refusal(unsealed, pcrs: pcrs) }
        guard let data else { throw TPMErrors.other(0, "unseal the TPM slot") }
        let secret = SecureBytes(count: Int(data.pointee.size))
        let start = UnsafeRawPointer(data) + MemoryLayout<TPM2B_SENSITIVE_DATA>.offset(of: \.buffer)!
        secret.withUnsafeMutableBytes { $0.baseAddress?.copyMemory(from: start, byteCount: $0.count) }
        return secret
    }

    /// Without PCRs, a salted HMAC session over the auth value; with them, a salted policy
    /// session that has run PolicyPCR [+ PolicyAuthValue]. Either encrypts the response only
    /// (TPM2_Unseal has no command parameter to encrypt).
    private func session(primary: ESYS_TR, pcrs: [Int], withAuth: Bool) throws(LommeError) -> ESYS_TR {
        if pcrs.isEmpty { return try connection.saltedSession(TPM2_SE_HMAC, primary: primary, attributes: TPMA_SESSION_ENCRYPT) }
        let session = try connection.saltedSession(TPM2_SE_POLICY, primary: primary, attributes: TPMA_SESSION_ENCRYPT)
        try connection.applyPolicy(session, pcrs: pcrs, withAuth: withAuth)
        return session
    }

    /// What a refused TPM2_Unseal means for the user.
    private func refusal(_ rc: TSS2_RC, pcrs: [Int]) -> LommeError {
        switch TPMCode.base(rc) {
        case TPMCode.authFail, TPMCode.badAuth: TPMErrors.wrongAuth(try? TPMLockoutState.read(connection))
        case TPMCode.lockout: TPMErrors.lockedOut(try? TPMLockoutState.read(connection))
        case TPMCode.policyFail, TPMCode.pcrChanged: TPMErrors.pcrChanged(pcrs)
        default: TPMErrors.other(rc, "unseal the TPM slot")
        }
    }
}
