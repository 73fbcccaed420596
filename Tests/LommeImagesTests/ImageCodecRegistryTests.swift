import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// The seam: ImageLoader knows formats only through `ImageCodecs.all`. Every registered
/// codec claims its own files and no other codec claims them, the unknown-format message
/// names the registry's formats in order, and each codec's header-only size is the size its
/// decoder returns.
extension ImageLoaderTests {
    /// One small file of each registered format, made by our writers or by ImageMagick.
    static func oneOfEach(_ scratch: Scratch) throws -> [(format: String, bytes: [UInt8])] {
        var files: [(String, [UInt8])] = [
            ("PNG", try PNGCodec.encode(pattern)),
            ("JPEG", try JPEGCodec.encode(pattern, quality: 90)),
            ("WebP", try WebPCodec.encodeLossless(pattern)),
        ]
        let png = try savePattern(scratch)
        try convert([png, "PGM:" + scratch.path("p.pgm")])
        files.append(("PGM/PPM", try scratch.read("p.pgm")))
        if canWriteHEIC {
            try convert([png, "-quality", "90", scratch.path("p.heic")])
            files.append(("HEIC", try scratch.read("p.heic")))
        }
        return files
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func everyCodecClaimsItsOwnFilesAndNoOtherDoes() throws {
        let scratch = try Scratch()
        let files = try Self.oneOfEach(scratch)
        #expect(ImageCodecs.all.map { $0.formatName } == ["PNG", "JPEG", "WebP", "PGM/PPM", "HEIC"])
        for (format, bytes) in files {
            let claiming = ImageCodecs.all.filter { $0.sniff(bytes) }.map { $0.formatName }
            #expect(claiming == [format], "\(format) is claimed by \(claiming)")
            #expect(try ImageLoader.format(of: bytes).name == format)
            // The header-only size is what decoding gives.
            let codec = try ImageLoader.codec(of: bytes, name: "x")
            let size = try codec.size(bytes, name: "x")
            let image = try codec.decode(bytes, reduce: 1, name: "x")
            #expect(size.width == image.width && size.height == image.height, "\(format): \(size) vs \(image.width)×\(image.height)")
            #expect(codec.scalesWhileDecoding == (format == "JPEG"))
        }
    }

    @Test func theUnknownFormatMessageNamesTheRegisteredFormats() {
        let error = #expect(throws: LommeError.self) { _ = try ImageLoader.format(of: Array("hello, not a picture".utf8), name: "note.txt") }
        #expect(error?.message.contains("(not PNG, JPEG, WebP, PGM/PPM or HEIC)") == true, "\(String(describing: error))")
        #expect(error?.code == .unreadableImage)
    }
}
