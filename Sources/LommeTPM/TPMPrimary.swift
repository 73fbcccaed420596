import CTSS2
import LommeCore

extension TPMConnection {
    /// Creates the storage primary key (TPMTemplates.storagePrimary) in the owner hierarchy,
    /// transient (flushed on close), and returns its handle and Name.
    func storagePrimary() throws(LommeError) -> (handle: ESYS_TR, name: [UInt8]) {
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = TPMTemplates.storagePrimary
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var handle: ESYS_TR = ESYS_TR_NONE
        try check(Esys_CreatePrimary(context, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                                     &sensitive, &template, &outsideInfo, &creationPCR, &handle, nil, nil, nil, nil),
                  "create its storage key (is the owner hierarchy protected by a password?)")
        _ = track(handle)
        var name: UnsafeMutablePointer<TPM2B_NAME>?
        try check(Esys_TR_GetName(context, handle, &name), "name its storage key")
        defer { Esys_Free(name) }
        guard let name else { throw TPMErrors.other(0, "name its storage key") }
        return (handle, TPMBuffers.bytes(of: name.pointee.name, size: name.pointee.size))
    }
}
