import LommeCore

/// Netpbm grey and colour pictures: PGM (P2 plain, P5 raw) and PPM (P3 plain, P6 raw),
/// with `#` comments in the header and any maxval from 1 to 65535 (two bytes a sample,
/// big-endian, above 255). Only the first picture of a multi-picture file is read.
enum PNMCodec {
    struct Header {
        var plain: Bool  // P2/P3: decimal numbers; P5/P6: raw bytes
        var channels: Int  // 1 grey, 3 RGB
        var width: Int
        var height: Int
        var maxval: Int
        var dataStart: Int  // first byte of the raster
    }

    /// True for "P2", "P3", "P5" or "P6" followed by whitespace or a comment.
    static func matches(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "P") else { return false }
        guard [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "5"), UInt8(ascii: "6")].contains(bytes[1]) else {
            return false
        }
        return isSpace(bytes[2]) || bytes[2] == UInt8(ascii: "#")
    }

    package static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int) {
        let header = try self.header(bytes, name: name)
        return (header.width, header.height)
    }

    static func decode(_ bytes: [UInt8], name: String) throws(LommeError) -> GrayImage {
        let header = try self.header(bytes, name: name)
        let count = header.width * header.height
        let channels = header.channels
        let maxval = UInt32(header.maxval)
        // Samples scaled to 0...255; values above maxval are clamped.
        let table: [UInt8] = maxval <= 255
            ? (0...255).map { UInt8((min(UInt32($0), maxval) * 255 + maxval / 2) / maxval) } : []
        func scaled(_ v: UInt32) -> UInt32 {
            maxval <= 255 ? UInt32(table[Int(min(v, 255))]) : (min(v, maxval) * 255 + maxval / 2) / maxval
        }
        func luma(_ r: UInt32, _ g: UInt32, _ b: UInt32) -> UInt8 {
            UInt8((77 * scaled(r) + 150 * scaled(g) + 29 * scaled(b)) >> 8)
        }
        // A file too short for the pixels it declares is refused before they are allocated
        // (a 100-byte file must not cost 100 MB): a plain sample takes at least one digit
        // and a separator, a raw one its 1 or 2 bytes.
        let available = bytes.count - header.dataStart
        let sampleBytes = header.plain ? 2 : header.maxval > 255 ? 2 : 1
        if available < count * channels * sampleBytes - (header.plain ? 1 : 0) {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "the file ends before the \(count) pixels it declares")
        }
        var pixels = [UInt8](repeating: 0, count: count)
        if header.plain {
            var cursor = header.dataStart
            var sample = [UInt32](repeating: 0, count: channels)
            for i in 0..<count {
                for c in 0..<channels {
                    guard let value = try number(bytes, &cursor, name: name, what: "pixel value") else {
                        throw ImageLimits.damaged(name: name, library: "PNM", detail: "the file ends after \(i) of \(count) pixels")
                    }
                    sample[c] = UInt32(min(value, 65_535))
                }
                pixels[i] = channels == 1 ? UInt8(scaled(sample[0])) : luma(sample[0], sample[1], sample[2])
            }
        } else {
            let size = sampleBytes
            if channels == 1 && maxval == 255 {  // the common case: the raster is the picture
                let start = header.dataStart
                return GrayImage(width: header.width, height: header.height, pixels: Array(bytes[start..<(start + count)]))
            }
            bytes.withUnsafeBufferPointer { data in
                pixels.withUnsafeMutableBufferPointer { out in
                    var s = header.dataStart
                    func next() -> UInt32 {
                        defer { s += size }
                        return size == 1 ? UInt32(data[s]) : UInt32(data[s]) << 8 | UInt32(data[s + 1])
                    }
                    for i in 0..<count {
                        if channels == 1 {
                            out[i] = UInt8(scaled(next()))
                        } else {
                            let r = next(), g = next(), b = next()
                            out[i] = luma(r, g, b)
                        }
                    }
                }
            }
        }
        return GrayImage(width: header.width, height: header.height, pixels: pixels)
    }

    static func header(_ bytes: [UInt8], name: String) throws(LommeError) -> Header {
        guard matches(bytes) else {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "bad magic number")
        }
        let kind = bytes[1]
        var cursor = 2
        guard let width = try number(bytes, &cursor, name: name, what: "width"),
              let height = try number(bytes, &cursor, name: name, what: "height"),
              let maxval = try number(bytes, &cursor, name: name, what: "maxval") else {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "the header ends too soon")
        }
        guard (1...65_535).contains(maxval) else {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "maxval \(maxval) is not 1 to 65535")
        }
        try ImageLimits.check(width: width, height: height, name: name)
        // Exactly one whitespace byte separates the header from the raster.
        guard cursor < bytes.count, isSpace(bytes[cursor]) else {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "no pixel data after the header")
        }
        return Header(
            plain: kind == UInt8(ascii: "2") || kind == UInt8(ascii: "3"),
            channels: kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6") ? 3 : 1,
            width: width, height: height, maxval: maxval, dataStart: cursor + 1)
    }

    /// The next decimal number after whitespace and comments; nil at the end of the file.
    /// Numbers too long to mean anything are clamped to a value the limits refuse.
    private static func number(_ bytes: [UInt8], _ cursor: inout Int, name: String, what: String) throws(LommeError) -> Int? {
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if isSpace(byte) {
                cursor += 1
            } else if byte == UInt8(ascii: "#") {
                while cursor < bytes.count, bytes[cursor] != 0x0A, bytes[cursor] != 0x0D { cursor += 1 }
            } else {
                break
            }
        }
        guard cursor < bytes.count else { return nil }
        guard isDigit(bytes[cursor]) else {
            throw ImageLimits.damaged(name: name, library: "PNM", detail: "expected a number for the \(what)")
        }
        var value = 0
        while cursor < bytes.count, isDigit(bytes[cursor]) {
            value = min(value * 10 + Int(bytes[cursor] - UInt8(ascii: "0")), 1 << 40)
            cursor += 1
        }
        return value
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

extension PNMCodec: ImageCodec {
    package static let formatName = "PGM/PPM"
    package static func sniff(_ bytes: [UInt8]) -> Bool { matches(bytes) }
    package static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage {
        try decode(bytes, name: name)
    }
}

extension ImageLoader.Format {
    package static let pnm = ImageLoader.Format(PNMCodec.self)
}
