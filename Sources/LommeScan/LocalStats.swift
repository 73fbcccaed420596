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

    /// The deviation of a window from its mean of squares less its squared mean (both whole
    /// grey levels, so the difference is a whole number up to 255²): the square root, whole,
    /// at most 255. A table: a floating-point root per pixel cost 4 % of a 1 MP photo's scan.
    static let squareRoots: [UInt8] = (0...255 * 255).map { UInt8(min(255, Double($0).squareRoot())) }

    /// Mean and deviation in one sweep down the picture: running sums of each column's
    /// window (values and squares), added along each row. The same numbers as `boxMean` and
    /// the deviation from `boxMeanWide`, without their two picture-sized intermediate sums
    /// apiece (an adaptive threshold of a 1 MP view took a third of the time of giving up).
    init(_ image: GrayImage, radius: Int) {
        let r = max(1, min(radius, LocalStats.maximumRadius))
        var mean = [UInt8](repeating: 0, count: image.pixels.count)
        var deviation = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { px in
            mean.withUnsafeMutableBufferPointer { outMean in
                deviation.withUnsafeMutableBufferPointer { outDeviation in
                    LocalStats.squareRoots.withUnsafeBufferPointer { root in
                        LocalStats.sweep(px, width: image.width, height: image.height, radius: r,
                                         mean: outMean, deviation: outDeviation, root: root)
                    }
                }
            }
        }
        self.mean = mean
        self.deviation = deviation
    }

    private static func sweep(_ px: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, radius r: Int,
                              mean: UnsafeMutableBufferPointer<UInt8>, deviation: UnsafeMutableBufferPointer<UInt8>,
                              root: UnsafeBufferPointer<UInt8>) {
        guard w > 0, h > 0 else { return }
        let area = UInt32((2 * r + 1) * (2 * r + 1)), half = area / 2
        // Each column's window: the sum of its values and of their squares.
        let sums = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: w)
        let squares = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: w)
        sums.initialize(repeating: 0)
        squares.initialize(repeating: 0)
        defer {
            sums.deallocate()
            squares.deallocate()
        }
        // Adds (or takes away) row `y`, clamped to the picture, to the column windows.
        @inline(__always) func column(_ y: Int, add: Bool) {
            let start = min(max(y, 0), h - 1) * w
            for x in 0..<w {
                let v = UInt32(px[start + x])
                if add {
                    sums[x] &+= v
                    squares[x] &+= v &* v
                } else {
                    sums[x] &-= v
                    squares[x] &-= v &* v
                }
            }
        }
        for y in -r...r { column(y, add: true) }
        for y in 0..<h {
            var s: UInt32 = 0, q: UInt32 = 0
            for x in -r...r {
                let c = min(max(x, 0), w - 1)
                s &+= sums[c]
                q &+= squares[c]
            }
            let row = y * w
            for x in 0..<w {
                let m = UInt8(min(255, (s &+ half) / area))
                mean[row + x] = m
                deviation[row + x] = root[max(0, Int(q / area) - Int(m) * Int(m))]
                let enter = min(x + r + 1, w - 1), leave = max(x - r, 0)
                s = s &+ sums[enter] &- sums[leave]
                q = q &+ squares[enter] &- squares[leave]
            }
            column(y + r + 1, add: true)
            column(y - r, add: false)
        }
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
