// libFuzzer target: the jpeg image loader. Any input must give a picture or a LommeError
// (exit 2), never a crash, an overflow or an allocation past ImageLimits.
@testable import LommeImages

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let declared = try? ImageLoader.size(bytes: bytes, name: "fuzz.jpg")
    if let image = try? JPEGCodec.decode(bytes, reduce: [1, 2, 4, 8][Int(bytes.count % 4)], name: "fuzz.jpg") {
        precondition(image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height)
        precondition(image.width * image.height <= ImageLimits.maxPixels)
        if let declared, bytes.count % 4 == 0 { precondition(declared.width == image.width && declared.height == image.height, "size() and decode() disagree") }
    }
    _ = EXIF.orientation(ofJPEG: bytes)
    return 0
}
