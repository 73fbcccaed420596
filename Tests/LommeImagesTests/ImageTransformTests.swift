import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// The quarter turns and mirrors the loaders use.
extension ImageLoaderTests {
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
}
