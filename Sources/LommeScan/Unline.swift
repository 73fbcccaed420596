import LommeImages

/// Thin light lines taken out of a picture: a terminal whose font does not fill its line
/// height draws a light line between text rows, through every second module row of a code
/// printed in half blocks (two module rows a line), and across the dark finders. Photographed,
/// the line is a pixel or two: enough to move a finder's centre found in the binarised view by
/// a module and to flip the samples of the module rows it crosses.
///
/// The grey-level opening (the darkest pixel of each `lineSpan` neighbours, then the lightest
/// of those) keeps every light area at least `lineSpan` pixels across in that direction as it
/// is and darkens narrower ones to their surroundings. Opened down and across and the darker of
/// the two kept, a light line of either direction (the picture may be turned) is gone, and
/// light modules of `lineSpan` pixels or more keep their size and place.
extension GrayImage {
    // MARK: Tuning

    /// Light areas narrower than this are taken out: the lines a terminal leaves between
    /// text rows are one or two pixels in the working view of the `g-term` set's photos,
    /// whose modules are three or more. (A code of narrower modules loses its light ones
    /// here: the passes before, on the views as they are, are the ones that read it.)
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
                // Each neighbour at a time, along whole rows: the inner loops run over
                // contiguous memory (vectorised), and a neighbour outside the picture is skipped.
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
