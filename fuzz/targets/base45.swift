// libFuzzer target: Base45 text (RFC 9285), the body of every sealed code. Any input must
// decode or give nil, and whatever decodes must encode back to the same text.
@testable import LommeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let decoded = Base45.decode(text) {
        precondition(Base45.encode(decoded) == text, "Base45 decode and encode disagree")
    }
    precondition(Base45.decode(Base45.encode(bytes)) == bytes, "bytes do not survive Base45")
    return 0
}
