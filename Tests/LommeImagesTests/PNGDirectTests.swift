import Foundation
import LommeCore
@testable import LommeImages
import LommeTestSupport
import Testing

/// The common PNG decoded without libpng (`PNGDirect`) gives libpng's pixels bit for bit, and
/// every file it does not take, or takes wrongly shaped, goes to libpng.
struct PNGDirectTests {
    /// The corpus, read in place (never copied into the project).
    static let corpus: String? = [packageRoot + "/../shared/corpus", "/work/shared/corpus"]
        .first { FileManager.default.fileExists(atPath: $0) }

    /// libpng's pixels, or nil where it refuses the file.
    static func libpng(_ bytes: [UInt8]) -> GrayImage? { try? PNGCodec.decodeWithLibpng(bytes, name: "test.png") }

    /// "same" when both decoded `bytes` alike, else where they first differ (short: a failure does not print pictures).
    static func compare(_ bytes: [UInt8]) -> String {
        let direct = PNGDirect.decode(bytes), expected = libpng(bytes)
        guard let direct, let expected else { return direct == nil && expected == nil ? "both refused" : "one refused" }
        guard direct.width == expected.width && direct.height == expected.height else { return "sizes differ" }
        guard let at = direct.pixels.indices.first(where: { direct.pixels[$0] != expected.pixels[$0] }) else { return "same" }
        return "pixel \(at): \(direct.pixels[at]), libpng \(expected.pixels[at])"
    }

    @Test(.enabled(if: corpus != nil, "needs ../shared/corpus"))
    func everyCorpusPictureDecodesAsLibpngDoes() throws {
        let root = try #require(Self.corpus)
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".png") }.sorted()
        var taken = 0
        for file in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + file)))
            guard PNGDirect.decode(bytes) != nil else { continue }
            taken += 1
            #expect(Self.compare(bytes) == "same", "\(file)")
        }
        // Most of the corpus is 8-bit RGB or grey: the direct path is the one taken.
        #expect(files.count > 100 && taken * 4 > files.count * 3, "\(taken) of \(files.count) taken")
    }

    /// Each filter ImageMagick can be told to use, on grey, grey+alpha, RGB and RGBA of awkward sizes.
    @Test(.enabled(if: ImageLoaderTests.hasConvert, "ImageMagick's convert is not installed"),
          arguments: ["gray", "graya", "rgb", "rgba"])
    func everyFilterAndKindDecodesAsLibpngDoes(kind: String) throws {
        let scratch = try ImageLoaderTests.Scratch()
        let colorType = ["gray": 0, "graya": 4, "rgb": 2, "rgba": 6][kind]!
        var checked = 0
        for (width, height) in [(1, 1), (1, 7), (9, 1), (2, 3), (37, 23)] {
            for filter in 0...5 {
                let name = "\(width)x\(height)-\(filter).png"
                var arguments = ["-size", "\(width)x\(height)", "plasma:red-blue", "-seed", "7"]
                if kind.hasPrefix("gray") { arguments += ["-colorspace", "Gray"] }
                if kind.hasSuffix("a") {
                    arguments += ["(", "-size", "\(width)x\(height)", "gradient:", ")", "-alpha", "off", "-compose", "CopyOpacity", "-composite"]
                }
                arguments += ["-define", "png:color-type=\(colorType)", "-define", "png:bit-depth=8",
                              "-define", "png:compression-filter=\(filter)", "PNG:" + scratch.path(name)]
                try ImageLoaderTests.convert(arguments)
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.path(name))))
                #expect(bytes[25] == UInt8(colorType), "\(kind) \(name): ImageMagick wrote colour type \(bytes[25])")
                #expect(PNGDirect.decode(bytes) != nil, "\(kind) \(name) went to libpng")
                #expect(Self.compare(bytes) == "same", "\(kind) \(name)")
                checked += 1
            }
        }
        #expect(checked == 30)
    }

    /// Hand-made files (stored deflate blocks, so any filter byte and any split into chunks):
    /// every filter on every row, split into many IDAT chunks, decodes as libpng does.
    @Test func everyFilterOnEveryRowAndManyChunks() throws {
        var random = SplitMix(seed: 11)
        for (width, height, channels) in [(1, 5, 1), (7, 6, 3), (13, 9, 4), (5, 4, 2), (64, 33, 3)] {
            let rows = (0..<height).map { y in [UInt8(y % 5)] + (0..<(width * channels)).map { _ in random.byte() } }
            let file = PNGFile(width: width, height: height, channels: channels, rows: rows, chunkSize: 7)
            #expect(PNGDirect.decode(file.bytes) != nil, "\(width)×\(height)×\(channels)")
            #expect(Self.compare(file.bytes) == "same", "\(width)×\(height)×\(channels)")
            let whole = PNGFile(width: width, height: height, channels: channels, rows: rows, chunkSize: 1 << 20)
            #expect(PNGDirect.decode(whole.bytes) != nil && Self.compare(whole.bytes) == "same", "\(width)×\(height)×\(channels) in one chunk")
        }
    }

    /// What the direct path leaves to libpng: anything libpng would act on or judge differently.
    @Test func unusualFilesGoToLibpng() throws {
        let rows = (0..<4).map { y in [UInt8(y % 5)] + Array(repeating: UInt8(40 * y), count: 9) }
        let plain = PNGFile(width: 3, height: 4, channels: 3, rows: rows, chunkSize: 10)
        let taken = PNGDirect.decode(plain.bytes)
        #expect(taken != nil)
        let cases: [(String, PNGFile)] = [
            ("a filter that does not exist", PNGFile(width: 3, height: 4, channels: 3, rows: rows.enumerated().map { $0 == 2 ? [5] + $1.dropFirst() : $1 }, chunkSize: 10)),
            ("a gamma other than sRGB's", plain.inserting("gAMA", [0, 1, 0x86, 0xA0], after: "IHDR")),
            ("a transparency chunk", plain.inserting("tRNS", [0, 1, 0, 2, 0, 3], after: "IHDR")),
            ("an ICC profile", plain.inserting("iCCP", Array("x\0\0".utf8), after: "IHDR")),
            ("an sRGB chunk", plain.inserting("sRGB", [0], after: "IHDR")),
            ("an unknown chunk", plain.inserting("prVt", [1, 2, 3], after: "IHDR")),
            ("a chunk between the data chunks", plain.inserting("tEXt", Array("a\0b".utf8), after: "IDAT")),
            ("a bad checksum", plain.damagingChecksum(of: "IDAT")),
            ("16 bits a sample", plain.settingHeader(byte: 8, to: 16)),
            ("a palette", plain.settingHeader(byte: 9, to: 3)),
            ("interlacing", plain.settingHeader(byte: 12, to: 1)),
            ("bytes after the end", plain.appending([0])),
            ("rows missing", PNGFile(width: 3, height: 4, channels: 3, rows: Array(rows.prefix(3)), chunkSize: 10, declaredHeight: 4)),
            ("a row too many", PNGFile(width: 3, height: 4, channels: 3, rows: rows + [rows[0]], chunkSize: 10, declaredHeight: 4)),
        ]
        for (what, file) in cases {
            let direct = PNGDirect.decode(file.bytes)
            #expect(direct == nil, "\(what)")
        }
        // The sRGB gamma and chunks that change no pixel are taken, and read as libpng reads them.
        for file in [plain.inserting("gAMA", [0, 0, 0xB1, 0x8F], after: "IHDR"),
                     plain.inserting("cHRM", Array(repeating: 9, count: 32), after: "IHDR"),
                     plain.inserting("tEXt", Array("Comment\0hello".utf8), after: "IEND-before")] {
            #expect(PNGDirect.decode(file.bytes) != nil)
            #expect(Self.compare(file.bytes) == "same")
        }
    }

    /// Damaged copies of corpus pictures whose checksums are mended, as an attacker would:
    /// whatever the direct path decodes, libpng decodes to the same pixels.
    @Test(.enabled(if: corpus != nil, "needs ../shared/corpus"))
    func damagedCopiesDecodeAsLibpngOrGoToIt() throws {
        let root = try #require(Self.corpus)
        let files = ["no-qr", "zxing-qrcode-1", "zxing-qrcode-4"].compactMap { folder in
            try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder).filter { $0.hasSuffix(".png") }.sorted().first
                .map { root + "/" + folder + "/" + $0 }
        }
        #expect(files.count == 3)
        var random = SplitMix(seed: 5)
        var taken = 0, total = 0
        for path in files {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            // A chunk type first, then one chunk of it: most chunks are IDAT.
            let byType = Dictionary(grouping: PNGFile.chunks(original)) { String(decoding: original[($0.start + 4)..<($0.start + 8)], as: UTF8.self) }
            let types = byType.keys.sorted()
            for _ in 0..<40 {
                var bytes = original
                let chunks = byType[types[Int(random.next() % UInt64(types.count))]]!
                let (start, length) = chunks[Int(random.next() % UInt64(chunks.count))]
                guard length > 0 else { continue }
                for _ in 0..<(1 + random.next() % 3) {
                    bytes[start + 8 + Int(random.next() % UInt64(length))] ^= UInt8(1 << (random.next() % 8))
                }
                PNGFile.mendChecksum(&bytes, chunkAt: start)
                total += 1
                guard PNGDirect.decode(bytes) != nil else { continue }
                taken += 1
                #expect(Self.compare(bytes) == "same", "\(path), a mutant")
            }
        }
        #expect(total > 60)
        // The mutants of ancillary chunks (text, times) are still taken: the comparison is not empty.
        #expect(taken > 0)
    }
}

/// A PNG written by hand: the rows as given (filter byte first) in stored deflate blocks, split
/// into IDAT chunks of `chunkSize` bytes; the Adler-32 computed here, the CRCs by `ImageLoaderTests.crc32`.
struct PNGFile {
    var bytes: [UInt8]

    init(width: Int, height: Int, channels: Int, rows: [[UInt8]], chunkSize: Int, declaredHeight: Int? = nil) {
        let kind: UInt8 = [1: 0, 2: 4, 3: 2, 4: 6][channels]!
        let raw = rows.flatMap { $0 }
        var stream: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65_535, raw.count - at)
            let last: UInt8 = at + n == raw.count ? 1 : 0
            stream += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)] + raw[at..<(at + n)]
            at += n
        } while at < raw.count
        stream += Self.be32(Self.adler32(raw))
        bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += Self.chunk("IHDR", Self.be32(UInt32(width)) + Self.be32(UInt32(declaredHeight ?? height)) + [8, kind, 0, 0, 0])
        for start in stride(from: 0, to: stream.count, by: chunkSize) {
            bytes += Self.chunk("IDAT", Array(stream[start..<min(stream.count, start + chunkSize)]))
        }
        bytes += Self.chunk("IEND", [])
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return b << 16 | a
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(ImageLoaderTests.crc32(body))
    }

    /// Where each chunk starts and its data's length.
    static func chunks(_ bytes: [UInt8]) -> [(start: Int, length: Int)] {
        var found: [(Int, Int)] = []
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            found.append((at, length))
            at += 12 + length
        }
        return found
    }

    static func mendChecksum(_ bytes: inout [UInt8], chunkAt start: Int) {
        let length = Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        bytes.replaceSubrange((start + 8 + length)..<(start + 12 + length), with: be32(ImageLoaderTests.crc32(Array(bytes[(start + 4)..<(start + 8 + length)]))))
    }

    /// A chunk added after the first chunk of type `after` ("IEND-before": just before IEND).
    func inserting(_ type: String, _ data: [UInt8], after: String) -> PNGFile {
        let all = Self.chunks(bytes)
        let at: Int
        if after == "IEND-before" {
            at = all.last!.start
        } else {
            let found = all.first { String(decoding: bytes[($0.start + 4)..<($0.start + 8)], as: UTF8.self) == after }!
            at = found.start + 12 + found.length
        }
        var copy = bytes
        copy.insert(contentsOf: Self.chunk(type, data), at: at)
        return PNGFile(bytes: copy)
    }

    func damagingChecksum(of type: String) -> PNGFile {
        let found = Self.chunks(bytes).first { String(decoding: bytes[($0.start + 4)..<($0.start + 8)], as: UTF8.self) == type }!
        var copy = bytes
        copy[found.start + 8 + found.length] ^= 1
        return PNGFile(bytes: copy)
    }

    /// IHDR's data byte `byte` (0-based) set to `value`, its checksum mended.
    func settingHeader(byte: Int, to value: UInt8) -> PNGFile {
        var copy = bytes
        copy[16 + byte] = value
        Self.mendChecksum(&copy, chunkAt: 8)
        return PNGFile(bytes: copy)
    }

    func appending(_ extra: [UInt8]) -> PNGFile { PNGFile(bytes: bytes + extra) }
}
