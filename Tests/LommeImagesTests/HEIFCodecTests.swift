import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// HEIC through libheif.
extension ImageLoaderTests {
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
}
