import LommeImages

/// Changing the size of a picture.
extension GrayImage {
    // MARK: Tuning

    /// `scaled(by:)` leaves a picture alone when the factor is within this of 1, and skips the
    /// bilinear step when what is left after a whole shrink is within `negligibleRest`.
    static let negligibleScale = 0.01
    static let negligibleRest = 0.02

    /// The picture shrunk by a whole `factor`, each pixel a `factor`×`factor` block's mean (no aliasing, fast).
    func shrunk(by factor: Int) -> GrayImage {
        precondition(factor >= 1)
        guard factor > 1 else { return self }
        let outWidth = width / factor, outHeight = height / factor
        guard outWidth > 0, outHeight > 0 else { return self }
        var output = [UInt8](repeating: 0, count: outWidth * outHeight)
        var rowSums = [UInt32](repeating: 0, count: outWidth)
        let area = UInt32(factor * factor), half = area / 2
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                rowSums.withUnsafeMutableBufferPointer { sums in
                    for outY in 0..<outHeight {
                        for x in 0..<outWidth { sums[x] = 0 }
                        for dy in 0..<factor {
                            let row = (outY * factor + dy) * width
                            var x = 0
                            for outX in 0..<outWidth {
                                var sum: UInt32 = 0
                                for _ in 0..<factor {
                                    sum &+= UInt32(source[row + x])
                                    x += 1
                                }
                                sums[outX] &+= sum
                            }
                        }
                        let outRow = outY * outWidth
                        for x in 0..<outWidth { target[outRow + x] = UInt8((sums[x] + half) / area) }
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: output)
    }

    /// The picture resampled to `newWidth`×`newHeight` bilinearly (to enlarge, or shrink by less than two).
    func resampled(width newWidth: Int, height newHeight: Int) -> GrayImage {
        guard newWidth > 0, newHeight > 0, width > 0, height > 0 else { return GrayImage(width: 0, height: 0) }
        if newWidth == width && newHeight == height { return self }
        var output = [UInt8](repeating: 0, count: newWidth * newHeight)
        let scaleX = Double(width) / Double(newWidth), scaleY = Double(height) / Double(newHeight)
        // Source column pairs and 8-bit weights, computed once per column.
        var x0 = [Int](repeating: 0, count: newWidth), wx = [Int](repeating: 0, count: newWidth)
        for x in 0..<newWidth {
            let sx = max(0, min(Double(width - 1), (Double(x) + 0.5) * scaleX - 0.5))
            x0[x] = min(Int(sx), width - 2 < 0 ? 0 : width - 2)
            wx[x] = Int(((sx - Double(x0[x])) * 256).rounded())
        }
        let w = width, h = height
        let x1 = x0.map { min($0 + 1, w - 1) }
        // Each source row interpolated across once for every output row it serves (enlarged rows share them).
        var across = [[Int]](repeating: [], count: 2), acrossRow = [-1, -1]
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                func interpolated(_ row: Int, into slot: Int) {
                    if acrossRow[slot] == row { return }
                    if acrossRow[1 - slot] == row { across[slot] = across[1 - slot]; acrossRow[slot] = row; return }
                    let start = row * w
                    across[slot] = (0..<newWidth).map { x in
                        Int(source[start + x0[x]]) * (256 - wx[x]) + Int(source[start + x1[x]]) * wx[x]
                    }
                    acrossRow[slot] = row
                }
                for y in 0..<newHeight {
                    let sy = max(0, min(Double(h - 1), (Double(y) + 0.5) * scaleY - 0.5))
                    let y0 = min(Int(sy), max(0, h - 2))
                    let y1 = min(y0 + 1, h - 1)
                    let wy = Int(((sy - Double(y0)) * 256).rounded())
                    interpolated(y0, into: 0)
                    interpolated(y1, into: 1)
                    let outRow = y * newWidth
                    across[0].withUnsafeBufferPointer { top in
                        across[1].withUnsafeBufferPointer { bottom in
                            for x in 0..<newWidth {
                                target[outRow + x] = UInt8((top[x] * (256 - wy) + bottom[x] * wy + 32768) >> 16)
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(width: newWidth, height: newHeight, pixels: output)
    }

    /// The picture scaled by `factor` (area filter for a shrink's whole part, bilinear for the rest).
    func scaled(by factor: Double) -> GrayImage {
        guard factor > 0, abs(factor - 1) > Self.negligibleScale else { return self }
        var image = self
        var remaining = factor
        if factor < 1 {
            let whole = Int(1 / factor)
            if whole >= 2 {
                image = image.shrunk(by: whole)
                remaining = factor * Double(whole)
            }
        }
        if abs(remaining - 1) < Self.negligibleRest { return image }
        return image.resampled(width: max(1, Int((Double(image.width) * remaining).rounded())),
                               height: max(1, Int((Double(image.height) * remaining).rounded())))
    }

    /// The picture scaled so that its longer side is at most `side` pixels.
    func fitting(longSide side: Int) -> GrayImage {
        let long = max(width, height)
        guard long > side else { return self }
        return scaled(by: Double(side) / Double(long))
    }

    /// The picture with a `border` of `fill` around it.
    func padded(_ border: Int, fill: UInt8 = 255) -> GrayImage {
        guard border > 0 else { return self }
        let newWidth = width + 2 * border, newHeight = height + 2 * border
        var output = [UInt8](repeating: fill, count: newWidth * newHeight)
        output.withUnsafeMutableBufferPointer { target in
            pixels.withUnsafeBufferPointer { source in
                for y in 0..<height where width > 0 {
                    let src = y * width, dst = (y + border) * newWidth + border
                    (target.baseAddress! + dst).update(from: source.baseAddress! + src, count: width)
                }
            }
        }
        return GrayImage(width: newWidth, height: newHeight, pixels: output)
    }
}
