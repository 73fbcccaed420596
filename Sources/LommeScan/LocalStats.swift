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
    /// window (values and squares), added along each row. The same numbers as two separable
    /// box sums (of values and of squares, the mean rounded, the mean of squares truncated)
    /// without their picture-sized intermediate sums (an adaptive threshold of a 1 MP view
    /// took a third of the time of giving up so).
    init(_ image: GrayImage, radius: Int) {
        var mean = [UInt8](repeating: 0, count: image.pixels.count)
        var deviation = [UInt8](repeating: 0, count: image.pixels.count)
        mean.withUnsafeMutableBufferPointer { outMean in
            deviation.withUnsafeMutableBufferPointer { outDeviation in
                LocalStats.sweep(image, radius: radius, mean: outMean, deviation: outDeviation)
            }
        }
        self.mean = mean
        self.deviation = deviation
    }

    /// Box mean alone (rounded), edge pixels repeated beyond the border so that every window
    /// has the same area.
    static func boxMean(_ image: GrayImage, radius: Int) -> [UInt8] {
        var mean = [UInt8](repeating: 0, count: image.pixels.count)
        mean.withUnsafeMutableBufferPointer { out in
            sweep(image, radius: radius, mean: out, deviation: nil)
        }
        return mean
    }

    /// Fills `mean` and, unless nil, `deviation` for every pixel of `image`.
    private static func sweep(_ image: GrayImage, radius: Int, mean: UnsafeMutableBufferPointer<UInt8>,
                              deviation: UnsafeMutableBufferPointer<UInt8>?) {
        let w = image.width, h = image.height, r = max(1, min(radius, maximumRadius))
        guard w > 0, h > 0 else { return }
        let area = UInt32((2 * r + 1) * (2 * r + 1)), half = area / 2
        let spread = deviation != nil
        // Each column's window: the sum of its values and of their squares.
        let sums = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: w)
        let squares = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: w)
        sums.initialize(repeating: 0)
        squares.initialize(repeating: 0)
        defer {
            sums.deallocate()
            squares.deallocate()
        }
        image.pixels.withUnsafeBufferPointer { px in
            squareRoots.withUnsafeBufferPointer { root in
                // Adds (or takes away) row `y`, clamped to the picture, to the column windows.
                @inline(__always) func column(_ y: Int, add: Bool) {
                    let start = min(max(y, 0), h - 1) * w
                    for x in 0..<w {
                        let v = UInt32(px[start + x])
                        sums[x] = add ? sums[x] &+ v : sums[x] &- v
                        if spread { squares[x] = add ? squares[x] &+ v &* v : squares[x] &- v &* v }
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
                        let enter = min(x + r + 1, w - 1), leave = max(x - r, 0)
                        s = s &+ sums[enter] &- sums[leave]
                        if let deviation {
                            deviation[row + x] = root[max(0, Int(q / area) - Int(m) * Int(m))]
                            q = q &+ squares[enter] &- squares[leave]
                        }
                    }
                    column(y + r + 1, add: true)
                    column(y - r, add: false)
                }
            }
        }
    }
}
