import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// Colour becomes luma; transparency is composited over white (PNG, WebP, palettes).
extension ImageLoaderTests {
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

    /// Colour without alpha (the RGB loop most photos take): every pixel exactly (77R + 150G + 29B) >> 8,
    /// over rows of an odd width, as a PPM and as the RGB PNG convert makes of it.
    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"), arguments: ["colour.ppm", "PNG24:colour.png"])
    func colourBecomesLumaExactly(output: String) throws {
        let scratch = try Scratch()
        let width = 37, height = 3
        var seed: UInt32 = 20_261_128
        let colours: [(UInt8, UInt8, UInt8)] = (0..<width * height).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return (UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 16), UInt8(truncatingIfNeeded: seed >> 8))
        }
        var ppm = Array("P6\n\(width) \(height)\n255\n".utf8)
        for (r, g, b) in colours { ppm += [r, g, b] }
        try scratch.write("colour.ppm", ppm)
        var name = "colour.ppm"
        if output.hasPrefix("PNG") {
            name = "colour.png"
            try Self.convert([scratch.path("colour.ppm"), "PNG24:" + scratch.path(name)])
            #expect(try scratch.read(name)[25] == 2, "an RGB PNG (colour type 2)")
        }
        let image = try ImageLoader.load(path: scratch.path(name))
        #expect(image.width == width && image.height == height)
        let expected = colours.map { (r: UInt8, g: UInt8, b: UInt8) -> UInt8 in
            let sum: Int = 77 * Int(r) + 150 * Int(g) + 29 * Int(b)
            return UInt8(sum >> 8)
        }
        #expect(image.pixels == expected)
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
}
