// libFuzzer target: the vault file parser (steps 1–4 of docs/FORMAT.md), the key check
// and AEAD open under a fixed key, and the plaintext (contents) parser.
@testable import LommeCore

let master = SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let sealed = try? VaultFormat.parse(bytes) {
        precondition(sealed.v1Limits?.isWithinCaps ?? true)
        _ = try? VaultFormat.open(sealed, master: master)
    }
    // The same bytes as a decrypted body: what a vault sealed by a buggy or newer
    // writer could hold.
    if let contents = try? VaultContents(plaintext: SecureBytes(copying: bytes)) {
        _ = contents.plaintext()
    }
    return 0
}
