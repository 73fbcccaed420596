import Foundation
import LommeCore
@testable import LommeImages
import LommeTestSupport
import Testing

/// Loads real files through the real libraries. Inputs are made here: with lomme-vault's
/// own writers (PNG, JPEG, WebP) or with ImageMagick's `convert` for what they cannot
/// write (colour, alpha, palette, 16-bit, PPM/PGM, HEIC). The fixtures are here; the tests are in
/// one file per codec or behaviour (extensions of this suite).
@Suite("Image loading")
struct ImageLoaderTests {
    // MARK: - Fixtures

    /// 64×40 (not square, so a wrong quarter turn shows in the size) of flat 8×8 blocks
    /// (JPEG keeps them well), every block a different grey, none black or white.
    static let pattern: GrayImage = {
        var image = GrayImage(width: 64, height: 40)
        for y in 0..<40 {
            for x in 0..<64 {
                image[x, y] = UInt8(30 + ((x / 8) * 23 + (y / 8) * 59) % 190)
            }
        }
        return image
    }()

    /// A scratch directory, removed when the test ends.
    final class Scratch {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("lomme-images-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
        @discardableResult
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            try Data(bytes).write(to: url.appendingPathComponent(name))
            return path(name)
        }
        func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: url.appendingPathComponent(name))) }
    }

    static let convertPath = ImageMagick.convertPath

    /// Runs ImageMagick's convert; fails the test with its error output if it fails.
    static func convert(_ arguments: [String]) throws { try ImageMagick.convert(arguments) }

    /// Whether this machine's ImageMagick can write HEIC (it needs libheif with an encoder).
    static let canWriteHEIC: Bool = {
        guard FileManager.default.isExecutableFile(atPath: convertPath) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: convertPath)
        process.arguments = ["-list", "format"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").contains { line in
            let words = line.split(separator: " ")
            return words.count >= 3 && words[0].hasPrefix("HEIC") && words[2].hasPrefix("rw")
        }
    }()

    static let hasConvert = FileManager.default.isExecutableFile(atPath: convertPath)

    /// nil if the two pictures are the same, else a short description of how they differ
    /// (a failed `#expect` then prints that instead of thousands of pixels).
    static func difference(_ a: GrayImage, _ b: GrayImage) -> String? {
        guard a.width == b.width, a.height == b.height else { return "\(a.width)×\(a.height), not \(b.width)×\(b.height)" }
        guard let i = a.pixels.indices.first(where: { a.pixels[$0] != b.pixels[$0] }) else { return nil }
        return "first difference at (\(i % a.width), \(i / a.width)): \(a.pixels[i]) not \(b.pixels[i]); largest \(maxDifference(a, b))"
    }

    /// The largest difference between two pictures of the same size.
    static func maxDifference(_ a: GrayImage, _ b: GrayImage) -> Int {
        zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    static func meanDifference(_ a: GrayImage, _ b: GrayImage) -> Double {
        Double(zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(max(1, a.pixels.count))
    }

    /// The pattern saved as a grey PNG by lomme-vault's writer, for `convert` to start from.
    static func savePattern(_ scratch: Scratch, _ name: String = "pattern.png") throws -> String {
        try scratch.write(name, try PNGCodec.encode(pattern))
    }

    /// Checks the error is an unreadable-image error of one line naming `name`.
    static func expectImageError(_ body: () throws(LommeError) -> Void, names name: String,
                                 saying words: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(LommeError) {
            try body()
            Issue.record("expected an image error for \(name)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .unreadableImage, "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.code.rawValue == 2, sourceLocation: sourceLocation)
            #expect(!error.message.contains("\n") && !error.message.contains("\r"), "\(error.message)",
                    sourceLocation: sourceLocation)
            #expect(error.message.contains(name), "\(error.message)", sourceLocation: sourceLocation)
            if let words {
                #expect(error.message.contains(words), "\(error.message)", sourceLocation: sourceLocation)
            }
        }
    }
}
