import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// Loads real files through the real libraries. Inputs are made here: with lomme-vault's
/// own writers (PNG, JPEG, WebP) or with ImageMagick's `convert` for what they cannot
/// write (colour, alpha, palette, 16-bit, PPM/PGM, HEIC).
@Suite("Image loading")
struct ImageLoaderTests {
    // MARK: - Fixtures

    /// 64×40 (not square, so a wrong quarter turn shows in the size) of flat 8×8 blocks
    /// (JPEG keeps them well), every block a different grey, none black or white.
    static let pattern: GrayImage = {
        var image = GrayImage(width: 64, height: 40)
        for y in 0..<40 {
            for x in 0..<64 {
                image[x, y] = UInt8(30 + ((x / 8) * 23 + (y / 8) * 59) % 190)
            }
        }
        return image
    }()

    /// A scratch directory, removed when the test ends.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("lomme-images-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        @discardableResult
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            try Data(bytes).write(to: url.appendingPathComponent(name))
            return path(name)
        }
        func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url.appendingPathComponent(name))) }
    }

    static let convertPath = "/usr/bin/convert"

    /// Runs ImageMagick's convert; fails the test with its error output if it fails.
    static func convert(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: convertPath)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConvertFailed(arguments: arguments, output: String(decoding: output, as: UTF8.self))
        }
    }

    struct ConvertFailed: Error, CustomStringConvertible {
        var arguments: [String]
        var output: String
        var description: String { "convert \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    /// Whether this machine's ImageMagick can write HEIC (it needs libheif with an encoder).
    static let canWriteHEIC: Bool = {
        guard FileManager.default.isExecutableFile(atPath: convertPath) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: convertPath)
        process.arguments = ["-list", "format"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").contains { line in
            let words = line.split(separator: " ")
            return words.count >= 3 && words[0].hasPrefix("HEIC") && words[2].hasPrefix("rw")
        }
    }()

    static let hasConvert = FileManager.default.isExecutableFile(atPath: convertPath)

    /// nil if the two pictures are the same, else a short description of how they differ
    /// (a failed `#expect` then prints that instead of thousands of pixels).
    static func difference(_ a: GrayImage, _ b: GrayImage) -> String? {
        guard a.width == b.width, a.height == b.height else { return "\(a.width)×\(a.height), not \(b.width)×\(b.height)" }
        guard let i = a.pixels.indices.first(where: { a.pixels[$0] != b.pixels[$0] }) else { return nil }
        return "first difference at (\(i % a.width), \(i / a.width)): \(a.pixels[i]) not \(b.pixels[i]); largest \(maxDifference(a, b))"
    }

    /// The largest difference between two pictures of the same size.
    static func maxDifference(_ a: GrayImage, _ b: GrayImage) -> Int {
        zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    static func meanDifference(_ a: GrayImage, _ b: GrayImage) -> Double {
        Double(zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(max(1, a.pixels.count))
    }

    /// The pattern saved as a grey PNG by lomme-vault's writer, for `convert` to start from.
    static func savePattern(_ scratch: Scratch, _ name: String = "pattern.png") throws -> String {
        try scratch.write(name, try PNGCodec.encode(pattern))
    }

    /// Checks the error is an unreadable-image error of one line naming `name`.
    static func expectImageError(_ body: () throws(LommeError) -> Void, names name: String,
                                 saying words: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(LommeError) {
            try body()
            Issue.record("expected an image error for \(name)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .unreadableImage, "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.code.rawValue == 2, sourceLocation: sourceLocation)
            #expect(!error.message.contains("\n") && !error.message.contains("\r"), "\(error.message)",
                    sourceLocation: sourceLocation)
            #expect(error.message.contains(name), "\(error.message)", sourceLocation: sourceLocation)
            if let words {
                #expect(error.message.contains(words), "\(error.message)", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: - Lossless round trips

    @Test func pngRoundTripsExactly() throws {
        let bytes = try PNGCodec.encode(Self.pattern)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(Self.difference(try ImageLoader.load(bytes: bytes, name: "p.png"), Self.pattern) == nil)
        let size = try ImageLoader.size(bytes: bytes)
        #expect(size.width == 64 && size.height == 40)
    }

    @Test func formatComesFromTheBytesNotTheName() throws {
        let scratch = try Scratch()
        let path = try scratch.write("really-a-png.jpg", try PNGCodec.encode(Self.pattern))
        #expect(Self.difference(try ImageLoader.load(path: path), Self.pattern) == nil)
        #expect(try ImageLoader.format(of: try scratch.read("really-a-png.jpg")) == .png)
    }

    @Test func webpLosslessRoundTripsExactly() throws {
        let bytes = try WebPCodec.encodeLossless(Self.pattern)
        #expect(try ImageLoader.format(of: bytes) == .webp)
        #expect(Self.difference(try ImageLoader.load(bytes: bytes, name: "p.webp"), Self.pattern) == nil)
        let size = try ImageLoader.size(bytes: bytes)
        #expect(size.width == 64 && size.height == 40)
    }

    @Test func webpLossyIsClose() throws {
        let bytes = try WebPCodec.encode(Self.pattern, quality: 90)
        let image = try ImageLoader.load(bytes: bytes, name: "p.webp")
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.meanDifference(image, Self.pattern) < 4, "mean \(Self.meanDifference(image, Self.pattern))")
    }

    @Test func jpegIsCloseAndReportsItsSize() throws {
        let bytes = try JPEGCodec.encode(Self.pattern, quality: 95)
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        let image = try ImageLoader.load(bytes: bytes, name: "p.jpg")
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.maxDifference(image, Self.pattern) <= 6, "max \(Self.maxDifference(image, Self.pattern))")
        let size = try ImageLoader.size(bytes: bytes)
        #expect(size.width == 64 && size.height == 40)
    }

    /// Files `convert` writes from the grey pattern: each must come back exactly.
    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"),
          arguments: [
              ("PNG24:rgb.png", ImageLoader.Format.png),  // 8-bit RGB
              ("PNG48:rgb16.png", .png),  // 16-bit RGB
              ("PNG8:palette.png", .png),  // palette
              ("-depth 16 gray16.png", .png),  // 16-bit grey
              ("-interlace PNG interlaced.png", .png),  // Adam7
              ("PPM:raw.ppm", .pnm),  // P6
              ("PGM:raw.pgm", .pnm),  // P5
              ("-compress none PPM:plain.ppm", .pnm),  // P3
              ("-compress none PGM:plain.pgm", .pnm),  // P2
              ("-depth 16 PGM:raw16.pgm", .pnm),  // P5, maxval 65535
              ("-define webp:lossless=true WEBP:lossless.webp", .webp),
          ])
    func convertedFilesRoundTripExactly(output: String, format: ImageLoader.Format) throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        var arguments = [input]
        let words = output.split(separator: " ").map(String.init)
        arguments += words.dropLast()
        let name = String(words.last!.split(separator: ":").last!)
        arguments.append(words.last!.replacingOccurrences(of: name, with: scratch.path(name)))
        try Self.convert(arguments)
        let bytes = try scratch.read(name)
        #expect(try ImageLoader.format(of: bytes) == format)
        let image = try ImageLoader.load(path: scratch.path(name))
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.difference(image, Self.pattern) == nil)
    }

    @Test func plainPGMWithCommentsAndOddMaxval() throws {
        // maxval 1000 and comments between every header field.
        let text = "P2 # a comment\n# another\n3 # width\n2\n# maxval next\n1000\n0 500 1000\n  250\n750 1 \n"
        let image = try ImageLoader.load(bytes: Array(text.utf8), name: "c.pgm")
        #expect(image.width == 3 && image.height == 2)
        #expect(image.pixels == [0, 128, 255, 64, 191, 0])
    }

    @Test func rawPPMWithSixteenBitSamples() throws {
        // 2×1: pure red and mid grey, maxval 65535, big-endian samples.
        var bytes = Array("P6\n2 1\n65535\n".utf8)
        bytes += [0xFF, 0xFF, 0, 0, 0, 0]  // red
        bytes += [0x80, 0x80, 0x80, 0x80, 0x80, 0x80]  // grey 0x8080 → 128
        let image = try ImageLoader.load(bytes: bytes, name: "r.ppm")
        #expect(image.pixels == [(77 * 255) >> 8, 128])
    }

    // MARK: - Colour and transparency

    /// RGBA made by convert from a colour picture and an alpha mask.
    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"),
          arguments: ["PNG32:rgba.png", "WEBP:rgba.webp", "PNG:graya.png"])
    func transparencyIsCompositedOverWhite(output: String) throws {
        let scratch = try Scratch()
        // 4×2 colours and alphas; graya.png gets grey colours so it stays grey+alpha.
        let grey = output.hasPrefix("PNG:")
        let colours: [(UInt8, UInt8, UInt8)] = grey
            ? [(0, 0, 0), (40, 40, 40), (200, 200, 200), (90, 90, 90), (0, 0, 0), (255, 255, 255), (10, 10, 10), (128, 128, 128)]
            : [(255, 0, 0), (0, 255, 0), (0, 0, 255), (10, 20, 30), (0, 0, 0), (255, 255, 255), (200, 100, 50), (128, 128, 128)]
        let alphas: [UInt8] = [255, 0, 128, 64, 0, 255, 200, 1]
        var ppm = Array("P6\n4 2\n255\n".utf8)
        for (r, g, b) in colours { ppm += [r, g, b] }
        try scratch.write("colour.ppm", ppm)
        try scratch.write("alpha.pgm", Array("P5\n4 2\n255\n".utf8) + alphas)
        var arguments = [scratch.path("colour.ppm"), scratch.path("alpha.pgm"), "-alpha", "off",
                         "-compose", "CopyOpacity", "-composite"]
        if output.hasPrefix("WEBP") { arguments += ["-define", "webp:lossless=true", "-define", "webp:exact=true"] }
        if grey { arguments += ["-type", "GrayscaleAlpha"] }
        let name = String(output.split(separator: ":").last!)
        arguments.append(output.replacingOccurrences(of: name, with: scratch.path(name)))
        try Self.convert(arguments)
        let image = try ImageLoader.load(path: scratch.path(name))
        #expect(image.width == 4 && image.height == 2)
        for i in 0..<8 {
            let (r, g, b) = colours[i]
            let luma = (77 * Int(r) + 150 * Int(g) + 29 * Int(b)) >> 8
            let a = Int(alphas[i])
            let expected = (luma * a + 255 * (255 - a) + 127) / 255
            #expect(abs(Int(image.pixels[i]) - expected) <= 1, "pixel \(i): \(image.pixels[i]) not \(expected)")
        }
        // Fully transparent pixels are white whatever their colour.
        #expect(image.pixels[1] == 255 && image.pixels[4] == 255)
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func paletteWithTransparentEntryIsWhiteThere() throws {
        let scratch = try Scratch()
        var picture = Self.pattern
        for x in 0..<16 { picture[x, 0] = 0 }  // a black stripe to make transparent
        try scratch.write("in.png", try PNGCodec.encode(picture))
        try Self.convert([scratch.path("in.png"), "-transparent", "black", "PNG8:" + scratch.path("trns.png")])
        let bytes = try scratch.read("trns.png")
        // Palette (colour type 3) with a tRNS chunk, as the test means.
        #expect(bytes[25] == 3)
        #expect(bytes.indices.dropLast(4).contains { bytes[$0..<($0 + 4)].elementsEqual("tRNS".utf8) })
        let image = try ImageLoader.load(bytes: bytes, name: "trns.png")
        var expected = picture
        for x in 0..<16 { expected[x, 0] = 255 }
        #expect(Self.difference(image, expected) == nil)
    }

    // MARK: - HEIC

    @Test(.enabled(if: canWriteHEIC, "ImageMagick here cannot write HEIC, so there is nothing to test libheif with"))
    func heicIsCloseAndTruncatedHEICIsRefused() throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input, "-quality", "95", scratch.path("p.heic")])
        let bytes = try scratch.read("p.heic")
        #expect(try ImageLoader.format(of: bytes) == .heif)
        let size = try ImageLoader.size(bytes: bytes)
        #expect(size.width == 64 && size.height == 40)
        let image = try ImageLoader.load(path: scratch.path("p.heic"))
        #expect(image.width == 64 && image.height == 40)
        let mean = Self.meanDifference(image, Self.pattern)
        #expect(mean < 4, "mean difference \(mean)")
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array(bytes.prefix(bytes.count * 2 / 3)), name: "cut.heic")
        }, names: "cut.heic")
    }

    // MARK: - EXIF orientation

    /// A JPEG with an APP1 EXIF block holding only the orientation, in either byte order.
    static func jpegWithOrientation(_ jpeg: [UInt8], _ orientation: UInt16, littleEndian: Bool) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { u16(UInt16(littleEndian ? v & 0xFFFF : v >> 16)) + u16(UInt16(littleEndian ? v >> 16 : v & 0xFFFF)) }
        var tiff: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        tiff += u16(42) + u32(8)  // IFD0 right after the header
        tiff += u16(2)  // two entries: a decoy tag, then orientation
        tiff += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]  // Make = "ABC"
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u32(0)  // no next IFD
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        let app1: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        // After SOI and the JFIF APP0, where cameras put it.
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        return Array(jpeg[..<at]) + app1 + Array(jpeg[at...])
    }

    /// EXIF orientation, and how convert turns the upright pattern into what a camera stores.
    static let orientations: [(UInt16, [String])] = [
        (1, []), (2, ["-flop"]), (3, ["-rotate", "180"]), (4, ["-flip"]),
        (5, ["-transpose"]), (6, ["-rotate", "-90"]), (7, ["-transverse"]), (8, ["-rotate", "90"]),
    ]

    /// The stored picture is made by convert from the upright one, so that the test does
    /// not check lomme-vault's transforms against themselves.
    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"),
          arguments: orientations)
    func exifOrientationComesOutUpright(orientation: UInt16, howStored: [String]) throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input] + howStored + ["-depth", "8", "GRAY:" + scratch.path("stored.gray")])
        let swapped = (5...8).contains(orientation)
        let stored = GrayImage(width: swapped ? 40 : 64, height: swapped ? 64 : 40,
                               pixels: try scratch.read("stored.gray"))
        let plain = try JPEGCodec.encode(stored, quality: 95)
        for littleEndian in [true, false] {
            let bytes = Self.jpegWithOrientation(plain, orientation, littleEndian: littleEndian)
            #expect(EXIF.orientation(ofJPEG: bytes) == Int(orientation))
            let size = try ImageLoader.size(bytes: bytes)
            #expect(size.width == 64 && size.height == 40)
            let image = try ImageLoader.load(bytes: bytes, name: "photo.jpg")
            #expect(image.width == 64 && image.height == 40)
            if image.width == 64 && image.height == 40 {
                #expect(Self.maxDifference(image, Self.pattern) <= 6,
                        "orientation \(orientation): max difference \(Self.maxDifference(image, Self.pattern))")
            }
        }
    }

    @Test func badOrSillyEXIFIsIgnored() throws {
        let plain = try JPEGCodec.encode(Self.pattern, quality: 90)
        for orientation: UInt16 in [0, 9, 0xFFFF] {
            let bytes = Self.jpegWithOrientation(plain, orientation, littleEndian: true)
            #expect(try ImageLoader.load(bytes: bytes, name: "x.jpg").width == 64)
        }
        // An EXIF block whose IFD offset points far outside it.
        var broken = Self.jpegWithOrientation(plain, 6, littleEndian: false)
        let tiff = broken.indices.first { broken[$0..<($0 + 4)].elementsEqual("MM\u{0}*".utf8) }!
        broken[tiff + 4] = 0x7F
        #expect(EXIF.orientation(ofJPEG: broken) == 1)
        #expect(try ImageLoader.load(bytes: broken, name: "x.jpg").width == 64)
    }

    // MARK: - Transforms

    @Test func transformsMoveThePixelsTheyShould() {
        // 3×2:  1 2 3
        //       4 5 6
        let image = GrayImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        #expect(image.rotated90() == GrayImage(width: 2, height: 3, pixels: [4, 1, 5, 2, 6, 3]))
        #expect(image.rotated180() == GrayImage(width: 3, height: 2, pixels: [6, 5, 4, 3, 2, 1]))
        #expect(image.rotated270() == GrayImage(width: 2, height: 3, pixels: [3, 6, 2, 5, 1, 4]))
        #expect(image.mirrored() == GrayImage(width: 3, height: 2, pixels: [3, 2, 1, 6, 5, 4]))
        #expect(image.flipped() == GrayImage(width: 3, height: 2, pixels: [4, 5, 6, 1, 2, 3]))
        #expect(image.transposed() == GrayImage(width: 2, height: 3, pixels: [1, 4, 2, 5, 3, 6]))
        for turns in -9...9 {
            let expected = [image, image.rotated90(), image.rotated180(), image.rotated270()][((turns % 4) + 4) % 4]
            #expect(image.rotated(by: turns) == expected, "\(turns) quarter turns")
        }
        #expect(Self.difference(Self.pattern.rotated90().rotated270(), Self.pattern) == nil)
        #expect(Self.difference(Self.pattern.mirrored().mirrored(), Self.pattern) == nil)
    }

    // MARK: - DCT scaling

    @Test(arguments: [(1, 100, 75), (2, 50, 38), (4, 25, 19), (8, 13, 10)])
    func jpegReduceScalesInTheDCT(reduce: Int, width: Int, height: Int) throws {
        var big = GrayImage(width: 100, height: 75)
        for y in 0..<75 { for x in 0..<100 { big[x, y] = x < 50 ? 40 : 220 } }
        let bytes = try JPEGCodec.encode(big, quality: 90)
        let image = try ImageLoader.load(bytes: bytes, reduce: reduce, name: "big.jpg")
        #expect(image.width == width && image.height == height)
        // Still the same picture: dark on the left, light on the right.
        #expect(image[0, height / 2] < 80 && image[width - 1, height / 2] > 180)
        // Sideways photos come out upright and reduced.
        let sideways = try ImageLoader.load(bytes: Self.jpegWithOrientation(bytes, 6, littleEndian: true),
                                            reduce: reduce, name: "big.jpg")
        #expect(sideways.width == height && sideways.height == width)
        // Other formats ignore reduce.
        let png = try ImageLoader.load(bytes: try PNGCodec.encode(big), reduce: reduce, name: "big.png")
        #expect(Self.difference(png, big) == nil)
    }

    // MARK: - Bad input

    /// 89 50 4E 47 … + an IHDR chunk declaring `width`×`height`, correct CRC, then nothing.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        let chunk = Array("IHDR".utf8) + be(width) + be(height) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + chunk + be(crc32(chunk))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A JPEG whose frame header (SOF0) claims `width`×`height`.
    static func jpegClaiming(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try JPEGCodec.encode(pattern, quality: 80)
        let sof = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }!
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }

    /// Deterministic noise (a 64-bit LCG), so a failure can be repeated.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(state >> 56)
        }
    }

    @Test func hugePNGIsRefusedFromItsHeader() throws {
        let bytes = Self.pngHeader(width: 100_000, height: 100_000)
        #expect(bytes.count == 33)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, name: "huge.png") },
                              names: "huge.png", saying: "100000×100000")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.size(bytes: bytes, name: "huge.png") },
                              names: "huge.png", saying: "100000×100000")
        // Under the side limit but over 100 megapixels.
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Self.pngHeader(width: 20_000, height: 20_000), name: "wide.png")
        }, names: "wide.png", saying: "more than any photo")
        // The same header with a plausible size is only truncated.
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Self.pngHeader(width: 100, height: 100), name: "short.png")
        }, names: "short.png", saying: "damaged or truncated")
    }

    @Test func hugeJPEGIsRefusedFromItsHeader() throws {
        let bytes = try Self.jpegClaiming(width: 65_000, height: 65_000)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, name: "huge.jpg") },
                              names: "huge.jpg", saying: "65000×65000")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, reduce: 8, name: "huge.jpg") },
                              names: "huge.jpg", saying: "65000×65000")
    }

    @Test func hugeAndEmptyPNMAreRefused() {
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P5\n99999999999999999999 2\n255\n".utf8), name: "huge.pgm")
        }, names: "huge.pgm", saying: "more than any photo")
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P5\n0 2\n255\n".utf8), name: "zero.pgm")
        }, names: "zero.pgm", saying: "no pixels")
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P6\n2 2\n255\n".utf8) + [1, 2, 3], name: "short.ppm")
        }, names: "short.ppm", saying: "damaged or truncated")
    }

    /// A progressive JPEG with one of its scans repeated `copies` times before EOI.
    static func jpegWithRepeatedScan(_ progressive: [UInt8], copies: Int) -> [UInt8] {
        // Segments run from SOI to the first SOS; then entropy data until the next marker
        // that is neither a stuffed 00 nor a restart marker.
        var i = 2
        while !(progressive[i] == 0xFF && progressive[i + 1] == 0xDA) {
            i += 2 + (Int(progressive[i + 2]) << 8 | Int(progressive[i + 3]))
        }
        var j = i + 2 + (Int(progressive[i + 2]) << 8 | Int(progressive[i + 3]))
        while !(progressive[j] == 0xFF && progressive[j + 1] != 0 && !(0xD0...0xD7).contains(progressive[j + 1])) {
            j += 1
        }
        let scan = Array(progressive[i..<j])
        let end = progressive.count - 2  // EOI
        return Array(progressive[..<end]) + Array(repeating: scan, count: copies).flatMap { $0 } + [0xFF, 0xD9]
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func progressiveJPEGWithEndlessScansIsRefused() throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input, "-interlace", "JPEG", "-quality", "90", scratch.path("p.jpg")])
        let progressive = try scratch.read("p.jpg")
        // A sane progressive file, and the same with a few repeats, still load.
        #expect(Self.maxDifference(try ImageLoader.load(bytes: progressive, name: "p.jpg"), Self.pattern) <= 6)
        _ = try ImageLoader.load(bytes: Self.jpegWithRepeatedScan(progressive, copies: 20), name: "p.jpg")
        let endless = Self.jpegWithRepeatedScan(progressive, copies: 2000)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: endless, name: "scans.jpg") },
                              names: "scans.jpg", saying: "scans")
    }

    @Test func truncatedFilesAreRefused() throws {
        let png = try PNGCodec.encode(Self.pattern)
        let jpeg = try JPEGCodec.encode(Self.pattern, quality: 90)
        let webp = try WebPCodec.encodeLossless(Self.pattern)
        for (name, bytes) in [("cut.png", png), ("cut.jpg", jpeg), ("cut.webp", webp)] {
            for keep in [bytes.count / 2, bytes.count - 20, 40] {
                Self.expectImageError({ () throws(LommeError) in
                    _ = try ImageLoader.load(bytes: Array(bytes.prefix(keep)), name: name)
                }, names: name, saying: "damaged or truncated")
            }
        }
    }

    @Test func thingsThatAreNotPicturesAreRefused() throws {
        let scratch = try Scratch()
        let cases: [(String, [UInt8], String)] = [
            ("empty.png", [], "empty"),
            ("noise.jpg", Self.noise(count: 5000, seed: 42), "not a picture lomme-vault can read"),
            ("notes.txt", Array("Dette er ikke et bilde.\nBare tekst.\n".utf8), "not a picture lomme-vault can read"),
            ("anim.gif", Array("GIF89a".utf8) + Self.noise(count: 100, seed: 1), "GIF"),
            ("short.jpg", [0xFF, 0xD8, 0xFF], "damaged or truncated"),
            ("riff.webp", Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "damaged or truncated"),
        ]
        for (name, bytes, words) in cases {
            let path = try scratch.write(name, bytes)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                                  names: name, saying: words)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.size(bytes: bytes, name: name) },
                                  names: name, saying: words)
        }
    }

    @Test func unreadableFilesSayWhy() throws {
        let scratch = try Scratch()
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.path("missing.png")) },
                              names: "missing.png", saying: "cannot read")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.path("missing.png")) },
                              names: "missing.png", saying: "No such file or directory")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.url.path) },
                              names: scratch.url.lastPathComponent, saying: "Is a directory")
        if getuid() != 0 {  // root reads everything
            let path = try scratch.write("secret.png", try PNGCodec.encode(Self.pattern))
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                                  names: "secret.png", saying: "Permission denied")
        }
    }

    @Test func filesOverTwoHundredMegabytesAreRefusedUnread() throws {
        let scratch = try Scratch()
        // Sparse: a PNG signature, then a hole to 201 MB. Nothing is read past the size check.
        let path = try scratch.write("huge-file.png", PNGCodec.signature)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 201 * 1024 * 1024)
        try handle.close()
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                              names: "huge-file.png", saying: "201 MB, larger than any photo")
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func cmykJPEGIsRead() throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input, "-colorspace", "CMYK", "-quality", "95", scratch.path("cmyk.jpg")])
        let image = try ImageLoader.load(path: scratch.path("cmyk.jpg"))
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.meanDifference(image, Self.pattern) < 4, "mean difference \(Self.meanDifference(image, Self.pattern))")
    }

    @Test func aFileNameWithANewlineStillGivesOneLine() throws {
        let scratch = try Scratch()
        let path = try scratch.write("two\nlines.png", Array("no".utf8))
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) }, names: "two?lines.png")
    }

    /// Cut and corrupted versions of valid files: each loads or throws an image error,
    /// never crashes (a crash fails the whole test run).
    @Test func damagedFilesNeverCrash() throws {
        let sources: [(String, [UInt8])] = [
            ("png", try PNGCodec.encode(Self.pattern)),
            ("jpg", try JPEGCodec.encode(Self.pattern, quality: 80)),
            ("webp", try WebPCodec.encodeLossless(Self.pattern)),
            ("lossy.webp", try WebPCodec.encode(Self.pattern, quality: 70)),
            ("pgm", Array("P5\n64 40\n255\n".utf8) + Self.pattern.pixels),
        ]
        var loaded = 0, refused = 0
        for (kind, bytes) in sources {
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 60)) {
                do throws(LommeError) {
                    _ = try ImageLoader.load(bytes: Array(bytes.prefix(cut)), name: "cut.\(kind)")
                    loaded += 1
                } catch {
                    #expect(error.code == .unreadableImage && !error.message.contains("\n"))
                    refused += 1
                }
            }
            for seed in 0..<60 {
                var damaged = bytes
                let noise = Self.noise(count: 8, seed: UInt64(seed) &+ 1000)
                for i in 0..<4 {
                    let at = Int(noise[2 * i]) * Int(noise[2 * i + 1]) % damaged.count
                    damaged[at] ^= noise[2 * i] | 1
                }
                do throws(LommeError) {
                    _ = try ImageLoader.load(bytes: damaged, name: "bad.\(kind)")
                    loaded += 1
                } catch {
                    #expect(error.code == .unreadableImage && !error.message.contains("\n"))
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
    }
}
