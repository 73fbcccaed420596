import CJPEGGlue
import LommeCore

/// JPEG through libjpeg(-turbo), by way of the setjmp glue in CJPEGGlue.
package enum JPEGCodec {
    /// Encodes `image` as a baseline greyscale JPEG; `quality` is clamped to 1...100.
    package static func encode(_ image: GrayImage, quality: Int) throws(LommeError) -> [UInt8] {
        guard image.width > 0, image.height > 0, image.width <= 65_500, image.height <= 65_500 else {
            throw .failure(.imageNotEncoded, "cannot write a \(image.width)×\(image.height) JPEG: each side must be 1 to 65500 pixels")
        }
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            lv_jpeg_encode_gray(pixels.baseAddress, Int32(image.width), Int32(image.height),
                                Int32(min(100, max(1, quality))), &output, &length, &message, 256)
        }
        defer { lv_free(output) }
        guard status == 0, let output else {
            throw .failure(.imageNotEncoded, "cannot write JPEG (libjpeg: \(text(message)))")
        }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// The size the JPEG header declares (as stored, before EXIF orientation); checks the limits.
    static func storedSize(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        var message = [CChar](repeating: 0, count: 256)
        var width: Int32 = 0, height: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { data in
            lv_jpeg_header(data.baseAddress, data.count, &width, &height, &message, 256)
        }
        guard status == 0 else {
            throw ImageLimits.damaged(name: name, library: "libjpeg", detail: text(message))
        }
        try ImageLimits.check(width: Int(width), height: Int(height), name: name)
        return (Int(width), Int(height))
    }

    /// Decodes to grey at 1/`reduce` size (1, 2, 4 or 8; libjpeg scales in the DCT, which
    /// is nearly free), then turns it upright by the EXIF orientation.
    package static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage {
        _ = try storedSize(bytes, name: name)
        var message = [CChar](repeating: 0, count: 256)
        var pixels: UnsafeMutablePointer<UInt8>? = nil
        var width: Int32 = 0, height: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { data in
            lv_jpeg_decode_gray(data.baseAddress, data.count, Int32(reduce), ImageLimits.maxPixels,
                                &pixels, &width, &height, &message, 256)
        }
        defer { lv_free(pixels) }
        guard status == 0, let pixels, width > 0, height > 0 else {
            throw ImageLimits.damaged(name: name, library: "libjpeg", detail: text(message))
        }
        let image = GrayImage(width: Int(width), height: Int(height),
                              pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height))))
        return image.applyingEXIFOrientation(EXIF.orientation(ofJPEG: bytes))
    }

    private static func text(_ message: [CChar]) -> String {
        let bytes = message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension JPEGCodec: ImageCodec {
    package static let formatName = "JPEG"
    package static let scalesWhileDecoding = true
    package static func sniff(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0xFF, 0xD8, 0xFF]) }

    /// The upright size: a photo turned sideways by its EXIF orientation reports it so.
    package static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        let stored = try storedSize(bytes, name: name)
        return (5...8).contains(EXIF.orientation(ofJPEG: bytes)) ? (stored.height, stored.width) : stored
    }
}

extension ImageLoader.Format {
    package static let jpeg = ImageLoader.Format(JPEGCodec.self)
}
