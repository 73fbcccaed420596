import LommeImages

/// How a pixel's threshold is made from the 5×5 blocks around its own.
enum BlockThreshold: Sendable {
    /// The mean of the blocks' levels (zxing's HybridBinarizer).
    case mean
    /// Halfway between the darkest and the lightest pixel of the 25 blocks, or nothing dark where
    /// they differ by less than `GrayImage.blockContrast`.
    case midrange
}

/// A two-level picture made block by block, cheap enough for a whole 12 MP photo.
extension GrayImage {
    // MARK: Tuning

    /// Block side in pixels.
    static let blockSide = 8
    /// Blocks either way whose levels make a pixel's threshold (2: a 5×5 neighbourhood).
    static let blockReach = 2
    /// A block whose darkest and lightest pixels differ by less than this holds no edge.
    static let blockContrast = 24

    /// Blocks of this side (all but those cut by the right or bottom edge) are read and written 8 pixels at a time.
    static let simdSide = 8

    /// The sum, darkest and lightest of the 8×8 pixels from `start`, rows `rowBytes` apart.
    @inline(__always)
    static func blockStatistics(_ start: UnsafeRawPointer, rowBytes: Int) -> (sum: Int, lo: Int, hi: Int) {
        var lo = start.loadUnaligned(as: SIMD8<UInt8>.self), hi = lo
        var sum = SIMD8<UInt16>(truncatingIfNeeded: lo)
        for y in 1..<simdSide {
            let v = start.loadUnaligned(fromByteOffset: y * rowBytes, as: SIMD8<UInt8>.self)
            lo = pointwiseMin(lo, v)
            hi = pointwiseMax(hi, v)
            sum &+= SIMD8<UInt16>(truncatingIfNeeded: v)
        }
        return (Int(sum.wrappedSum()), Int(lo.min()), Int(hi.max()))
    }

    func blockBinarized(_ rule: BlockThreshold = .mean) -> GrayImage {
        let side = Self.blockSide
        let columns = (width + side - 1) / side, rows = (height + side - 1) / side
        guard columns > 0, rows > 0 else { return self }
        // Each block's level for `.mean`; its darkest and lightest pixel for `.midrange`.
        var levels = [Int32](), lows = [UInt8](), highs = [UInt8]()
        if rule == .midrange {
            lows = [UInt8](repeating: 0, count: columns * rows)
            highs = lows
        } else {
            levels = [Int32](repeating: 0, count: columns * rows)
        }
        pixels.withUnsafeBufferPointer { px in
            for by in 0..<rows {
                let y0 = by * side, y1 = min(height, y0 + side)
                for bx in 0..<columns {
                    let x0 = bx * side, x1 = min(width, x0 + side)
                    var sum = 0, lo = 255, hi = 0
                    if x1 - x0 == Self.simdSide && y1 - y0 == Self.simdSide, let base = px.baseAddress {
                        // A whole block: its eight rows eight pixels at a time.
                        (sum, lo, hi) = Self.blockStatistics(UnsafeRawPointer(base + y0 * width + x0), rowBytes: width)
                    } else {
                        for y in y0..<y1 {
                            let row = y * width
                            for x in x0..<x1 {
                                let v = Int(px[row + x])
                                sum += v
                                if v < lo { lo = v }
                                if v > hi { hi = v }
                            }
                        }
                    }
                    if rule == .midrange {
                        lows[by * columns + bx] = UInt8(lo)
                        highs[by * columns + bx] = UInt8(hi)
                        continue
                    }
                    var level = sum / ((y1 - y0) * (x1 - x0))
                    if hi - lo <= Self.blockContrast {
                        // Flat: light, unless the blocks above and to the left (already done)
                        // say the area is darker (a flat block inside a big dark module).
                        level = lo / 2
                        if by > 0 && bx > 0 {
                            let neighbours = (Int(levels[(by - 1) * columns + bx]) + 2 * Int(levels[by * columns + bx - 1])
                                + Int(levels[(by - 1) * columns + bx - 1])) / 4
                            if lo < neighbours { level = neighbours }
                        }
                    }
                    levels[by * columns + bx] = Int32(level)
                }
            }
        }
        var output = [UInt8](repeating: 255, count: pixels.count)
        let reach = Self.blockReach, area = Int32((2 * reach + 1) * (2 * reach + 1))
        pixels.withUnsafeBufferPointer { px in
            output.withUnsafeMutableBufferPointer { out in
                for by in 0..<rows {
                    let cy = min(max(by, reach), max(reach, rows - 1 - reach))
                    for bx in 0..<columns {
                        let cx = min(max(bx, reach), max(reach, columns - 1 - reach))
                        let threshold: Int
                        if rule == .midrange {
                            var lo: UInt8 = 255, hi: UInt8 = 0
                            for yy in (cy - reach)...(cy + reach) {
                                let r = min(max(yy, 0), rows - 1) * columns
                                for xx in (cx - reach)...(cx + reach) {
                                    let i = r + min(max(xx, 0), columns - 1)
                                    lo = Swift.min(lo, lows[i])
                                    hi = Swift.max(hi, highs[i])
                                }
                            }
                            // Too flat to hold an edge: left light (the output's fill).
                            if Int(hi) - Int(lo) < Self.blockContrast { continue }
                            threshold = (Int(lo) + Int(hi)) / 2
                        } else {
                            var sum: Int32 = 0
                            for yy in (cy - reach)...(cy + reach) {
                                let r = min(max(yy, 0), rows - 1) * columns
                                for xx in (cx - reach)...(cx + reach) { sum += levels[r + min(max(xx, 0), columns - 1)] }
                            }
                            threshold = Int(sum / area)
                        }
                        let y0 = by * side, y1 = min(height, y0 + side), x0 = bx * side, x1 = min(width, x0 + side)
                        if x1 - x0 == Self.simdSide, let from = px.baseAddress, let to = out.baseAddress {
                            // Eight pixels at a time: dark (0) where at most the threshold.
                            let t = SIMD8<UInt8>(repeating: UInt8(clamping: threshold))
                            let light = SIMD8<UInt8>(repeating: 255)
                            for y in y0..<y1 {
                                let v = UnsafeRawPointer(from + y * width + x0).loadUnaligned(as: SIMD8<UInt8>.self)
                                UnsafeMutableRawPointer(to + y * width + x0).storeBytes(of: light.replacing(with: 0, where: v .<= t), as: SIMD8<UInt8>.self)
                            }
                        } else {
                            for y in y0..<y1 {
                                let row = y * width
                                // Every pixel written, without a branch (LocalStats.Threshold says why).
                                for x in x0..<x1 { out[row + x] = Int(px[row + x]) <= threshold ? 0 : 255 }
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}
