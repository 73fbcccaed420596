import CHeif
import LommeCore

/// HEIC/HEIF photos (iPhone's default) through libheif, which applies the file's own
/// rotation and mirroring (irot/imir boxes), so the result is upright. Only the primary
/// image is read; decoding needs libheif's HEVC plugin (libde265 on Debian).
enum HEIFCodec {
    /// Brands in the `ftyp` box that mean "HEIF still image".
    static let brands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]

    /// True if the file starts with an ISO-BMFF `ftyp` box naming a HEIF brand.
    static func matches(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, boxSize >= 16 ? boxSize : 16)
        // Major brand at 8, minor version at 12, compatible brands from 16.
        var offsets = [8]
        offsets.append(contentsOf: Swift.stride(from: 16, to: end - 3, by: 4))
        return offsets.contains { offset in
            brands.contains(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
        }
    }

    /// libheif refuses images (a grid's whole canvas too) wider or taller than this before
    /// allocating them: a grid's size is in its own descriptor, not in the dimensions
    /// checked below, and a 1.9 KB file declaring a 24950×26995 grid made libheif allocate
    /// 2 GB (found by CI's fuzzing). 10000² is `ImageLimits.maxPixels`.
    static let largestSide = 10_000

    /// libheif wants heif_init before use; once per process is enough.
    private static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    package static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        try withPrimaryImage(bytes, name: name) { _, width, height throws(LommeError) in (width, height) }
    }

    static func decode(_ bytes: [UInt8], name: String) throws(LommeError) -> GrayImage {
        try withPrimaryImage(bytes, name: name) { handle, declaredWidth, declaredHeight throws(LommeError) in
            let alpha = heif_image_handle_has_alpha_channel(handle) != 0
            let premultiplied = alpha && heif_image_handle_is_premultiplied_alpha(handle) != 0
            let options = heif_decoding_options_alloc()
            defer { heif_decoding_options_free(options) }
            options?.pointee.convert_hdr_to_8bit = 1  // 10-bit HDR photos come out as 8-bit
            var image: OpaquePointer? = nil
            let error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                          alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
            defer { if let image { heif_image_release(image) } }
            guard error.code == heif_error_Ok, let image else { throw problem(error, name: name) }
            let width = Int(heif_image_get_width(image, heif_channel_interleaved))
            let height = Int(heif_image_get_height(image, heif_channel_interleaved))
            try ImageLimits.check(width: width, height: height, name: name)
            // A file whose picture is not the size its header declares is damaged (the scan
            // sizes its passes from the declared size).
            guard width == declaredWidth, height == declaredHeight else {
                throw ImageLimits.damaged(name: name, library: "libheif",
                                          detail: "the picture is \(width)×\(height) but the file declares \(declaredWidth)×\(declaredHeight)")
            }
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
                  Int(stride) >= width * (alpha ? 4 : 3) else {
                throw ImageLimits.damaged(name: name, library: "libheif", detail: "no pixel data in the decoded picture")
            }
            let source = UnsafeBufferPointer(start: plane, count: Int(stride) * (height - 1) + width * (alpha ? 4 : 3))
            return Luma.gray(from: source, width: width, height: height, stride: Int(stride),
                             channels: alpha ? 4 : 3, premultiplied: premultiplied)
        }
    }

    /// Opens the file with libheif and hands `body` its primary image and declared size,
    /// after the limits are checked; the file's bytes stay pinned while `body` runs.
    private static func withPrimaryImage<T>(
        _ bytes: [UInt8], name: String,
        _ body: (OpaquePointer, Int, Int) throws(LommeError) -> T
    ) throws(LommeError) -> T {
        guard initialized else {
            throw .image(.imageLibraryUnusable, "cannot read \(ImageLimits.display(name)): libheif failed to start; convert the picture to JPEG or PNG and try again")
        }
        switch HEIFReferences.damage(bytes) {
        case .loop:
            throw .image(.imageDamaged, "cannot read \(ImageLimits.display(name)): the HEIC file is damaged (its images refer to each other in a loop); convert the picture to JPEG or PNG and try again")
        case .notAPicture:
            throw .image(.imageDamaged, "cannot read \(ImageLimits.display(name)): the HEIC file is damaged (an image is made from an item that is not a picture); convert the picture to JPEG or PNG and try again")
        case .tooComplex:
            throw .image(.imageDamaged, "cannot read \(ImageLimits.display(name)): the HEIC file is damaged (its images are made from images more than \(HEIFReferences.maxDepth) levels deep or from more than \(HEIFReferences.maxDecodes) pictures); convert the picture to JPEG or PNG and try again")
        case .ambiguous:
            throw .image(.imageDamaged, "cannot read \(ImageLimits.display(name)): the HEIC file is damaged (it holds two 'meta', 'iinf' or 'iref' boxes, or two items of one number); convert the picture to JPEG or PNG and try again")
        case nil:
            break
        }
        let outcome: Result<T, LommeError> = bytes.withUnsafeBufferPointer { data in
            guard let context = heif_context_alloc() else {
                return .failure(.image(.outOfMemory, "cannot read \(ImageLimits.display(name)): libheif is out of memory"))
            }
            defer { heif_context_free(context) }
            heif_context_set_maximum_image_size_limit(context, Int32(largestSide))
            var error = heif_context_read_from_memory_without_copy(context, data.baseAddress, data.count, nil)
            guard error.code == heif_error_Ok else { return .failure(problem(error, name: name)) }
            var handle: OpaquePointer? = nil
            error = heif_context_get_primary_image_handle(context, &handle)
            defer { if let handle { heif_image_handle_release(handle) } }
            guard error.code == heif_error_Ok, let handle else { return .failure(problem(error, name: name)) }
            let width = Int(heif_image_handle_get_width(handle))
            let height = Int(heif_image_handle_get_height(handle))
            do throws(LommeError) {
                try ImageLimits.check(width: width, height: height, name: name)
                return .success(try body(handle, width, height))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private static func problem(_ error: heif_error, name: String) -> LommeError {
        let detail = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        if error.subcode == heif_suberror_Security_limit_exceeded {
            return .image(.imageTooLarge, "\(ImageLimits.display(name)) declares a HEIC picture more than \(largestSide) pixels a side "
                + "(or more than libheif allows), more than any photo; refusing to load it — export it as JPEG and try again")
        }
        if error.code == heif_error_Unsupported_feature || error.code == heif_error_Unsupported_filetype
            || error.code == heif_error_Plugin_loading_error {
            return .image(.imageFormatUnsupported, "\(ImageLimits.display(name)) is a HEIF picture this system's libheif cannot decode (\(ImageLimits.oneLine(detail))); export it as JPEG and try again")
        }
        return ImageLimits.damaged(name: name, library: "libheif", detail: detail)
    }
}

extension HEIFCodec: ImageCodec {
    package static let formatName = "HEIC"
    package static func sniff(_ bytes: [UInt8]) -> Bool { matches(bytes) }
    package static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage {
        try decode(bytes, name: name)
    }
}

extension ImageLoader.Format {
    package static let heif = ImageLoader.Format(HEIFCodec.self)
}
