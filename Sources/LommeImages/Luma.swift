/// Turns decoded 8-bit pixels (grey, grey+alpha, RGB or RGBA, interleaved) into grey:
/// luma (77R + 150G + 29B) >> 8, then any transparency composited over white, the way
/// a QR code on a transparent background is shown on screen.
enum Luma {
    /// - Parameters:
    ///   - source: the decoded rows; `stride` bytes apart, top row first.
    ///   - channels: 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA).
    ///   - premultiplied: colour already multiplied by alpha (some HEIC files).
    static func gray(
        from source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int,
        channels: Int, premultiplied: Bool = false
    ) -> GrayImage {
        precondition(channels >= 1 && channels <= 4 && stride >= width * channels)
        precondition(height == 0 || source.count >= (height - 1) * stride + width * channels)
        var pixels = [UInt8](repeating: 255, count: width * height)
        let hasAlpha = channels == 2 || channels == 4
        pixels.withUnsafeMutableBufferPointer { out in
            // RGB without alpha, what most photos and screenshots decode to, on its own loop (wrapping
            // arithmetic: a pixel's sum is at most 256 × 255, every index inside the checked bounds).
            if channels == 3 {
                for y in 0..<height {
                    var s = y &* stride
                    for o in y &* width..<(y &+ 1) &* width {
                        let sum = 77 &* UInt32(source[s]) &+ 150 &* UInt32(source[s &+ 1]) &+ 29 &* UInt32(source[s &+ 2])
                        out[o] = UInt8(truncatingIfNeeded: sum >> 8)
                        s &+= 3
                    }
                }
                return
            }
            for y in 0..<height {
                var s = y * stride
                var o = y * width
                for _ in 0..<width {
                    var value: UInt32
                    if channels >= 3 {
                        value = (77 * UInt32(source[s]) + 150 * UInt32(source[s + 1]) + 29 * UInt32(source[s + 2])) >> 8
                    } else {
                        value = UInt32(source[s])
                    }
                    if hasAlpha {
                        let alpha = UInt32(source[s + channels - 1])
                        if premultiplied {
                            value = min(255, value + 255 - alpha)
                        } else {
                            value = (value * alpha + 255 * (255 - alpha) + 127) / 255
                        }
                    }
                    out[o] = UInt8(truncatingIfNeeded: value)
                    s += channels
                    o += 1
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}
