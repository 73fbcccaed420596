/// Reads the one EXIF field lomme-vault needs: the orientation of a JPEG photo.
///
/// Phones store the sensor's pixels as they come and note in EXIF (APP1 "Exif\0\0",
/// a little TIFF file, tag 0x0112) how to turn them upright. Anything missing,
/// malformed or out of range means 1, "already upright": a bad EXIF block must never
/// make a readable photo unreadable.
enum EXIF {
    /// The orientation (1–8) of a JPEG file, 1 if it has none.
    static func orientation(ofJPEG bytes: [UInt8]) -> Int {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 1 }
        var i = 2
        // Walk the marker segments up to the start of the image data.
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else { return 1 }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return 1 }  // image data or end: no EXIF before it
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { return 1 }
            let body = (i + 4)..<(i + 2 + length)
            if marker == 0xE1, body.count >= 6,
               bytes[body.lowerBound..<(body.lowerBound + 6)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                return orientation(tiff: bytes[(body.lowerBound + 6)..<body.upperBound])
            }
            i += 2 + length
        }
        return 1
    }

    /// The orientation tag of IFD0 of a TIFF structure, either byte order.
    static func orientation(tiff: ArraySlice<UInt8>) -> Int {
        let base = tiff.startIndex
        let count = tiff.count
        guard count >= 8 else { return 1 }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true  // "II"
        case (0x4D, 0x4D): little = false  // "MM"
        default: return 1
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= count else { return nil }
            let a = Int(tiff[base + offset]), b = Int(tiff[base + offset + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(little ? offset : offset + 2), let high = u16(little ? offset + 2 : offset) else {
                return nil
            }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return 1 }
        for n in 0..<entries {
            let entry = ifd + 2 + n * 12
            guard let tag = u16(entry), let type = u16(entry + 2) else { return 1 }
            guard tag == 0x0112 else { continue }
            let value: Int?
            switch type {
            case 3: value = u16(entry + 8)  // SHORT, the standard type
            case 4: value = u32(entry + 8)  // LONG, seen from some writers
            default: value = nil
            }
            guard let value, (1...8).contains(value) else { return 1 }
            return value
        }
        return 1
    }
}
