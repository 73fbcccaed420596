import Foundation
import LommeImages
import LommeTestSupport
import Testing
@testable import LommeScan

/// The checked table of expected reads (`bench/expected-reads.tsv`, written by
/// `bench/scan --write-table`), as zxing-cpp's blackbox runner checks its own: per set, half
/// and rotations, which attempts our scanner does not read. Every row marked `test` is run
/// again here with no deadline (every pass runs however long it takes, so the count does not
/// depend on the machine's speed): an attempt read before and not now fails the test, and so
/// does one read now and not before, until the table is written again in the same commit.
@Suite("Expected reads")
struct ExpectedReadsTests {
    /// The corpus, read in place: ../shared/corpus from the repository, else /work/shared/corpus.
    static let corpus: String? = {
        let candidates = [packageRoot + "/../shared/corpus", "/work/shared/corpus"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/zxing-qrcode-1") }
    }()

    struct Row: Sendable, CustomStringConvertible {
        var set: String
        var half: String
        var pictures: Int
        var rotations: [Int]
        var read: Int
        var misses: Set<String>
        var description: String { "\(set) \(half) r\(rotations.map(String.init).joined(separator: ","))" }
        /// no-qr: a miss is a false decode, and none is expected.
        var noCode: Bool { self.set == "no-qr" }
    }

    /// The rows the test checks (`checked` = test).
    static func rows() throws -> [Row] {
        let text = try String(contentsOfFile: packageRoot + "/bench/expected-reads.tsv", encoding: .utf8)
        var header: [String]? = nil
        var rows: [Row] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard let names = header else { header = fields; continue }
            let field = { (name: String) in names.firstIndex(of: name).map { fields[$0] } ?? "" }
            guard field("checked") == "test" else { continue }
            rows.append(Row(set: field("set"), half: field("half"), pictures: Int(field("pictures")) ?? -1,
                            rotations: field("rotations").split(separator: ",").compactMap { Int($0) },
                            read: Int(field("read")) ?? -1,
                            misses: Set(field("misses").split(separator: " ").map(String.init))))
        }
        return rows
    }

    /// The small real photos (bench/make-small), made once into a temporary folder.
    static let smallSets: String? = {
        let out = NSTemporaryDirectory() + "lomme-expected-reads-\(getpid())"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: packageRoot + "/bench/make-small")
        process.arguments = ["--out", out] + (corpus.map { ["--corpus", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? out : nil
    }()

    /// (name, path, expected text or nil) of every picture of the row's set and half.
    static func pictures(_ row: Row, corpus: String) throws -> [(String, String, String?)] {
        let folder: String
        if row.set.hasPrefix("small-") {
            folder = try #require(smallSets, "bench/make-small failed") + "/" + row.set
        } else {
            folder = corpus + "/" + row.set
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        return try files.compactMap { file -> (String, String, String?)? in
            guard file.hasSuffix(".png") || file.hasSuffix(".jpg") else { return nil }
            let name = String(file.dropLast(4))
            // A small picture is named after its source and keeps its source's half.
            let source = row.set.hasPrefix("small-") ? sourceName(name) : row.set + "/" + name
            guard row.set.hasPrefix("small-") || half(source) == row.half else { return nil }
            let text = row.noCode ? nil : try String(contentsOfFile: folder + "/" + name + ".txt", encoding: .utf8)
            return (name, folder + "/" + file, text)
        }
    }

    /// `zxing-qrcode-4-12` → `zxing-qrcode-4/12`.
    static func sourceName(_ name: String) -> String {
        guard let dash = name.lastIndex(of: "-") else { return name }
        return name[..<dash] + "/" + name[name.index(after: dash)...]
    }

    /// docs/scanner.md, "Tune and check": an even first hex digit of SHA-256("SET/NAME") is the tune half.
    static func half(_ name: String) -> String {
        (SHA256.digest(Array(name.utf8))[0] >> 4) % 2 == 0 ? "tune" : "check"
    }

    /// The attempts of `row` our scanner misses: not reading the expected text (no-qr: decoding anything).
    static func misses(_ row: Row, corpus: String) throws -> (attempts: Int, misses: Set<String>) {
        let pictures = try pictures(row, corpus: corpus)
        var attempts = 0
        var misses = Set<String>()
        for (name, path, expected) in pictures {
            let picture = path.hasSuffix(".png") ? try ImageLoader.load(path: path) : nil
            for rotation in row.rotations {
                attempts += 1
                let options = ScanOptions(deadline: nil)
                let accept: (Decoded) -> Bool = { decoded in expected.map { decoded.text == $0 } ?? false }
                let found: [Decoded]
                if let picture {
                    found = Scanner.scan(image: picture.rotated(by: rotation / 90), options: options, accept: accept)
                } else {
                    found = (try? Scanner.scan(path: path, options: options, accept: accept)) ?? []
                }
                let read = expected.map { text in found.contains { $0.text == text } } ?? !found.isEmpty
                if read == row.noCode { misses.insert("\(name)@\(rotation)") }
            }
        }
        return (attempts, misses)
    }

    @Test("the table has rows the test checks, for the corpus's halves, no-qr and the small photos")
    func table() throws {
        let rows = try Self.rows()
        for set in ["zxing-qrcode-1", "zxing-qrcode-2", "zxing-qrcode-4", "no-qr", "small-tune", "small-check"] {
            #expect(rows.contains { $0.set == set }, "bench/expected-reads.tsv checks no row of \(set)")
        }
        for row in rows {
            let attempts = row.pictures * row.rotations.count
            #expect(row.read == (row.noCode ? row.misses.count : attempts - row.misses.count),
                    "\(row): the count \(row.read) does not match the \(row.misses.count) misses of \(attempts) attempts")
        }
    }

    @Test("our scanner reads what the table says, no fewer and no more", arguments: try rows())
    func reads(_ row: Row) throws {
        let corpus = try #require(Self.corpus, "the corpus is missing: ../shared/corpus or /work/shared/corpus")
        let (attempts, misses) = try Self.misses(row, corpus: corpus)
        #expect(attempts == row.pictures * row.rotations.count, "\(row): \(attempts) attempts, the table says \(row.pictures) pictures")
        let lost = misses.subtracting(row.misses).sorted(), gained = row.misses.subtracting(misses).sorted()
        let what = row.noCode ? "false decodes" : "reads lost"
        #expect(lost.isEmpty, "\(row): \(what): \(lost.joined(separator: " "))")
        let news = row.noCode ? "false decodes gone" : "reads gained"
        #expect(gained.isEmpty, """
            \(row): \(news): \(gained.joined(separator: " ")); \
            run bench/scan --write-table and commit bench/expected-reads.tsv with the change
            """)
    }
}

/// SHA-256 (FIPS 180-4), for the halves' rule only.
enum SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var data = message + [0x80]
        while data.count % 64 != 56 { data.append(0) }
        data += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(message.count) * 8 >> (56 - 8 * UInt64($0))) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        for chunk in stride(from: 0, to: data.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(data[chunk + 4 * i + $1]) } }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ w[i - 15] >> 3
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ w[i - 2] >> 10
                w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (e & f ^ ~e & g) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ (a & b ^ a & c ^ b & c)
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }
}
