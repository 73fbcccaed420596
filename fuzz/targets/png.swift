// libFuzzer target: the png image loader. Any input must give a picture or a LommeError
// (exit 2), never a crash, an overflow or an allocation past ImageLimits; and the direct
// path for the common PNG (PNGDirect) gives libpng's pixels wherever both read the input.
import FuzzChecks
@testable import LommeImages

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    checkImageLoader(bytes, size: { try PNGCodec.size($0, name: "fuzz.png") }, decode: { try PNGCodec.decode($0, name: "fuzz.png") })
    if let direct = PNGDirect.decode(bytes), let reference = try? PNGCodec.decodeWithLibpng(bytes, name: "fuzz.png") {
        precondition(direct == reference, "PNGDirect and libpng read the same PNG differently")
    }
    return 0
}
