/// Quarter turns and mirror images, for EXIF orientation and for the scanner's
/// benchmark (a QR code photographed at every angle).
extension GrayImage {
    /// Turned a quarter turn clockwise: the left column becomes the top row.
    package func rotated90() -> GrayImage {
        remapped(width: height, height: width) { x, y in (y, height - 1 - x) }
    }

    /// Turned upside down.
    package func rotated180() -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: self.pixels.count)
        self.pixels.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                let last = input.count - 1
                for i in 0..<input.count { output[i] = input[last - i] }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Turned a quarter turn anticlockwise: the right column becomes the top row.
    package func rotated270() -> GrayImage {
        remapped(width: height, height: width) { x, y in (width - 1 - y, x) }
    }

    /// Turned `quarterTurns` quarter turns clockwise (negative: anticlockwise; any integer).
    package func rotated(by quarterTurns: Int) -> GrayImage {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: return rotated90()
        case 2: return rotated180()
        case 3: return rotated270()
        default: return self
        }
    }

    /// Mirrored left to right.
    package func mirrored() -> GrayImage {
        var out = self
        out.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                var left = y * width, right = left + width - 1
                while left < right {
                    pixels.swapAt(left, right)
                    left += 1
                    right -= 1
                }
            }
        }
        return out
    }

    /// Mirrored top to bottom.
    package func flipped() -> GrayImage {
        remapped(width: width, height: height) { x, y in (x, height - 1 - y) }
    }

    /// Rows become columns: mirrored along the diagonal from the top-left corner.
    package func transposed() -> GrayImage {
        remapped(width: height, height: width) { x, y in (y, x) }
    }

    /// The picture a viewer shows for a photo stored with EXIF orientation `exif`
    /// (1–8; anything else is taken as 1, "stored upright").
    package func applyingEXIFOrientation(_ exif: Int) -> GrayImage {
        switch exif {
        case 2: return mirrored()
        case 3: return rotated180()
        case 4: return flipped()
        case 5: return transposed()  // mirrored, then a quarter turn anticlockwise
        case 6: return rotated90()
        case 7: return mirrored().rotated90()  // mirrored, then a quarter turn clockwise
        case 8: return rotated270()
        default: return self
        }
    }

    /// A new `width`×`height` picture whose pixel (x, y) is this one's `source(x, y)`.
    private func remapped(width newWidth: Int, height newHeight: Int,
                          _ source: (Int, Int) -> (Int, Int)) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: newWidth * newHeight)
        let oldWidth = width
        self.pixels.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                var o = 0
                for y in 0..<newHeight {
                    for x in 0..<newWidth {
                        let (sx, sy) = source(x, y)
                        output[o] = input[sy * oldWidth + sx]
                        o += 1
                    }
                }
            }
        }
        return GrayImage(width: newWidth, height: newHeight, pixels: pixels)
    }
}
