import Foundation
import LommeCore
@testable import LommeImages
import Testing

/// Hostile and broken files: huge declared sizes refused from the header, truncated, endless, unreadable and damaged files, each one line with exit code 2.
extension ImageLoaderTests {
    // MARK: - Bad input

    /// 89 50 4E 47 … + an IHDR chunk declaring `width`×`height`, correct CRC, then nothing.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        let chunk = Array("IHDR".utf8) + be(width) + be(height) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + chunk + be(crc32(chunk))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A JPEG whose frame header (SOF0) claims `width`×`height`.
    static func jpegClaiming(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try JPEGCodec.encode(pattern, quality: 80)
        let sof = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }!
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return bytes
    }

    /// Deterministic noise (a 64-bit LCG), so a failure can be repeated.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(state >> 56)
        }
    }

    @Test func hugePNGIsRefusedFromItsHeader() throws {
        let bytes = Self.pngHeader(width: 100_000, height: 100_000)
        #expect(bytes.count == 33)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, name: "huge.png") },
                              names: "huge.png", saying: "100000×100000")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.size(bytes: bytes, name: "huge.png") },
                              names: "huge.png", saying: "100000×100000")
        // Under the side limit but over 100 megapixels.
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Self.pngHeader(width: 20_000, height: 20_000), name: "wide.png")
        }, names: "wide.png", saying: "more than any photo")
        // The same header with a plausible size is only truncated.
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Self.pngHeader(width: 100, height: 100), name: "short.png")
        }, names: "short.png", saying: "damaged or truncated")
    }

    @Test func hugeJPEGIsRefusedFromItsHeader() throws {
        let bytes = try Self.jpegClaiming(width: 65_000, height: 65_000)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, name: "huge.jpg") },
                              names: "huge.jpg", saying: "65000×65000")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: bytes, reduce: 8, name: "huge.jpg") },
                              names: "huge.jpg", saying: "65000×65000")
    }

    @Test func hugeAndEmptyPNMAreRefused() {
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P5\n99999999999999999999 2\n255\n".utf8), name: "huge.pgm")
        }, names: "huge.pgm", saying: "more than any photo")
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P5\n0 2\n255\n".utf8), name: "zero.pgm")
        }, names: "zero.pgm", saying: "no pixels")
        Self.expectImageError({ () throws(LommeError) in
            _ = try ImageLoader.load(bytes: Array("P6\n2 2\n255\n".utf8) + [1, 2, 3], name: "short.ppm")
        }, names: "short.ppm", saying: "damaged or truncated")
    }

    /// A progressive JPEG with one of its scans repeated `copies` times before EOI.
    static func jpegWithRepeatedScan(_ progressive: [UInt8], copies: Int) -> [UInt8] {
        // Segments run from SOI to the first SOS; then entropy data until the next marker
        // that is neither a stuffed 00 nor a restart marker.
        var i = 2
        while !(progressive[i] == 0xFF && progressive[i + 1] == 0xDA) {
            i += 2 + (Int(progressive[i + 2]) << 8 | Int(progressive[i + 3]))
        }
        var j = i + 2 + (Int(progressive[i + 2]) << 8 | Int(progressive[i + 3]))
        while !(progressive[j] == 0xFF && progressive[j + 1] != 0 && !(0xD0...0xD7).contains(progressive[j + 1])) {
            j += 1
        }
        let scan = Array(progressive[i..<j])
        let end = progressive.count - 2  // EOI
        return Array(progressive[..<end]) + Array(repeating: scan, count: copies).flatMap { $0 } + [0xFF, 0xD9]
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func progressiveJPEGWithEndlessScansIsRefused() throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input, "-interlace", "JPEG", "-quality", "90", scratch.path("p.jpg")])
        let progressive = try scratch.read("p.jpg")
        // A sane progressive file, and the same with a few repeats, still load.
        #expect(Self.maxDifference(try ImageLoader.load(bytes: progressive, name: "p.jpg"), Self.pattern) <= 6)
        _ = try ImageLoader.load(bytes: Self.jpegWithRepeatedScan(progressive, copies: 20), name: "p.jpg")
        let endless = Self.jpegWithRepeatedScan(progressive, copies: 2000)
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(bytes: endless, name: "scans.jpg") },
                              names: "scans.jpg", saying: "scans")
    }

    @Test func truncatedFilesAreRefused() throws {
        let png = try PNGCodec.encode(Self.pattern)
        let jpeg = try JPEGCodec.encode(Self.pattern, quality: 90)
        let webp = try WebPCodec.encodeLossless(Self.pattern)
        for (name, bytes) in [("cut.png", png), ("cut.jpg", jpeg), ("cut.webp", webp)] {
            for keep in [bytes.count / 2, bytes.count - 20, 40] {
                Self.expectImageError({ () throws(LommeError) in
                    _ = try ImageLoader.load(bytes: Array(bytes.prefix(keep)), name: name)
                }, names: name, saying: "damaged or truncated")
            }
        }
    }

    @Test func thingsThatAreNotPicturesAreRefused() throws {
        let scratch = try Scratch()
        let cases: [(String, [UInt8], String)] = [
            ("empty.png", [], "empty"),
            ("noise.jpg", Self.noise(count: 5000, seed: 42), "not a picture lomme-vault can read"),
            ("notes.txt", Array("Dette er ikke et bilde.\nBare tekst.\n".utf8), "not a picture lomme-vault can read"),
            ("anim.gif", Array("GIF89a".utf8) + Self.noise(count: 100, seed: 1), "GIF"),
            ("short.jpg", [0xFF, 0xD8, 0xFF], "damaged or truncated"),
            ("riff.webp", Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), "damaged or truncated"),
        ]
        for (name, bytes, words) in cases {
            let path = try scratch.write(name, bytes)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                                  names: name, saying: words)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.size(bytes: bytes, name: name) },
                                  names: name, saying: words)
        }
    }

    @Test func unreadableFilesSayWhy() throws {
        let scratch = try Scratch()
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.path("missing.png")) },
                              names: "missing.png", saying: "cannot read")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.path("missing.png")) },
                              names: "missing.png", saying: "No such file or directory")
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: scratch.url.path) },
                              names: scratch.url.lastPathComponent, saying: "Is a directory")
        if getuid() != 0 {  // root reads everything
            let path = try scratch.write("secret.png", try PNGCodec.encode(Self.pattern))
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                                  names: "secret.png", saying: "Permission denied")
        }
    }

    @Test func filesOverTwoHundredMegabytesAreRefusedUnread() throws {
        let scratch = try Scratch()
        // Sparse: a PNG signature, then a hole to 201 MB. Nothing is read past the size check.
        let path = try scratch.write("huge-file.png", PNGCodec.signature)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 201 * 1024 * 1024)
        try handle.close()
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) },
                              names: "huge-file.png", saying: "201 MB, larger than any photo")
    }

    @Test(.enabled(if: hasConvert, "ImageMagick's convert is not installed"))
    func cmykJPEGIsRead() throws {
        let scratch = try Scratch()
        let input = try Self.savePattern(scratch)
        try Self.convert([input, "-colorspace", "CMYK", "-quality", "95", scratch.path("cmyk.jpg")])
        let image = try ImageLoader.load(path: scratch.path("cmyk.jpg"))
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.meanDifference(image, Self.pattern) < 4, "mean difference \(Self.meanDifference(image, Self.pattern))")
    }

    @Test func aFileNameWithANewlineStillGivesOneLine() throws {
        let scratch = try Scratch()
        let path = try scratch.write("two\nlines.png", Array("no".utf8))
        Self.expectImageError({ () throws(LommeError) in _ = try ImageLoader.load(path: path) }, names: "two?lines.png")
    }

    /// Cut and corrupted versions of valid files: each loads or throws an image error,
    /// never crashes (a crash fails the whole test run).
    @Test func damagedFilesNeverCrash() throws {
        let sources: [(String, [UInt8])] = [
            ("png", try PNGCodec.encode(Self.pattern)),
            ("jpg", try JPEGCodec.encode(Self.pattern, quality: 80)),
            ("webp", try WebPCodec.encodeLossless(Self.pattern)),
            ("lossy.webp", try WebPCodec.encode(Self.pattern, quality: 70)),
            ("pgm", Array("P5\n64 40\n255\n".utf8) + Self.pattern.pixels),
        ]
        var loaded = 0, refused = 0
        for (kind, bytes) in sources {
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 60)) {
                do throws(LommeError) {
                    _ = try ImageLoader.load(bytes: Array(bytes.prefix(cut)), name: "cut.\(kind)")
                    loaded += 1
                } catch {
                    #expect(error.code == .unreadableImage && !error.message.contains("\n"))
                    refused += 1
                }
            }
            for seed in 0..<60 {
                var damaged = bytes
                let noise = Self.noise(count: 8, seed: UInt64(seed) &+ 1000)
                for i in 0..<4 {
                    let at = Int(noise[2 * i]) * Int(noise[2 * i + 1]) % damaged.count
                    damaged[at] ^= noise[2 * i] | 1
                }
                do throws(LommeError) {
                    _ = try ImageLoader.load(bytes: damaged, name: "bad.\(kind)")
                    loaded += 1
                } catch {
                    #expect(error.code == .unreadableImage && !error.message.contains("\n"))
                    refused += 1
                }
            }
        }
        #expect(refused > 0)
    }
}
