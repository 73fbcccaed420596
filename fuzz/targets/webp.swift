// libFuzzer target: the webp image loader. Any input must give a picture or a LommeError
// (exit 2), never a crash, an overflow or an allocation past ImageLimits.
import FuzzChecks
@testable import LommeImages

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    checkImageLoader(bytes, size: { try WebPCodec.size($0, name: "fuzz.webp") }, decode: { try WebPCodec.decode($0, name: "fuzz.webp") })
    return 0
}
