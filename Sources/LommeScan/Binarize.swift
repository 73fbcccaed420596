import LommeImages

/// Black-and-white versions of a picture. zbar finds finder patterns by edges along scan lines.
extension GrayImage {
    // MARK: Tuning

    /// Adaptive threshold: dark when this many grey levels below its window's mean (above JPEG and sensor noise)…
    static let adaptiveOffset = 3
    /// …and only in windows whose deviation is at least this: a flat area holds no edge.
    static let flatContrast = 3

    /// Every pixel darker than `threshold` black, the rest white.
    func thresholded(at threshold: UInt8) -> GrayImage {
        GrayImage(width: width, height: height, pixels: pixels.map { $0 < threshold ? 0 : 255 })
    }

    /// Otsu's global threshold: the level that best splits the histogram in two classes.
    func otsuThreshold() -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        let total = Double(pixels.count)
        guard total > 0 else { return 128 }
        var sumAll = 0.0
        for i in 0..<256 { sumAll += Double(i * histogram[i]) }
        var sumBelow = 0.0, weightBelow = 0.0, best = 0.0, threshold = 128
        for t in 0..<256 {
            weightBelow += Double(histogram[t])
            if weightBelow == 0 { continue }
            let weightAbove = total - weightBelow
            if weightAbove == 0 { break }
            sumBelow += Double(t * histogram[t])
            let meanBelow = sumBelow / weightBelow, meanAbove = (sumAll - sumBelow) / weightAbove
            let between = weightBelow * weightAbove * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best { best = between; threshold = t + 1 }
        }
        return UInt8(min(threshold, 255))
    }

    /// Global Otsu binarisation: good for even light, fast.
    func otsuBinarized() -> GrayImage { thresholded(at: otsuThreshold()) }

    /// Adaptive mean binarisation.
    func adaptiveBinarized(radius: Int, offset: Int = adaptiveOffset, minContrast: Int = flatContrast) -> GrayImage {
        GrayImage(width: width, height: height,
                  pixels: LocalStats.thresholded(self, radius: radius, offset: offset, minContrast: minContrast))
    }
}
