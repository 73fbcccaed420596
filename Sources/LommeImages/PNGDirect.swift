import CDeflate
import CLazyDeflate

/// The PNG most pictures are — 8 bits a sample, grey, grey+alpha, RGB or RGBA, not interlaced,
/// no palette, no transparency chunk, no colour profile and sRGB's gamma or none — decoded
/// here: libdeflate inflates its data in under half zlib's time (which libpng uses), and the
/// five filters are undone in place. The bytes are libpng's, bit for bit (PNGDirectTests
/// decodes every PNG of the corpus and damaged copies of them both ways).
///
/// Anything else, or anything unusual — a chunk libpng would act on, a bad checksum, a
/// stream that is short, long or followed by more — and `decode` gives nil: libpng then
/// decodes the file as it always did, with its own checks and messages.
enum PNGDirect {
    /// Ancillary chunks that change nothing in the pixels libpng's simplified API gives:
    /// chromaticities (used only to make grey of colour, which it is not asked to), the
    /// background colour (used only when it is asked to compose), time, text, pixel size.
    static let ignored: Set<String> = ["cHRM", "bKGD", "tIME", "tEXt", "zTXt", "iTXt", "pHYs"]
    /// The only gamma taken here: 1/2.2 as PNG writers store it, sRGB's (libpng then changes nothing).
    static let sRGBGamma = 45455
    /// libpng refuses a chunk longer than this (its `PNG_USER_CHUNK_MALLOC_MAX`); here a longer one is libpng's to judge.
    static let longestChunk = 8_000_000
    /// More ancillary chunks than this (libpng keeps at most 1000) are libpng's to judge.
    static let mostAncillary = 500

    /// The picture as grey, or nil when libpng is to decode it (also when libdeflate is not installed).
    static func decode(_ bytes: [UInt8]) -> GrayImage? {
        guard lomme_deflate_available() != 0 else { return nil }
        return bytes.withUnsafeBufferPointer { decode($0) }
    }

    private static func decode(_ file: UnsafeBufferPointer<UInt8>) -> GrayImage? {
        guard file.starts(with: PNGCodec.signature) else { return nil }
        func u32(_ at: Int) -> Int { Int(file[at]) << 24 | Int(file[at + 1]) << 16 | Int(file[at + 2]) << 8 | Int(file[at + 3]) }
        var header: (width: Int, height: Int, channels: Int)?
        var data: [Range<Int>] = []
        var afterData = false
        var offset = PNGCodec.signature.count
        var ancillary = 0
        while ancillary <= mostAncillary {
            guard offset <= file.count - 12 else { return nil }
            let length = u32(offset)
            guard length <= longestChunk, length <= file.count - offset - 12 else { return nil }
            let type = file[(offset + 4)..<(offset + 8)]
            guard type.allSatisfy({ (65...90).contains($0 & 0xDF) }) else { return nil }
            let name = String(decoding: type, as: UTF8.self)
            let body = (offset + 8)..<(offset + 8 + length)
            let crcIntact = libdeflate_crc32(0, file.baseAddress! + offset + 4, length + 4) == UInt32(u32(body.upperBound))
            guard (header == nil) == (name == "IHDR") else { return nil }
            switch name {
            case "IHDR":
                guard length == 13, crcIntact else { return nil }
                let width = u32(body.lowerBound), height = u32(body.lowerBound + 4)
                let depth = file[body.lowerBound + 8], kind = file[body.lowerBound + 9]
                let channelsByKind: [UInt8: Int] = [0: 1, 2: 3, 4: 2, 6: 4]
                guard width > 0, height > 0, width <= ImageLimits.maxSide, height <= ImageLimits.maxSide,
                      width * height <= ImageLimits.maxPixels, depth == 8, let channels = channelsByKind[kind],
                      file[(body.lowerBound + 10)..<body.upperBound].allSatisfy({ $0 == 0 }) else { return nil }
                header = (width, height, channels)
            case "IDAT":
                guard !afterData, crcIntact else { return nil }
                data.append(body)
            case "IEND":
                guard length == 0, crcIntact, !data.isEmpty, body.upperBound + 4 == file.count, let header else { return nil }
                return pixels(file, data, header)
            case "gAMA":
                guard length == 4, crcIntact, u32(body.lowerBound) == sRGBGamma else { return nil }
            default:
                guard ignored.contains(name) else { return nil }
            }
            if name != "IDAT" && name != "IHDR" { ancillary += 1 }
            if !data.isEmpty && name != "IDAT" { afterData = true }
            offset = body.upperBound + 4
        }
        return nil
    }

    /// The zlib stream in `data` inflated, unfiltered and made grey; nil unless it holds exactly the rows.
    private static func pixels(_ file: UnsafeBufferPointer<UInt8>, _ data: [Range<Int>],
                               _ header: (width: Int, height: Int, channels: Int)) -> GrayImage? {
        let rowBytes = header.width * header.channels
        let size = header.height * (rowBytes + 1)
        // A single chunk is inflated where it lies; several are joined first.
        let joined: [UInt8]? = data.count == 1 ? nil : data.flatMap { file[$0] }
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var raw = [UInt8](unsafeUninitializedCapacity: size) { whole, made in
            let out = UnsafeMutableBufferPointer(rebasing: whole[..<size])
            let got = joined.map { $0.withUnsafeBufferPointer { inflate($0, into: out, decompressor) } }
                ?? inflate(UnsafeBufferPointer(rebasing: file[data[0]]), into: out, decompressor)
            made = got == size ? size : 0
        }
        guard raw.count == size else { return nil }
        let undone = raw.withUnsafeMutableBufferPointer { unfilter($0.baseAddress!, rows: header.height, rowBytes: rowBytes, bpp: header.channels) }
        guard undone else { return nil }
        return raw.withUnsafeBufferPointer { rows in
            Luma.gray(from: UnsafeBufferPointer(rebasing: rows[1...]), width: header.width, height: header.height,
                      stride: rowBytes + 1, channels: header.channels)
        }
    }

    /// The bytes `stream` inflates to in `out`, 0 unless all of it is one zlib stream that fits.
    /// libdeflate checks the header (deflate, a window of at most 32 KiB, no preset dictionary) and the Adler-32.
    private static func inflate(_ stream: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
                                _ decompressor: OpaquePointer) -> Int {
        var used = 0, got = 0
        let result = libdeflate_zlib_decompress_ex(decompressor, stream.baseAddress, stream.count,
                                                   out.baseAddress, out.count, &used, &got)
        return result == LIBDEFLATE_SUCCESS && used == stream.count ? got : 0
    }

    /// Undoes PNG's filters in place: each row is its filter's byte, then `rowBytes` bytes.
    /// False for a filter type that does not exist (libpng calls the file damaged).
    static func unfilter(_ base: UnsafeMutablePointer<UInt8>, rows: Int, rowBytes: Int, bpp: Int) -> Bool {
        // A copy of the loops for each pixel size, its channels unrolled.
        switch bpp {
        case 1: return unfilter(base, rows: rows, rowBytes: rowBytes, OneByte.self)
        case 2: return unfilter(base, rows: rows, rowBytes: rowBytes, TwoBytes.self)
        case 3: return unfilter(base, rows: rows, rowBytes: rowBytes, ThreeBytes.self)
        default: return unfilter(base, rows: rows, rowBytes: rowBytes, FourBytes.self)
        }
    }

    /// One pixel's channels, at most four, kept in registers from one pixel to the next (the row
    /// above and this one share a buffer, so the compiler could not keep loads otherwise).
    private typealias Pixel = SIMD4<Int32>

    private static func unfilter<Size: PixelSize>(_ base: UnsafeMutablePointer<UInt8>, rows: Int, rowBytes: Int,
                                                  _ size: Size.Type) -> Bool {
        let stride = rowBytes + 1
        for y in 0..<rows {
            let row = base + y * stride + 1
            // With no row above, "up" is 0: Up changes nothing, Average halves Sub, Paeth is Sub.
            let above: UnsafeMutablePointer<UInt8>? = y == 0 ? nil : row - stride
            switch row[-1] {
            case 0:
                break
            case 1:
                undo(row, above, rowBytes, size) { left, _, _ in left }
            case 2:
                guard let above else { break }
                for i in 0..<rowBytes { row[i] &+= above[i] }
            case 3:
                undo(row, above, rowBytes, size) { left, up, _ in (left &+ up) &>> 1 }
            case 4:
                // Paeth, as libpng writes it: the nearest of left, up and up-left to left + up - upLeft, ties in that order.
                undo(row, above, rowBytes, size) { left, up, upLeft in
                    let p = up &- upLeft, q = left &- upLeft, r = p &+ q
                    let pa = pointwiseMax(p, 0 &- p), pb = pointwiseMax(q, 0 &- q), pc = pointwiseMax(r, 0 &- r)
                    let takeUp = pb .< pa
                    let nearest = pa.replacing(with: pb, where: takeUp)
                    return left.replacing(with: up, where: takeUp).replacing(with: upLeft, where: pc .< nearest)
                }
            default:
                return false
            }
        }
        return true
    }

    /// Adds `predict(left, up, upLeft)` to each pixel of `row`, left to right.
    @inline(__always)
    private static func undo<Size: PixelSize>(_ row: UnsafeMutablePointer<UInt8>, _ above: UnsafeMutablePointer<UInt8>?,
                                              _ rowBytes: Int, _ size: Size.Type,
                                              _ predict: (Pixel, Pixel, Pixel) -> Pixel) {
        let bpp = Size.bytes
        @inline(__always) func load(_ p: UnsafeMutablePointer<UInt8>) -> Pixel {
            var v = Pixel()
            for k in 0..<bpp { v[k] = Int32(p[k]) }
            return v
        }
        var left = Pixel(), upLeft = Pixel()
        var i = 0
        while i < rowBytes {
            let up = above.map { load($0 + i) } ?? Pixel()
            left = (load(row + i) &+ predict(left, up, upLeft)) & 255
            for k in 0..<bpp { row[i + k] = UInt8(truncatingIfNeeded: left[k]) }
            upLeft = up
            i &+= bpp
        }
    }
}

/// A pixel's size in bytes as a type, so that each size gets loops of its own.
private protocol PixelSize { static var bytes: Int { get } }
private enum OneByte: PixelSize { static var bytes: Int { 1 } }
private enum TwoBytes: PixelSize { static var bytes: Int { 2 } }
private enum ThreeBytes: PixelSize { static var bytes: Int { 3 } }
private enum FourBytes: PixelSize { static var bytes: Int { 4 } }
