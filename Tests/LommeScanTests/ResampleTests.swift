import LommeImages
import Testing
@testable import LommeScan

/// `GrayImage.resampled` interpolates each source row across once for all the output rows
/// it serves; the pixels must be those of interpolating every output pixel from its four
/// source pixels, as it did before (the enlarged views' reads depend on every one).
@Suite("Bilinear resampling")
struct ResampleTests {
    /// Every output pixel from its four source pixels (the former implementation).
    static func reference(_ image: GrayImage, width newWidth: Int, height newHeight: Int) -> [UInt8] {
        let (width, height) = (image.width, image.height)
        var output = [UInt8](repeating: 0, count: newWidth * newHeight)
        let scaleX = Double(width) / Double(newWidth), scaleY = Double(height) / Double(newHeight)
        for y in 0..<newHeight {
            let sy = max(0, min(Double(height - 1), (Double(y) + 0.5) * scaleY - 0.5))
            let y0 = min(Int(sy), max(0, height - 2)), y1 = min(y0 + 1, height - 1)
            let wy = Int(((sy - Double(y0)) * 256).rounded())
            for x in 0..<newWidth {
                let sx = max(0, min(Double(width - 1), (Double(x) + 0.5) * scaleX - 0.5))
                let a = min(Int(sx), width - 2 < 0 ? 0 : width - 2), b = min(a + 1, width - 1)
                let fx = Int(((sx - Double(a)) * 256).rounded())
                let top = Int(image[a, y0]) * (256 - fx) + Int(image[b, y0]) * fx
                let bottom = Int(image[a, y1]) * (256 - fx) + Int(image[b, y1]) * fx
                output[y * newWidth + x] = UInt8((top * (256 - wy) + bottom * wy + 32768) >> 16)
            }
        }
        return output
    }

    @Test("the same pixels as every pixel from its four neighbours", arguments: [
        (37, 23, 111, 69), (37, 23, 74, 46), (240, 180, 864, 648), (50, 50, 40, 30), (1, 1, 3, 3), (5, 1, 15, 3), (1, 7, 2, 21),
    ])
    func sameAsReference(_ size: (Int, Int, Int, Int)) {
        var image = GrayImage(width: size.0, height: size.1, fill: 0)
        var seed: UInt32 = 12345
        for y in 0..<size.1 {
            for x in 0..<size.0 {
                seed = seed &* 1_103_515_245 &+ 12345
                image[x, y] = UInt8(truncatingIfNeeded: seed >> 16)
            }
        }
        #expect(image.resampled(width: size.2, height: size.3).pixels == Self.reference(image, width: size.2, height: size.3))
    }
}
