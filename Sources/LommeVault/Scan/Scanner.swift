// TEMPORARY SHIM, to be replaced by the real scanner when it lands on main.
// Same API as the real one; it reads only binary PGM/PPM, enough for the vault's tests.
import Glibc

public struct ScanOptions: Sendable {
    public init() {}
}

public struct Decoded: Sendable, Equatable {
    public var bytes: [UInt8]
    public var text: String
    public var pass: String
}

public enum Scanner {
    public static func scan(path: String, options: ScanOptions = .init(), accept: (Decoded) -> Bool) throws(LommeError) -> [Decoded] {
        guard let file = fopen(path, "rb") else {
            throw LommeError.image("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            data += chunk[0..<count]
            if data.count > 64 << 20 { throw LommeError.image("\(path) is too large") }
        }
        guard let image = netpbm(data) else { throw LommeError.image("\(path) is not a PGM/PPM image (this build reads no other format yet)") }
        let found = ZBarScanner().scan(image).map { Decoded(bytes: $0.bytes, text: QRText.decode($0.bytes), pass: "plain") }
        guard !found.isEmpty else { throw LommeError.image("no QR code found in \(path)") }
        return found.filter(accept).isEmpty ? found : found.filter(accept)
    }

    static func netpbm(_ data: [UInt8]) -> GrayImage? {
        var index = 0
        func token() -> Int? {
            while index < data.count {
                if data[index] == UInt8(ascii: "#") { while index < data.count && data[index] != 0x0A { index += 1 } }
                else if [0x20, 0x0A, 0x0D, 0x09].contains(data[index]) { index += 1 } else { break }
            }
            var value = 0
            var digits = 0
            while index < data.count, (0x30...0x39).contains(data[index]) {
                value = value * 10 + Int(data[index] - 0x30)
                index += 1
                digits += 1
                if value > 1 << 20 { return nil }
            }
            return digits > 0 ? value : nil
        }
        guard data.count > 2, data[0] == UInt8(ascii: "P"), data[1] == UInt8(ascii: "5") || data[1] == UInt8(ascii: "6") else { return nil }
        let channels = data[1] == UInt8(ascii: "5") ? 1 : 3
        index = 2
        guard let width = token(), let height = token(), let maxValue = token(), maxValue == 255,
              width > 0, height > 0, width * height <= 100_000_000 else { return nil }
        index += 1
        guard data.count - index >= width * height * channels else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            if channels == 1 { pixels[i] = data[index + i] } else {
                let p = index + 3 * i
                pixels[i] = UInt8((Int(data[p]) * 299 + Int(data[p + 1]) * 587 + Int(data[p + 2]) * 114) / 1000)
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}
