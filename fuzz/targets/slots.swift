// libFuzzer target: the version 2 header and its key slots (docs/FORMAT.md) — the parser,
// each kind's parameters, unwrapping under a fixed key, and rewriting the slot table
// (what enroll, unenroll and "last used" do), which must give back what was parsed.
@testable import LommeCore

let kek = SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    // Most inputs are made version 2 so the fuzzer spends its time past the version byte.
    if bytes.count > 8 && bytes[8] != 1 { bytes[8] = 2 }
    guard let sealed = try? VaultFormat.parse(bytes), sealed.version == 2 else { return 0 }
    precondition((1...VaultFormat.maximumSlots).contains(sealed.slots.count))
    for slot in sealed.slots {
        if let parameters = PassphraseSlot(parameters: slot.parameters) {
            precondition(PassphraseSlot(parameters: parameters.parameters) == parameters)
        }
        if let parameters = TPM2Slot(parameters: slot.parameters) {
            precondition(TPM2Slot(parameters: parameters.parameters) == parameters)
        }
        _ = slot.unwrap(kek: kek, vaultSalt: sealed.salt)
    }
    if let keys = sealed.publicKeys { precondition(VaultPublicKeys(bytes: keys.bytes) == keys) }
    let rewritten = VaultFormat.replacingSlots(sealed, with: sealed.slots)
    precondition(rewritten == bytes, "rewriting the same slots changed the file")
    _ = try? VaultFormat.open(sealed, master: kek)
    return 0
}
