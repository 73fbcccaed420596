// libFuzzer target: Bech32 device keys (`lvk1…`), typed by a person or read from a photo.
// Any input must give a key, nil or a LommeError (exit 64), never a crash; whatever
// decodes must encode back to the same text, lower-cased.
@testable import LommeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Bech32.decode(text, prefix: ReceivingKey.textPrefix) {
        precondition(Bech32.encode(prefix: ReceivingKey.textPrefix, data: decoded) == text.lowercased(), "Bech32 decode and encode disagree")
    }
    if let key = try? ReceivingKey(text: text) {
        precondition(key.bytes.count == 32 && PublicKeyCrypto.isUsableBoxKey(key.bytes))
        precondition((try? ReceivingKey(text: key.text)) == key)
    }
    return 0
}
