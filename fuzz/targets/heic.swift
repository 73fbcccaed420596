// libFuzzer target: the HEIC/HEIF image loader (libheif), how an iPhone photo of a code or
// of a device key arrives. Any input must give a picture or a LommeError (exit 2), never
// a crash, an overflow or an allocation past ImageLimits.
@testable import LommeVault

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = HEIFCodec.matches(bytes)
    let declared = try? HEIFCodec.size(bytes, name: "fuzz.heic")
    if let image = try? HEIFCodec.decode(bytes, name: "fuzz.heic") {
        precondition(image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height)
        precondition(image.width * image.height <= ImageLimits.maxPixels)
        if let declared { precondition(declared.width == image.width && declared.height == image.height, "size() and decode() disagree") }
    }
    return 0
}
