import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// Round trips through each codec: PNG, WebP and PGM/PPM exactly, JPEG and lossy WebP closely, files ImageMagick wrote.
extension ImageLoaderTests {
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
}
