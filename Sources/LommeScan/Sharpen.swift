import LommeImages

/// A mild unsharp mask for slightly blurred photos.
extension GrayImage {
    /// The default mask: the difference from a 3×3 mean, added back twice.
    static let sharpenRadius = 1
    static let sharpenAmount = 2

    func sharpened(radius: Int = sharpenRadius, amount: Int = sharpenAmount) -> GrayImage {
        let blurred = LocalStats.boxMean(self, radius: radius)
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                for i in 0..<src.count {
                    let p = Int(src[i])
                    out[i] = UInt8(max(0, min(255, p + amount * (p - Int(blurred[i])))))
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}
