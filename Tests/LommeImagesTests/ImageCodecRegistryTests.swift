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

/// The seam without ImageMagick where it can be done so: each codec's limits, every layout's
/// header size, `reduce`, and files cut right after their first bytes. Samples are keyed by
/// `formatName`, and a registered codec without samples here fails `everyCodecHasSeamSamples`.
extension ImageLoaderTests {
    struct SeamSamples {
        /// Complete files of the format, each decodable.
        var pictures: [[UInt8]]
        /// Files that only start like the format (sniffing only).
        var starts: [[UInt8]]
        /// A file whose header declares a picture past `ImageLimits`; nil only where this
        /// machine cannot make one.
        var oversized: [UInt8]?
    }

    /// Samples for the codec called `format`; nil for a codec these tests do not know yet.
    static func seamSamples(_ format: String) throws -> SeamSamples? {
        switch format {
        case "PNG":
            var odd = GrayImage(width: 3, height: 7)
            for i in odd.pixels.indices { odd.pixels[i] = UInt8(i * 37 % 256) }
            return SeamSamples(pictures: [try PNGCodec.encode(pattern), try PNGCodec.encode(odd)],
                               starts: [PNGCodec.signature, pngHeader(width: 100, height: 100)],
                               oversized: pngHeader(width: 40_000, height: 40_000))
        case "JPEG":
            let plain = try JPEGCodec.encode(pattern, quality: 90)
            // Orientation 6 is stored sideways: the codec reports the upright size.
            return SeamSamples(pictures: [plain, jpegWithOrientation(plain, 6, littleEndian: true)],
                               starts: [[0xFF, 0xD8, 0xFF], Array(plain.prefix(40))],
                               oversized: try jpegClaiming(width: 40_000, height: 40_000))
        case "WebP":
            let lossless = try WebPCodec.encodeLossless(pattern)
            return SeamSamples(pictures: [lossless, try WebPCodec.encode(pattern, quality: 80)],
                               starts: [Array(lossless.prefix(16))],
                               oversized: webpClaiming(lossless, width: 16_383, height: 16_383))
        case "PGM/PPM":
            return SeamSamples(pictures: [Array("P5\n64 40\n255\n".utf8) + pattern.pixels,
                                          Array("P2\n# grey\n3 2\n15\n0 5 10\n15 7 1\n".utf8),
                                          Array("P6\n2 1\n255\n".utf8) + [255, 0, 0, 10, 20, 30],
                                          Array("P3 1 2 255\t0 0 255\n9 9 9\n".utf8)],
                               starts: [Array("P5#".utf8), Array("P6\n".utf8)],
                               oversized: Array("P5\n40000 40000\n255\n".utf8))
        case "HEIC":
            // A bare `ftyp` box is all sniffing reads.
            let ftyp = [0, 0, 0, 24] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
            guard canWriteHEIC else { return SeamSamples(pictures: [], starts: [ftyp], oversized: nil) }
            let scratch = try Scratch()
            try convert([try savePattern(scratch), "-quality", "90", scratch.path("p.heic")])
            let heic = try scratch.read("p.heic")
            return SeamSamples(pictures: [heic], starts: [ftyp], oversized: heicClaiming(heic, width: 40_000, height: 40_000))
        default:
            return nil
        }
    }

    /// A lossless WebP whose VP8L header is changed to declare `width`×`height`.
    static func webpClaiming(_ lossless: [UInt8], width: Int, height: Int) -> [UInt8] {
        var bytes = lossless
        let chunk = bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("VP8L".utf8) }!
        let at = chunk + 9  // past the fourcc, the chunk size and the 0x2F signature byte
        let old = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        let new = UInt32(width - 1) | UInt32(height - 1) << 14 | old & 0xF000_0000
        for i in 0..<4 { bytes[at + i] = UInt8((new >> (8 * UInt32(i))) & 0xFF) }
        return bytes
    }

    /// A HEIC file whose image spatial extents (`ispe`) declare `width`×`height`.
    static func heicClaiming(_ heic: [UInt8], width: Int, height: Int) -> [UInt8] {
        var bytes = heic
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        for at in bytes.indices.dropLast(16) where bytes[at..<(at + 4)].elementsEqual("ispe".utf8) {
            bytes.replaceSubrange((at + 8)..<(at + 16), with: be(width) + be(height))
        }
        return bytes
    }

    static func registeredCodec(_ format: String) -> (any ImageCodec.Type)? {
        ImageCodecs.all.first { $0.formatName == format }
    }

    @Test func everyCodecHasSeamSamples() throws {
        for codec in ImageCodecs.all {
            let samples = try #require(try Self.seamSamples(codec.formatName),
                                       "no seam samples for \(codec.formatName): add them to seamSamples")
            #expect(!samples.starts.isEmpty, "\(codec.formatName)")
            if codec.formatName != "HEIC" || Self.canWriteHEIC {
                #expect(!samples.pictures.isEmpty && samples.oversized != nil, "\(codec.formatName)")
            }
        }
    }

    @Test(arguments: ImageCodecs.all.map { $0.formatName })
    func eachCodecAloneClaimsFilesCutAfterTheirFirstBytes(format: String) throws {
        let samples = try #require(try Self.seamSamples(format))
        for bytes in samples.starts + samples.pictures {
            let claiming = ImageCodecs.all.filter { $0.sniff(bytes) }.map { $0.formatName }
            #expect(claiming == [format], "a \(bytes.count)-byte \(format) sample is claimed by \(claiming)")
            #expect(try ImageLoader.format(of: bytes).name == format)
        }
    }

    @Test(arguments: ImageCodecs.all.map { $0.formatName })
    func headerSizeIsTheDecodedSizeInEveryLayout(format: String) throws {
        let codec = try #require(Self.registeredCodec(format))
        for (i, bytes) in try #require(try Self.seamSamples(format)).pictures.enumerated() {
            let size = try codec.size(bytes, name: "sample")
            let image = try codec.decode(bytes, reduce: 1, name: "sample")
            #expect(size.width == image.width && size.height == image.height,
                    "\(format) sample \(i): \(size) vs \(image.width)×\(image.height)")
            let loaderSize = try ImageLoader.size(bytes: bytes, name: "sample")
            let loaded = try ImageLoader.load(bytes: bytes, name: "sample")
            #expect(loaderSize == size && loaded == image, "\(format) sample \(i)")
        }
    }

    /// Only a codec that says it scales while decoding returns a smaller picture for `reduce`.
    @Test(arguments: ImageCodecs.all.map { $0.formatName })
    func reduceIsHonouredOnlyByCodecsThatScale(format: String) throws {
        let codec = try #require(Self.registeredCodec(format))
        for bytes in try #require(try Self.seamSamples(format)).pictures {
            let size = try codec.size(bytes, name: "sample")
            let reduced = try codec.decode(bytes, reduce: 2, name: "sample")
            let expected = codec.scalesWhileDecoding ? ((size.width + 1) / 2, (size.height + 1) / 2) : size
            #expect(reduced.width == expected.0 && reduced.height == expected.1,
                    "\(format): \(reduced.width)×\(reduced.height), not \(expected.0)×\(expected.1)")
            #expect(try ImageLoader.load(bytes: bytes, reduce: 2, name: "sample") == reduced)
        }
    }

    @Test(arguments: ImageCodecs.all.map { $0.formatName })
    func eachCodecRefusesSizesPastTheLimitsFromItsHeader(format: String) throws {
        let codec = try #require(Self.registeredCodec(format))
        guard let bytes = try #require(try Self.seamSamples(format)).oversized else { return }
        Self.expectImageError({ () throws(LommeError) in _ = try codec.size(bytes, name: "big") },
                              names: "big", saying: "more than any photo; refusing to load it")
        Self.expectImageError({ () throws(LommeError) in _ = try codec.decode(bytes, reduce: 1, name: "big") },
                              names: "big", saying: "more than any photo; refusing to load it")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, reduce: 8, name: "big") },
                              names: "big", saying: "more than any photo; refusing to load it")
    }

    @Test func theUnknownFormatMessageIsWordForWordAsBefore() {
        let text = Array("Dette er ikke et bilde.\n".utf8)
        let message = "notes.txt is not a picture lomme-vault can read (not PNG, JPEG, WebP, PGM/PPM or HEIC); "
            + "export the picture as PNG or JPEG and try again"
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: text, name: "notes.txt") },
                              names: "notes.txt", saying: message)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.size(bytes: text, name: "notes.txt") },
                              names: "notes.txt", saying: message)
        #expect(ImageCodecs.names == "PNG, JPEG, WebP, PGM/PPM or HEIC")
    }
}
