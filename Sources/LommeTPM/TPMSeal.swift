import CTSS2
import LommeCore

/// TPM2_Create of a sealed data object under the storage primary key, through a salted
/// session that encrypts the command's first parameter (the secret and the auth value).
struct TPMSeal {
    let connection: TPMConnection

    func seal(_ secret: SecureBytes, auth: SecureBytes?, pcrs: [Int]) throws(LommeError) -> TPMSealedObject {
        let primary = try connection.storagePrimary()
        let policy = pcrs.isEmpty ? [] : try connection.policyDigest(pcrs: pcrs, withAuth: auth != nil)
        var template = TPMTemplates.sealedObject(policy: policy, withAuth: auth != nil)
        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { TPMBuffers.wipe(&sensitive) }
        TPMBuffers.setAuth(&sensitive.sensitive.userAuth, auth)
        sensitive.sensitive.data.size = secret.withUnsafeBytes { TPMBuffers.fill(&sensitive.sensitive.data.buffer, from: $0) }
        let session = try connection.saltedSession(TPM2_SE_HMAC, primary: primary.handle,
                                                   attributes: TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT)
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var privateArea: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var publicArea: UnsafeMutablePointer<TPM2B_PUBLIC>?
        defer {
            Esys_Free(privateArea)
            Esys_Free(publicArea)
        }
        try connection.check(Esys_Create(connection.context, primary.handle, session, ESYS_TR_NONE, ESYS_TR_NONE,
                                         &sensitive, &template, &outsideInfo, &creationPCR,
                                         &privateArea, &publicArea, nil, nil, nil), "seal the key")
        guard let privateArea, let publicArea else { throw TPMErrors.other(0, "seal the key") }
        return TPMSealedObject(publicArea: try TPMMarshal.bytes(publicArea.pointee),
                               privateArea: try TPMMarshal.bytes(privateArea.pointee), primaryName: primary.name)
    }
}
