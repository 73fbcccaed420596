import Glibc

/// Turns the raw bytes of a QR code into text.
///
/// zbar tries Shift_JIS and ISO-8859-1 before UTF-8 and so garbles æøå; we read raw
/// bytes and decide ourselves: valid UTF-8 first (what `qrencode` and every modern
/// generator writes), then Shift_JIS (Japanese codes, Kanji mode), then ISO-8859-1,
/// which the QR standard names as the default and which can decode any byte.
package enum QRText {
    package static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        if let text = convert(bytes, from: "SHIFT_JIS") {
            return text
        }
        return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    }

    /// Converts through glibc's iconv; nil if the bytes are not valid in `charset`.
    static func convert(_ bytes: [UInt8], from charset: String) -> String? {
        let converter = iconv_open("UTF-8", charset)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer = outBuffer.baseAddress
                var outLeft = outBuffer.count
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                guard result != -1, inLeft == 0 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let produced else { return nil }
        return String(validating: output[0..<produced].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
