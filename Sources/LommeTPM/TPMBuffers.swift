import CTSS2
import Glibc
import LommeCore

/// The TPM2B types' fixed C arrays come to Swift as tuples: these copy bytes in and out.
enum TPMBuffers {
    /// Copies `source` into the tuple `buffer` (which must be large enough) and returns the size.
    static func fill<Tuple>(_ buffer: inout Tuple, from source: UnsafeRawBufferPointer) -> UInt16 {
        withUnsafeMutableBytes(of: &buffer) { target in
            precondition(source.count <= target.count, "\(source.count) bytes do not fit a TPM2B of \(target.count)")
            if let base = source.baseAddress, source.count > 0 { target.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        return UInt16(source.count)
    }

    /// The first `size` bytes of the tuple `buffer`.
    static func bytes<Tuple>(of buffer: Tuple, size: UInt16) -> [UInt8] {
        withUnsafeBytes(of: buffer) { Array($0.prefix(Int(size))) }
    }

    /// Overwrites a value holding a secret (explicit_bzero: not optimised away).
    static func wipe<Value>(_ value: inout Value) {
        withUnsafeMutableBytes(of: &value) { explicit_bzero($0.baseAddress!, $0.count) }
    }

    /// Overwrites the value at `pointer`, as `wipe`, where it lies (memory ESYS allocated).
    static func wipe<Value>(pointer: UnsafeMutablePointer<Value>) {
        explicit_bzero(pointer, MemoryLayout<Value>.size)
    }

    /// Puts `auth`'s bytes into `target` in place (left empty when nil); the caller wipes it.
    static func setAuth(_ target: inout TPM2B_AUTH, _ auth: SecureBytes?) {
        guard let auth else { return }
        target.size = auth.withUnsafeBytes { fill(&target.buffer, from: $0) }
    }

    /// The SHA-256 bank's `pcrs` (0…23); count 0 when empty.
    static func selection(_ pcrs: [Int]) -> TPML_PCR_SELECTION {
        var selection = TPML_PCR_SELECTION()
        guard !pcrs.isEmpty else { return selection }
        selection.count = 1
        selection.pcrSelections.0.hash = TPMAlgorithm.sha256
        selection.pcrSelections.0.sizeofSelect = 3
        withUnsafeMutableBytes(of: &selection.pcrSelections.0.pcrSelect) { bits in
            for pcr in pcrs { bits[pcr / 8] |= UInt8(1) << (pcr % 8) }
        }
        return selection
    }
}

/// The algorithm identifiers used here (TPM 2.0 Part 2, 6.3).
enum TPMAlgorithm {
    static let sha256: TPM2_ALG_ID = 0x000B
    static let aes: TPM2_ALG_ID = 0x0006
    static let cfb: TPM2_ALG_ID = 0x0043
    static let ecc: TPM2_ALG_ID = 0x0023
    static let keyedHash: TPM2_ALG_ID = 0x0008
    static let null: TPM2_ALG_ID = 0x0010
    static let nistP256: TPM2_ECC_CURVE = 0x0003
}
