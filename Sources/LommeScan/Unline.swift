import LommeImages

/// Thin light lines taken out of a picture.
extension GrayImage {
    // MARK: Tuning

    /// Light areas narrower than this are taken out.
    static let lineSpan = 3

    /// The picture with light lines narrower than `lineSpan` pixels, down or across, taken out.
    func unlined() -> GrayImage {
        let down = extreme(vertically: true, darkest: true).extreme(vertically: true, darkest: false)
        let across = extreme(vertically: false, darkest: true).extreme(vertically: false, darkest: false)
        var output = [UInt8](repeating: 0, count: pixels.count)
        down.pixels.withUnsafeBufferPointer { a in
            across.pixels.withUnsafeBufferPointer { b in
                output.withUnsafeMutableBufferPointer { out in
                    for i in 0..<out.count { out[i] = Swift.min(a[i], b[i]) }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// Each pixel replaced by the darkest (or lightest) of the `lineSpan` pixels centred on
    /// it down a column (or along a row); at an edge, of those inside the picture.
    func extreme(vertically: Bool, darkest: Bool) -> GrayImage {
        let w = width, h = height, reach = Self.lineSpan / 2
        guard w > 0, h > 0 else { return self }
        var output = pixels
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { out in
                // Each neighbour at a time, along whole rows.
                for y in 0..<h {
                    let row = y * w
                    for offset in -reach...reach where offset != 0 {
                        let from: Int, xs: Range<Int>
                        if vertically {
                            guard (0..<h).contains(y + offset) else { continue }
                            from = row + offset * w
                            xs = 0..<w
                        } else {
                            let first = Swift.max(0, -offset), end = Swift.min(w, w - offset)
                            guard first < end else { continue }
                            from = row + offset
                            xs = first..<end
                        }
                        // Pointers to the two rows (no overflow check on the index sums,
                        // which kept the loops from being vectorised).
                        let target = out.baseAddress! + row, neighbour = src.baseAddress! + from
                        if darkest {
                            for x in xs { target[x] = Swift.min(target[x], neighbour[x]) }
                        } else {
                            for x in xs { target[x] = Swift.max(target[x], neighbour[x]) }
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}
