import Glibc
import LommeCore

/// Reads a picture file into an 8-bit grey image, whatever its format.
///
/// The format comes from the file's first bytes, never its name: PNG, JPEG, WebP,
/// PGM/PPM (P2, P3, P5, P6) and HEIC/HEIF. Colour becomes luma (77R + 150G + 29B) >> 8,
/// transparency is composited over white, and JPEG photos are turned upright by their
/// EXIF orientation (HEIC by the file's own rotation boxes).
///
/// Every failure is a `LommeError` with code `.unreadableImage` (exit 2) and a one-line
/// message naming the file: unreadable files, unknown formats, damaged or truncated
/// data, and declared sizes past `ImageLimits`, which are refused from the header,
/// before any pixels are allocated.
package enum ImageLoader {
    /// A format `ImageLoader` reads, by its codec's name (each codec file names its own:
    /// `.png`, `.jpeg`, …).
    package struct Format: Sendable, Equatable, CustomStringConvertible {
        package let name: String

        package init(_ codec: any ImageCodec.Type) { name = codec.formatName }

        /// The codec of this format.
        package var codec: any ImageCodec.Type { ImageCodecs.all.first { $0.formatName == name }! }
        package var description: String { name }
    }

    /// Reads and decodes the file at `path`. See `load(bytes:reduce:name:)`.
    package static func load(path: String, reduce: Int = 1) throws(LommeError) -> GrayImage {
        try load(bytes: read(path: path), reduce: reduce, name: path)
    }

    /// Decodes a picture held in memory; `name` is what messages call it.
    ///
    /// - Parameter reduce: 1, 2, 4 or 8 asks for a picture 1/`reduce` the width and height
    ///   where that is nearly free, which today means JPEG only (libjpeg scales in the DCT:
    ///   a 12 MP photo decodes at 1/4 in a fraction of the time, each side rounded up).
    ///   Other formats ignore it and come back at full size; callers must use the size of
    ///   the image they get. Other values are rounded down to the nearest of 1, 2, 4, 8.
    package static func load(bytes: [UInt8], reduce: Int = 1, name: String) throws(LommeError) -> GrayImage {
        try codec(of: bytes, name: name).decode(bytes, reduce: denominator(reduce), name: name)
    }

    /// The full-size width and height `load(bytes:name:)` would return with `reduce` 1
    /// (for JPEG: after EXIF orientation, so a sideways photo reports its upright size),
    /// read from the header only. Throws as `load` would for unknown formats, damaged
    /// headers and sizes past the limits.
    package static func size(bytes: [UInt8], name: String = "the picture") throws(LommeError) -> (width: Int, height: Int) {
        try codec(of: bytes, name: name).size(bytes, name: name)
    }

    /// The format of a file from its first bytes; throws for empty files and anything else.
    package static func format(of bytes: [UInt8], name: String = "the picture") throws(LommeError) -> Format {
        Format(try codec(of: bytes, name: name))
    }

    // MARK: - Sniffing

    /// The codec whose format the file's first bytes show (`ImageCodecs.all`, in order).
    package static func codec(of bytes: [UInt8], name: String) throws(LommeError) -> any ImageCodec.Type {
        let display = ImageLimits.display(name)
        if bytes.isEmpty {
            throw .image(.imageEmpty, "\(display) is empty (0 bytes); choose the photo or screenshot of the QR code")
        }
        if let codec = ImageCodecs.all.first(where: { $0.sniff(bytes) }) { return codec }
        if let other = otherFormat(bytes) {
            throw .image(.imageFormatUnsupported, "\(display) is \(other), which lomme-vault cannot read; convert it to PNG or JPEG and try again")
        }
        throw .image(.imageNotAPicture, "\(display) is not a picture lomme-vault can read (not \(ImageCodecs.names)); export the picture as PNG or JPEG and try again")
    }

    /// Names a few formats people might try, for a more helpful message.
    private static func otherFormat(_ bytes: [UInt8]) -> String? {
        func starts(_ text: String) -> Bool { bytes.starts(with: text.utf8) }
        if starts("GIF87a") || starts("GIF89a") { return "a GIF picture" }
        if starts("BM") && bytes.count >= 26 { return "a BMP picture" }
        if starts("II*\u{0}") || starts("MM\u{0}*") { return "a TIFF picture" }
        if starts("%PDF") { return "a PDF document" }
        if starts("<svg") || starts("<?xml") { return "an SVG or XML file" }
        if starts("P1") || starts("P4") { return "a PBM bitmap" }
        if starts("P7") { return "a PAM picture" }
        if bytes.count >= 12, starts("RIFF") { return "a RIFF file but not WebP" }
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) { return "a video or an ISO media file but not HEIC" }
        if bytes.starts(with: [0xFF, 0xD8]) { return "a JPEG file without a valid start" }
        return nil
    }

    private static func denominator(_ reduce: Int) -> Int {
        reduce >= 8 ? 8 : reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1
    }

    // MARK: - Reading the file

    /// The whole file, at most `ImageLimits.maxFileBytes`.
    ///
    /// Opened non-blocking so a FIFO with no writer cannot hang the open; reads stop at the
    /// size limit, so an endless device such as /dev/zero cannot hang the read either.
    package static func read(path: String) throws(LommeError) -> [UInt8] {
        let display = ImageLimits.display(path)
        func failure(_ code: Int32) -> LommeError {
            .image(.imageUnreadable, "cannot read \(display): \(String(cString: strerror(code)))")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(errno) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR { throw failure(EISDIR) }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        if kind == S_IFREG, info.st_size > ImageLimits.maxFileBytes {
            throw tooBig(display, bytes: Int(info.st_size))
        }
        let expected = kind == S_IFREG ? Int(info.st_size) : 1 << 20
        var data = [UInt8](repeating: 0, count: min(expected, ImageLimits.maxFileBytes) + 1)
        var count = 0
        while true {
            if count == data.count {
                if count > ImageLimits.maxFileBytes { throw tooBig(display, bytes: kind == S_IFREG ? count : nil) }
                data.append(contentsOf: [UInt8](repeating: 0, count: min(data.count, ImageLimits.maxFileBytes + 1 - data.count)))
            }
            let got = data.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if got == 0 { break }
            count += got
        }
        if count > ImageLimits.maxFileBytes { throw tooBig(display, bytes: kind == S_IFREG ? count : nil) }
        data.removeSubrange(count...)
        return data
    }

    /// - Parameter bytes: the file's size if known, nil for a stream that went past the limit.
    private static func tooBig(_ display: String, bytes: Int?) -> LommeError {
        let limit = ImageLimits.maxFileBytes / (1024 * 1024)
        let size = bytes.map { "\(($0 + 1024 * 1024 - 1) / (1024 * 1024)) MB" } ?? "over \(limit) MB"
        return .image(.imageTooLarge, "\(display) is \(size), larger than any photo (the limit is \(limit) MB); refusing to load it")
    }
}
