import LommeImages
import Testing
@testable import LommeScan

/// The module grids' threshold (`LocalStats.belowMean`, the grid sampler's `localGrid`) against
/// the sweep it stands in for: the same pixels dark, on every size and radius tried.
@Suite("Scanner local threshold")
struct LocalStatsTests {
    /// A fixed sequence of bytes (xorshift64), so a failure names a picture that can be made again.
    struct Bytes {
        var state: UInt64
        mutating func next() -> UInt8 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test(arguments: [1, 2, 4, 6])
    func belowMeanIsTheSweepsThresholdAtOffsetZero(radius: Int) {
        var bytes = Bytes(state: 0x9E37_79B9_7F4A_7C15 &+ UInt64(radius))
        for (width, height) in [(1, 1), (1, 9), (9, 1), (3, 3), (12, 12), (13, 7), (21, 21), (40, 33)] {
            // Noise, and the same with few levels (many ties with the window's mean).
            for levels in [256, 3] {
                let pixels = (0..<width * height).map { _ in UInt8(Int(bytes.next()) % levels * (255 / max(1, levels - 1))) }
                let image = GrayImage(width: width, height: height, pixels: pixels)
                let swept = LocalStats.thresholded(image, radius: radius, offset: 0, minContrast: 0)
                #expect(LocalStats.belowMean(image, radius: radius) == swept, "\(width)×\(height), \(levels) levels")
            }
        }
    }

    @Test func aFlatPictureHasNothingBelowItsMean() {
        let flat = GrayImage(width: 12, height: 12, pixels: [UInt8](repeating: 90, count: 144))
        #expect(LocalStats.belowMean(flat, radius: GridSampler.gridWindow).allSatisfy { $0 == 255 })
    }
}
