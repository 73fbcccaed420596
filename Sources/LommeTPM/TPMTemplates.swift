import CTSS2

/// The two object templates: the storage primary key and the sealed data object.
enum TPMTemplates {
    /// The owner hierarchy's storage primary key, as systemd-cryptenroll and
    /// `tpm2_createprimary -C o -G ecc` make it from the TCG SRK template (TCG TPM v2.0
    /// Provisioning Guidance, 7.5.1): ECC P-256, SHA-256, AES-128-CFB, restricted decryption
    /// key, fixed to this TPM, noDA (its auth value is empty), an empty unique field. The TPM
    /// derives it from its owner seed, so the same template gives the same key (and Name) on
    /// the same TPM until the owner hierarchy is cleared, and a different one on any other.
    static var storagePrimary: TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMAlgorithm.ecc
        template.publicArea.nameAlg = TPMAlgorithm.sha256
        template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
            | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA
            | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPMAlgorithm.aes
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPMAlgorithm.cfb
        template.publicArea.parameters.eccDetail.scheme.scheme = TPMAlgorithm.null
        template.publicArea.parameters.eccDetail.curveID = TPMAlgorithm.nistP256
        template.publicArea.parameters.eccDetail.kdf.scheme = TPMAlgorithm.null
        return template
    }

    /// A sealed data object (keyed hash, no scheme) under `policy`: fixed to this TPM and
    /// parent. With an auth value it is not noDA: wrong ones count towards lockout, and a
    /// locked-out TPM refuses it. Without one there is nothing to guess, and noDA keeps it
    /// opening while wrong PINs on another slot have locked the TPM out (a DA-protected
    /// object is refused in lockout even with an empty auth value). With no policy it opens
    /// with its auth value (userWithAuth); with one, only through the policy, so the auth
    /// value alone cannot get round the PCRs.
    static func sealedObject(policy: [UInt8], withAuth: Bool) -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMAlgorithm.keyedHash
        template.publicArea.nameAlg = TPMAlgorithm.sha256
        template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT
            | (policy.isEmpty ? TPMA_OBJECT_USERWITHAUTH : 0) | (withAuth ? 0 : TPMA_OBJECT_NODA)
        template.publicArea.authPolicy.size = policy.withUnsafeBytes {
            TPMBuffers.fill(&template.publicArea.authPolicy.buffer, from: $0)
        }
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMAlgorithm.null
        return template
    }
}
