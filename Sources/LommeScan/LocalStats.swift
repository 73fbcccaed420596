import LommeImages

/// Means and spreads over a square window around every pixel, the common ground of
/// adaptive binarisation, local contrast normalisation and sharpening.
///
/// Separable running sums in `UInt32`: O(1) per pixel whatever the window, and no
/// overflow for radii up to 100 even for squares (255² · 201² < 2³²).
struct LocalStats {
    /// The largest window radius: the running sums of squares overflow `UInt32` beyond it.
    static let maximumRadius = 100

    /// Mean of the window around each pixel.
    var mean: [UInt8]
    /// Standard deviation of the window around each pixel.
    var deviation: [UInt8]

    init(_ image: GrayImage, radius: Int) {
        let r = max(1, min(radius, LocalStats.maximumRadius))
        mean = LocalStats.boxMean(image, radius: r)
        let meanOfSquares = LocalStats.boxMeanWide(image, radius: r)
        var dev = [UInt8](repeating: 0, count: mean.count)
        for i in 0..<mean.count {
            let m = Double(mean[i])
            let v = max(0, Double(meanOfSquares[i]) - m * m)
            dev[i] = UInt8(min(255, v.squareRoot()))
        }
        deviation = dev
    }

    /// Box mean with edge pixels repeated beyond the border, so every window has the same area.
    static func boxMean(_ image: GrayImage, radius r: Int) -> [UInt8] {
        let sums = boxSums(image, radius: r, squared: false)
        let area = UInt32((2 * r + 1) * (2 * r + 1)), half = area / 2
        return sums.map { UInt8(min(255, ($0 + half) / area)) }
    }

    /// Box mean of squared values (up to 65025), unrounded enough for a deviation.
    static func boxMeanWide(_ image: GrayImage, radius r: Int) -> [UInt32] {
        let sums = boxSums(image, radius: r, squared: true)
        let area = UInt32((2 * r + 1) * (2 * r + 1))
        return sums.map { $0 / area }
    }

    /// Sum over the (2r+1)² window around each pixel, of the value or of its square.
    static func boxSums(_ image: GrayImage, radius r: Int, squared: Bool) -> [UInt32] {
        let w = image.width, h = image.height
        guard w > 0, h > 0 else { return [] }
        var horizontal = [UInt32](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { out in
                for y in 0..<h {
                    let row = y * w
                    @inline(__always) func value(_ x: Int) -> UInt32 {
                        let v = UInt32(src[row + min(max(x, 0), w - 1)])
                        return squared ? v * v : v
                    }
                    var sum: UInt32 = 0
                    for x in -r...r { sum &+= value(x) }
                    for x in 0..<w {
                        out[row + x] = sum
                        sum = sum &+ value(x + r + 1) &- value(x - r)
                    }
                }
            }
        }
        var result = [UInt32](repeating: 0, count: w * h)
        var column = [UInt32](repeating: 0, count: w)
        horizontal.withUnsafeBufferPointer { hs in
            result.withUnsafeMutableBufferPointer { out in
                column.withUnsafeMutableBufferPointer { col in
                    @inline(__always) func rowStart(_ y: Int) -> Int { min(max(y, 0), h - 1) * w }
                    for y in -r...r {
                        let start = rowStart(y)
                        for x in 0..<w { col[x] &+= hs[start + x] }
                    }
                    for y in 0..<h {
                        let row = y * w
                        for x in 0..<w { out[row + x] = col[x] }
                        let add = rowStart(y + r + 1), remove = rowStart(y - r)
                        for x in 0..<w { col[x] = col[x] &+ hs[add + x] &- hs[remove + x] }
                    }
                }
            }
        }
        return result
    }
}
