import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// JPEG decoded at 1/2, 1/4 and 1/8 in the DCT.
extension ImageLoaderTests {
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
}
