// libFuzzer target: the HEIC/HEIF image loader (libheif), how an iPhone photo of a code or
// of a device key arrives. Any input must give a picture or a LommeError (exit 2), never
// a crash, an overflow or an allocation past ImageLimits.
import FuzzChecks
@testable import LommeImages

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = HEIFCodec.matches(bytes)
    checkImageLoader(bytes, size: { try HEIFCodec.size($0, name: "fuzz.heic") }, decode: { try HEIFCodec.decode($0, name: "fuzz.heic") })
    return 0
}
