// libFuzzer target: the png image loader. Any input must give a picture or a LommeError
// (exit 2), never a crash, an overflow or an allocation past ImageLimits.
@testable import LommeVault

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let declared = try? PNGCodec.size(bytes, name: "fuzz.png")
    if let image = try? PNGCodec.decode(bytes, name: "fuzz.png") {
        precondition(image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height)
        precondition(image.width * image.height <= ImageLimits.maxPixels)
        if let declared { precondition(declared.width == image.width && declared.height == image.height, "size() and decode() disagree") }
    }
    return 0
}
