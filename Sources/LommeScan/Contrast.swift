import LommeImages

/// Tone changes that keep the grey levels: local normalisation, inversion.
extension GrayImage {
    // MARK: Tuning

    /// `locallyNormalized`: a deviation counted as at least this (flat areas would amplify
    /// noise), mapped to this many grey levels either side of mid grey.
    static let normalizedSmallestSpread = 10
    static let normalizedGain = 64

    /// Light and dark swapped: light-on-dark codes (dark-mode screens, terminals) become what zbar looks for.
    func inverted() -> GrayImage {
        // `~v` is 255 - v for a byte, without the overflow check that kept the loop from being vectorised.
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                for i in 0..<src.count { out[i] = ~src[i] }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// Local contrast normalisation.
    func locallyNormalized(radius: Int) -> GrayImage {
        let stats = LocalStats(self, radius: radius)
        let mean = stats.mean, deviation = stats.deviation
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                for i in 0..<src.count {
                    let spread = max(Int(deviation[i]), Self.normalizedSmallestSpread)
                    let value = 128 + (Int(src[i]) - Int(mean[i])) * Self.normalizedGain / spread
                    out[i] = UInt8(max(0, min(255, value)))
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}
