import CTSS2
import LommeCore

/// TPM2B_PUBLIC and TPM2B_PRIVATE to and from their TPM wire form (tpm2-tss MU), which is
/// what a slot stores.
enum TPMMarshal {
    static func bytes(_ value: TPM2B_PUBLIC) throws(LommeError) -> [UInt8] {
        var value = value
        return try marshal { Tss2_MU_TPM2B_PUBLIC_Marshal(&value, $0, $1, $2) }
    }

    static func bytes(_ value: TPM2B_PRIVATE) throws(LommeError) -> [UInt8] {
        var value = value
        return try marshal { Tss2_MU_TPM2B_PRIVATE_Marshal(&value, $0, $1, $2) }
    }

    /// nil unless `bytes` is exactly one well-formed TPM2B_PUBLIC.
    static func publicArea(_ bytes: [UInt8]) -> TPM2B_PUBLIC? {
        var value = TPM2B_PUBLIC()
        return unmarshal(bytes) { Tss2_MU_TPM2B_PUBLIC_Unmarshal($0, $1, $2, &value) } ? value : nil
    }

    /// nil unless `bytes` is exactly one well-formed TPM2B_PRIVATE.
    static func privateArea(_ bytes: [UInt8]) -> TPM2B_PRIVATE? {
        var value = TPM2B_PRIVATE()
        return unmarshal(bytes) { Tss2_MU_TPM2B_PRIVATE_Unmarshal($0, $1, $2, &value) } ? value : nil
    }

    private static func marshal(
        _ body: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> TSS2_RC
    ) throws(LommeError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset = 0
        let rc = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count, &offset) }
        if rc != TPMCode.success { throw TPMErrors.other(rc, "marshal the sealed object") }
        return Array(buffer.prefix(offset))
    }

    private static func unmarshal(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> TSS2_RC) -> Bool {
        guard !bytes.isEmpty else { return false }
        var offset = 0
        let rc = bytes.withUnsafeBufferPointer { body($0.baseAddress!, $0.count, &offset) }
        return rc == TPMCode.success && offset == bytes.count
    }
}
