import LommeImages

/// Means and spreads over a square window round every pixel: for adaptive binarisation, normalisation, sharpening.
struct LocalStats {
    /// The largest window radius: the running sums of squares overflow `UInt32` beyond it.
    static let maximumRadius = 100

    /// Mean of the window around each pixel.
    var mean: [UInt8]
    /// Standard deviation of the window around each pixel.
    var deviation: [UInt8]

    /// Whole square roots: a window's deviation from its mean of squares less its squared mean (whole, ≤ 255²).
    static let squareRoots: [UInt8] = (0...255 * 255).map { UInt8(min(255, Double($0).squareRoot())) }

    /// Mean and deviation in one sweep down the picture.
    init(_ image: GrayImage, radius: Int) {
        var mean = [UInt8](repeating: 0, count: image.pixels.count)
        var deviation = [UInt8](repeating: 0, count: image.pixels.count)
        mean.withUnsafeMutableBufferPointer { outMean in
            deviation.withUnsafeMutableBufferPointer { outDeviation in
                LocalStats.squareRoots.withUnsafeBufferPointer { root in
                    guard let m = outMean.baseAddress, let d = outDeviation.baseAddress, let root = root.baseAddress else { return }
                    var sink = Both(mean: m, deviation: d, root: root)
                    LocalStats.sweep(image, radius: radius, into: &sink)
                }
            }
        }
        self.mean = mean
        self.deviation = deviation
    }

    /// Box mean alone (rounded), edge pixels repeated beyond the border so every window has the same area.
    static func boxMean(_ image: GrayImage, radius: Int) -> [UInt8] {
        var mean = [UInt8](repeating: 0, count: image.pixels.count)
        mean.withUnsafeMutableBufferPointer { out in
            guard let m = out.baseAddress else { return }
            var sink = MeanOnly(mean: m)
            sweep(image, radius: radius, into: &sink)
        }
        return mean
    }

    /// Each pixel of `image` dark (0) where it is more than `offset` below its window's mean and
    /// the window's deviation is at least `minContrast`, else light (255).
    static func thresholded(_ image: GrayImage, radius: Int, offset: Int, minContrast: Int) -> [UInt8] {
        var output = [UInt8](repeating: 255, count: image.pixels.count)
        output.withUnsafeMutableBufferPointer { out in
            image.pixels.withUnsafeBufferPointer { px in
                guard let o = out.baseAddress, let p = px.baseAddress else { return }
                // deviation ≥ c exactly when the whole root of the variance is, that is when the
                // variance is at least c² (the deviation is the table's whole root, capped at 255).
                let least = minContrast <= 0 ? Int.min : minContrast > 255 ? Int.max : minContrast * minContrast
                var sink = Threshold(output: o, pixels: p, offset: offset, leastVariance: least)
                sweep(image, radius: radius, into: &sink)
            }
        }
        return output
    }

    /// `thresholded(image, radius: radius, offset: 0, minContrast: 0)` for small pictures (the grid
    /// sampler's module grids, thousands a scan): each pixel dark (0) where it is below its window's
    /// rounded mean, from the window's sum without a division: p < ⌊(sum + ½area)/area⌋ exactly when
    /// (p + 1)·area ≤ sum + ½area. Windows beyond the border repeat the edge pixels, as the sweep's do.
    static func belowMean(_ image: GrayImage, radius: Int) -> [UInt8] {
        let w = image.width, h = image.height, r = max(1, min(radius, maximumRadius))
        guard w > 0, h > 0 else { return [] }
        let area = (2 * r + 1) * (2 * r + 1), half = area / 2
        // Each pixel's row of the window (a sum sliding along the row), then a sum of those sliding down.
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: w * h + w) { scratch in
            let across = scratch.baseAddress!, down = across + w * h
            return [UInt8](unsafeUninitializedCapacity: w * h) { out, count in
                image.pixels.withUnsafeBufferPointer { px in
                    @inline(__always) func column(_ x: Int) -> Int { min(max(x, 0), w &- 1) }
                    @inline(__always) func row(_ y: Int) -> Int { min(max(y, 0), h &- 1) &* w }
                    for y in 0..<h {
                        let line = y &* w
                        var sum = 0
                        for dx in -r...r { sum &+= Int(px[line &+ column(dx)]) }
                        for x in 0..<w {
                            across[line &+ x] = sum
                            sum &+= Int(px[line &+ column(x &+ r &+ 1)]) &- Int(px[line &+ column(x &- r)])
                        }
                    }
                    for x in 0..<w { down[x] = 0 }
                    for dy in -r...r {
                        let line = row(dy)
                        for x in 0..<w { down[x] &+= across[line &+ x] }
                    }
                    for y in 0..<h {
                        let line = y &* w, enter = row(y &+ r &+ 1), leave = row(y &- r)
                        for x in 0..<w {
                            let below = (Int(px[line &+ x]) &+ 1) &* area <= down[x] &+ half
                            out[line &+ x] = below ? 0 : 255
                            down[x] &+= across[enter &+ x] &- across[leave &+ x]
                        }
                    }
                }
                count = w * h
            }
        }
    }

    /// What the sweep does with each pixel's window.
    fileprivate protocol Sink {
        static var spread: Bool { get }
        mutating func put(_ index: Int, mean: UInt32, variance: Int)
    }

    private struct MeanOnly: Sink {
        let mean: UnsafeMutablePointer<UInt8>
        static var spread: Bool { false }
        @inline(__always) mutating func put(_ index: Int, mean m: UInt32, variance: Int) {
            mean[index] = UInt8(truncatingIfNeeded: m)
        }
    }

    private struct Both: Sink {
        let mean: UnsafeMutablePointer<UInt8>
        let deviation: UnsafeMutablePointer<UInt8>
        let root: UnsafePointer<UInt8>
        static var spread: Bool { true }
        @inline(__always) mutating func put(_ index: Int, mean m: UInt32, variance: Int) {
            mean[index] = UInt8(truncatingIfNeeded: m)
            deviation[index] = root[max(0, variance)]
        }
    }

    private struct Threshold: Sink {
        let output: UnsafeMutablePointer<UInt8>
        let pixels: UnsafePointer<UInt8>
        let offset: Int
        let leastVariance: Int
        static var spread: Bool { true }
        @inline(__always) mutating func put(_ index: Int, mean m: UInt32, variance: Int) {
            // Without a branch: on a noisy picture a pixel's side is a coin toss, and mispredictions cost more.
            let spread = variance >= leastVariance ? 1 : 0, dark = Int(pixels[index]) < Int(m) - offset ? 1 : 0
            output[index] = UInt8(truncatingIfNeeded: 255 &- 255 &* (spread & dark))
        }
    }

    /// Hands every pixel of `image` its window's statistics, row by row.
    private static func sweep<S: Sink>(_ image: GrayImage, radius: Int, into sink: inout S) {
        let w = image.width, h = image.height, r = max(1, min(radius, maximumRadius))
        guard w > 0, h > 0 else { return }
        let area = UInt32((2 * r + 1) * (2 * r + 1)), half = area / 2
        // n / area for any 32-bit n as the high word of n times this (Lemire, Kaser and Kurz,
        // "Faster remainder by direct computation", 2019).
        let inverse = UInt64.max / UInt64(area) &+ 1
        @inline(__always) func divided(_ n: UInt32) -> UInt32 {
            UInt32(truncatingIfNeeded: inverse.multipliedFullWidth(by: UInt64(n)).high)
        }
        // Each column's window: the sum of its values and of their squares.
        let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        let squares = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        sums.initialize(repeating: 0, count: w)
        squares.initialize(repeating: 0, count: w)
        defer {
            sums.deallocate()
            squares.deallocate()
        }
        image.pixels.withUnsafeBufferPointer { buffer in
            guard let px = buffer.baseAddress else { return }
            @inline(__always) func row(_ y: Int) -> UnsafePointer<UInt8> { px + min(max(y, 0), h - 1) * w }
            // The first window of every column: rows -r…r, clamped to the picture.
            for y in -r...r {
                let add = row(y)
                for x in 0..<w {
                    let v = UInt32(add[x])
                    sums[x] = sums[x] &+ v
                    squares[x] = squares[x] &+ v &* v
                }
            }
            for y in 0..<h {
                var s: UInt32 = 0, q: UInt32 = 0
                for x in -r...r {
                    let c = min(max(x, 0), w - 1)
                    s = s &+ sums[c]
                    q = q &+ squares[c]
                }
                let start = y * w
                // The window slides along the row.
                @inline(__always) func step(_ x: Int, enter: Int, leave: Int) {
                    let m = divided(s &+ half)
                    sink.put(start &+ x, mean: m, variance: S.spread ? Int(divided(q)) &- Int(m) &* Int(m) : 0)
                    s = s &+ sums[enter] &- sums[leave]
                    if S.spread { q = q &+ squares[enter] &- squares[leave] }
                }
                let middle = max(0, w - r - 1)  // below it x + r + 1 is in the picture
                let left = min(r, middle)       // from it (to `middle`) x - r is
                for x in 0..<left { step(x, enter: x + r + 1, leave: 0) }
                for x in left..<middle { step(x, enter: x &+ r &+ 1, leave: x &- r) }
                for x in middle..<w { step(x, enter: w - 1, leave: max(x - r, 0)) }
                // The windows move down a row: row y + r + 1 comes in, row y - r goes out.
                let add = row(y + r + 1), remove = row(y - r)
                if S.spread {
                    for x in 0..<w {
                        let a = UInt32(add[x]), b = UInt32(remove[x])
                        sums[x] = sums[x] &+ a &- b
                        squares[x] = squares[x] &+ a &* a &- b &* b
                    }
                } else {
                    for x in 0..<w { sums[x] = sums[x] &+ UInt32(add[x]) &- UInt32(remove[x]) }
                }
            }
        }
    }
}
