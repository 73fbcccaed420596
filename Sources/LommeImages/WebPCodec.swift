import CWebP
import LommeCore

/// WebP (lossy, lossless, with or without alpha) through libwebp. Animated WebP is refused.
package enum WebPCodec {
    /// Encodes `image` as lossless WebP (libwebp has no grey input: the grey is sent as RGB);
    /// the tests make their WebP pictures with it.
    static func encodeLossless(_ image: GrayImage) throws(LommeError) -> [UInt8] {
        try encode(image) { rgb, width, height, stride, output in
            WebPEncodeLosslessRGB(rgb, width, height, stride, output)
        }
    }

    /// Encodes `image` as lossy WebP; `quality` is clamped to 0...100.
    package static func encode(_ image: GrayImage, quality: Int) throws(LommeError) -> [UInt8] {
        let factor = Float(min(100, max(0, quality)))
        return try encode(image) { rgb, width, height, stride, output in
            WebPEncodeRGB(rgb, width, height, stride, factor, output)
        }
    }

    private static func encode(
        _ image: GrayImage,
        _ encoder: (UnsafePointer<UInt8>?, Int32, Int32, Int32, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Int
    ) throws(LommeError) -> [UInt8] {
        guard image.width > 0, image.height > 0, image.width <= 16_383, image.height <= 16_383 else {
            throw .failure(.imageNotEncoded, "cannot write a \(image.width)×\(image.height) WebP: each side must be 1 to 16383 pixels")
        }
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for (i, value) in image.pixels.enumerated() {
            rgb[3 * i] = value
            rgb[3 * i + 1] = value
            rgb[3 * i + 2] = value
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        let size = rgb.withUnsafeBufferPointer { pixels in
            encoder(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width * 3), &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw .failure(.imageNotEncoded, "cannot write WebP: libwebp failed to encode the picture") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The size the WebP header declares; checks the limits.
    package static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        let features = try self.features(bytes, name: name)
        return (Int(features.width), Int(features.height))
    }

    private static func features(_ bytes: [UInt8], name: String) throws(LommeError) -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { data in
            WebPGetFeatures(data.baseAddress, data.count, &features)
        }
        guard status == VP8_STATUS_OK else {
            throw ImageLimits.damaged(name: name, library: "libwebp", detail: describe(status))
        }
        if features.has_animation != 0 {
            throw .image(.imageAnimated, "\(ImageLimits.display(name)) is an animated WebP, which lomme-vault cannot read; save one frame as PNG and try again")
        }
        try ImageLimits.check(width: Int(features.width), height: Int(features.height), name: name)
        return features
    }

    /// Decodes to grey, transparency over white.
    static func decode(_ bytes: [UInt8], name: String) throws(LommeError) -> GrayImage {
        let features = try self.features(bytes, name: name)
        let width = Int(features.width), height = Int(features.height)
        let channels = features.has_alpha != 0 ? 4 : 3
        let stride = width * channels
        var buffer = [UInt8](repeating: 0, count: stride * height)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .image(.imageLibraryUnusable, "cannot read \(ImageLimits.display(name)): this libwebp does not match the one lomme-vault was built with")
        }
        config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        let status = buffer.withUnsafeMutableBufferPointer { out in
            config.output.u.RGBA.rgba = out.baseAddress
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = out.count
            let status = bytes.withUnsafeBufferPointer { data in
                WebPDecode(data.baseAddress, data.count, &config)
            }
            WebPFreeDecBuffer(&config.output)  // external memory: frees nothing of ours
            return status
        }
        guard status == VP8_STATUS_OK else {
            throw ImageLimits.damaged(name: name, library: "libwebp", detail: describe(status))
        }
        return buffer.withUnsafeBufferPointer { source in
            Luma.gray(from: source, width: width, height: height, stride: stride, channels: channels)
        }
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: "the file ends too soon"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        default: "error \(status.rawValue)"
        }
    }
}

extension WebPCodec: ImageCodec {
    package static let formatName = "WebP"
    package static func sniff(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 12 && bytes.starts(with: "RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
    }
    package static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage {
        try decode(bytes, name: name)
    }
}

extension ImageLoader.Format {
    package static let webp = ImageLoader.Format(WebPCodec.self)
}
