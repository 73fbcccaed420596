import CPNG
import LommeCore

/// PNG through libpng's simplified `png_image_*` API, which reports errors in the
/// struct instead of longjmp-ing, so no C glue is needed; the common 8-bit PNG is read
/// faster, to the same pixels, by `PNGDirect` (libdeflate).
///
/// Every libpng pixel layout (1–16 bits, grey, grey+alpha, RGB, RGBA, palette, tRNS,
/// interlaced) is read as 8-bit sRGB; 16-bit files without gamma information are taken
/// as sRGB (what image editors write), not linear.
package enum PNGCodec {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes `image` as an 8-bit greyscale PNG.
    package static func encode(_ image: GrayImage) throws(LommeError) -> [UInt8] {
        guard image.width > 0, image.height > 0,
              image.width <= Int(Int32.max), image.height <= Int(Int32.max) else {
            throw .failure(.imageNotEncoded, "cannot write a \(image.width)×\(image.height) PNG: a picture needs at least one pixel")
        }
        var control = png_image()
        control.version = png_uint_32(PNG_IMAGE_VERSION)
        control.width = png_uint_32(image.width)
        control.height = png_uint_32(image.height)
        control.format = png_uint_32(PNG_FORMAT_GRAY)
        let stride = png_int_32(image.width)
        var result: [UInt8]? = nil
        var problem = ""
        image.pixels.withUnsafeBufferPointer { pixels in
            var size: png_alloc_size_t = 0
            // First pass: ask for the size; second pass: write.
            guard png_image_write_to_memory(&control, nil, &size, 0, pixels.baseAddress, stride, nil) != 0,
                  size > 0 else {
                problem = message(of: &control)
                png_image_free(&control)
                return
            }
            var out = [UInt8](repeating: 0, count: Int(size))
            let ok = out.withUnsafeMutableBytes { buffer in
                png_image_write_to_memory(&control, buffer.baseAddress, &size, 0, pixels.baseAddress, stride, nil)
            }
            if ok != 0 {
                out.removeSubrange(Int(size)...)
                result = out
            } else {
                problem = message(of: &control)
                png_image_free(&control)
            }
        }
        guard let result else { throw .failure(.imageNotEncoded, "cannot write PNG (libpng: \(ImageLimits.oneLine(problem)))") }
        return result
    }

    /// Checks the size in the IHDR chunk, which the PNG standard puts first, right after
    /// the signature. libpng's `begin_read` reads on to the first IDAT, so without this a
    /// file cut after an absurd IHDR would be called truncated instead of too large.
    private static func checkIHDR(_ bytes: [UInt8], name: String) throws(LommeError) {
        guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8) else { return }
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        try ImageLimits.check(width: u32(16), height: u32(20), name: name)
        // libpng allocates a chunk's declared length before it reads the chunk: a 100-byte
        // file declaring a 1.7 GB text chunk made it ask for 1.7 GB. No chunk can be longer
        // than what is left of the file, so such a file is damaged; refuse it before libpng.
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = u32(offset)
            guard length <= bytes.count - offset - 12 else {
                throw ImageLimits.damaged(name: name, library: "libpng", detail: "a chunk is longer than the file")
            }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IEND".utf8) { return }
            offset += 12 + length
        }
    }

    /// The size the PNG header declares; checks the limits.
    package static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        try checkIHDR(bytes, name: name)
        let outcome: Result<(width: Int, height: Int), LommeError> = bytes.withUnsafeBufferPointer { data in
            var control = png_image()
            control.version = png_uint_32(PNG_IMAGE_VERSION)
            defer { png_image_free(&control) }
            guard png_image_begin_read_from_memory(&control, data.baseAddress, data.count) != 0 else {
                return .failure(ImageLimits.damaged(name: name, library: "libpng", detail: message(of: &control)))
            }
            let width = Int(control.width), height = Int(control.height)
            do throws(LommeError) {
                try ImageLimits.check(width: width, height: height, name: name)
            } catch {
                return .failure(error)
            }
            return .success((width, height))
        }
        return try outcome.get()
    }

    /// Decodes any PNG to grey, transparency over white.
    static func decode(_ bytes: [UInt8], name: String) throws(LommeError) -> GrayImage {
        try checkIHDR(bytes, name: name)
        // The common PNG, decoded faster to the same pixels; any other goes to libpng.
        if let image = PNGDirect.decode(bytes) { return image }
        return try decodeWithLibpng(bytes, name: name)
    }

    /// Decodes any PNG with libpng's simplified API (`decode` after `checkIHDR`).
    static func decodeWithLibpng(_ bytes: [UInt8], name: String) throws(LommeError) -> GrayImage {
        let outcome: Result<GrayImage, LommeError> = bytes.withUnsafeBufferPointer { data in
            var control = png_image()
            control.version = png_uint_32(PNG_IMAGE_VERSION)
            // Reads the header only: the size is known before anything is allocated.
            guard png_image_begin_read_from_memory(&control, data.baseAddress, data.count) != 0 else {
                let problem = message(of: &control)
                png_image_free(&control)
                return .failure(ImageLimits.damaged(name: name, library: "libpng", detail: problem))
            }
            let width = Int(control.width), height = Int(control.height)
            do throws(LommeError) {
                try ImageLimits.check(width: width, height: height, name: name)
            } catch {
                png_image_free(&control)
                return .failure(error)
            }
            // Colour files are read as RGB(A) and turned into luma here, with the same
            // weights as every other format; grey files stay grey (exact, and half the memory).
            let fileFormat = control.format
            let color = fileFormat & png_uint_32(PNG_FORMAT_FLAG_COLOR) != 0
            let alpha = fileFormat & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
            var format = color ? png_uint_32(PNG_FORMAT_RGB) : png_uint_32(PNG_FORMAT_GRAY)
            if alpha { format |= png_uint_32(PNG_FORMAT_FLAG_ALPHA) }
            let channels = (color ? 3 : 1) + (alpha ? 1 : 0)
            control.format = format
            control.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB)
            let stride = width * channels
            var buffer = [UInt8](repeating: 0, count: stride * height)
            let ok = buffer.withUnsafeMutableBytes { out in
                png_image_finish_read(&control, nil, out.baseAddress, png_int_32(stride), nil)
            }
            // finish_read frees the control structure on success and failure alike;
            // png_image_free on a freed structure is a harmless no-op.
            let failed = ok == 0 || control.warning_or_error & png_uint_32(PNG_IMAGE_ERROR) != 0
            let problem = failed ? message(of: &control) : ""
            png_image_free(&control)
            if failed {
                return .failure(ImageLimits.damaged(name: name, library: "libpng", detail: problem))
            }
            return .success(buffer.withUnsafeBufferPointer { source in
                Luma.gray(from: source, width: width, height: height, stride: stride, channels: channels)
            })
        }
        return try outcome.get()
    }

    /// `png_image.message`, a fixed-size C char array, as a String.
    private static func message(of control: inout png_image) -> String {
        withUnsafeBytes(of: &control.message) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension PNGCodec: ImageCodec {
    package static let formatName = "PNG"
    package static func sniff(_ bytes: [UInt8]) -> Bool { bytes.starts(with: signature) }
    package static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage {
        try decode(bytes, name: name)
    }
}

extension ImageLoader.Format {
    package static let png = ImageLoader.Format(PNGCodec.self)
}
