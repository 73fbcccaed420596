import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// JPEG photos come out upright by their EXIF orientation; bad EXIF is ignored.
extension ImageLoaderTests {
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
}
