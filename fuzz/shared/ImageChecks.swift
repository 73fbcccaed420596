// Linked into every image fuzz target (fuzz/Package.swift): the promises each image loader keeps.
@testable import LommeImages

/// Any input gives a picture or a LommeError (exit 2), never a crash, an overflow or an
/// allocation past ImageLimits; a picture has the size `size` declared for it.
public func checkImageLoader(_ bytes: [UInt8], size: ([UInt8]) throws -> (width: Int, height: Int), decode: ([UInt8]) throws -> GrayImage) {
    let declared = try? size(bytes)
    if let image = try? decode(bytes) {
        precondition(image.width > 0 && image.height > 0 && image.pixels.count == image.width * image.height)
        precondition(image.width * image.height <= ImageLimits.maxPixels)
        if let declared { precondition(declared.width == image.width && declared.height == image.height, "size() and decode() disagree") }
    }
}
