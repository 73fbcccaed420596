import Foundation
import LommeCore
import LommeImages
import LommeQR
import LommeScan
import LommeTestSupport
import Testing

/// `issue` and `scan` against programs no one here wrote (qrencode, zbarimg, ImageMagick),
/// and the bad inputs a photo can be.
@Suite("Issue, scan and interop")
struct IssueScanTests {
    static let nordic = sampleConfig(secret: "sek:ret%+ /æ", extras: [JSON.Member("name", .string("Blåbær Ærlig Øst"))])

    /// The config file as a person writes it: raw UTF-8, spaces, a trailing newline.
    static var handWrittenJSON: String {
        let c = nordic
        return """
            {
              "clientId": "\(c.clientId)",
              "clientSecret": "sek:ret%+ /æ",
              "userId": "\(c.userId)",
              "accountNr": "\(c.accountNr)",
              "name": "Blåbær Ærlig Øst"
            }

            """
    }

    @Test func qrencodeCodeWithNordicLettersScansToTheIdenticalBytes() throws {
        let sandbox = CLI.Sandbox()
        let json = sandbox.write("config.json", Self.handWrittenJSON)
        let png = sandbox.path + "/config.png"
        let made = CLI.run([], shell: "qrencode -l H -o '\(png)' < '\(json)'")
        try #require(made.status == 0, "qrencode: \(made.stderr)")

        let found = try Scanner.scan(path: png, options: ScanOptions(deadline: nil))
        #expect(found.map(\.bytes) == [Array(Self.handWrittenJSON.utf8)])
        #expect(try PlainPayload.decode(found[0].bytes) == Self.nordic)

        let raw = CLI.run(["scan", "--raw", png])
        #expect(raw.status == 0)
        #expect(raw.stdout == Array(Self.handWrittenJSON.utf8), "scan --raw gives the exact bytes, no newline off a terminal")

        let shown = CLI.run(["scan", png])
        #expect(shown.status == 0)
        #expect(shown.out.contains("Blåbær Ærlig Øst"))
        #expect(!shown.out.contains("sek:ret"), "the secret is masked")
        #expect(!shown.out.contains(Self.nordic.userId), "the personal number is masked")
    }

    @Test func issuedPNGDecodesWithZbarimg() throws {
        let sandbox = CLI.Sandbox()
        let json = sandbox.write("config.json", Self.handWrittenJSON)
        let png = sandbox.path + "/issued.png"
        let issued = CLI.run(["issue", "--from", json, "--output", png, "--level", "M"])
        try #require(issued.status == 0, "issue: \(issued.stderr)")
        #expect(CLI.mode(png) == 0o600, "a plain code holds the secret")
        #expect(!issued.stderr.contains("sek:ret"))
        #expect(issued.stderr.contains("in clear"), "issue warns that a plain code holds the secret")

        let decoded = CLI.run([], shell: "zbarimg -q --raw '\(png)'")
        try #require(decoded.status == 0, "zbarimg: \(decoded.stderr)")
        var text = decoded.stdout
        if text.last == 0x0A { text.removeLast() }
        guard case .object(let members) = try JSON.parse(text) else { Issue.record("not an object"); return }
        #expect(Array(members.prefix(4).map(\.key)) == ["clientId", "clientSecret", "userId", "accountNr"])
        #expect(try Config(json: .object(members)) == Self.nordic)
        #expect(text.allSatisfy { $0 < 0x80 }, "non-ASCII is escaped in what we emit")
    }

    @Test func issueFromStandardInputAndSVG() throws {
        let sandbox = CLI.Sandbox()
        let svg = sandbox.path + "/issued.svg"
        let issued = CLI.run(["issue", "--from", "-", "--output", svg], stdin: Self.handWrittenJSON)
        try #require(issued.status == 0, "issue: \(issued.stderr)")
        let png = sandbox.path + "/svg.png"
        let rasterised = CLI.run([], shell: "convert '\(svg)' '\(png)' 2>/dev/null")
        try #require(rasterised.status == 0)
        let found = try Scanner.scan(path: png, options: ScanOptions(deadline: nil))
        #expect(try found.map { try PlainPayload.decode($0.bytes) } == [Self.nordic])
    }

    @Test func roundTripThroughABlurredRotatedJPEG() throws {
        let sandbox = CLI.Sandbox()
        let payload = PlainPayload.encode(Self.nordic)
        let matrix = try QRMatrix.encode(payload, level: .H)
        let pngBytes = try PNGCodec.encode(QRRender.image(matrix, scale: 8))
        let loaded = try ImageLoader.load(bytes: pngBytes, name: "memory")
        #expect(try Scanner.scan(image: loaded, options: ScanOptions(deadline: nil)).map { try PlainPayload.decode($0.bytes) } == [Self.nordic])

        let png = sandbox.path + "/code.png"
        try Data(pngBytes).write(to: URL(fileURLWithPath: png))
        let jpeg = sandbox.path + "/photo.jpg"
        let made = CLI.run([], shell: "convert '\(png)' -background white -rotate 9 -blur 0x1.5 -quality 75 '\(jpeg)'")
        try #require(made.status == 0)
        let found = try Scanner.scan(path: jpeg, options: ScanOptions(deadline: nil))
        #expect(try found.map { try PlainPayload.decode($0.bytes) } == [Self.nordic])
    }

    @Test func terminalIssueReadsBackFromItsCharacters() throws {
        let sandbox = CLI.Sandbox()
        let json = sandbox.write("config.json", Self.handWrittenJSON)
        for term in ["xterm-256color", "linux"] {
            let issued = CLI.run(["issue", "--from", json], environment: ["TERM": term])
            try #require(issued.status == 0, "issue: \(issued.stderr)")
            let style = QRRender.TerminalStyle.forTerminal(term)
            #expect(issued.out.contains(style == .fullBlocks ? "██" : "▀"))
            let image = QRVerify.imageFromTerminal(issued.out, style: style)
            #expect(ZBarScanner().scan(image).map(\.bytes) == [Array(PlainPayload.encode(Self.nordic).utf8)])
        }
    }

    @Test func refusedConfigsExitSevenAndNameTheField() {
        let sandbox = CLI.Sandbox()
        let bad = Self.handWrittenJSON.replacingOccurrences(of: Self.nordic.accountNr, with: "12345678900")
        let json = sandbox.write("bad.json", bad)
        let result = CLI.run(["issue", "--from", json, "--output", sandbox.path + "/x.png"])
        #expect(result.status == 7)
        #expect(result.reason == .accountNrChecksum && result.stderr.contains("accountNr"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.path + "/x.png"))
        let noCheck = CLI.run(["issue", "--from", json, "--no-check", "--output", sandbox.path + "/x.png"])
        #expect(noCheck.status == 0, "\(noCheck.stderr)")
    }

    /// Each bad picture: exit code 2 and one line on stderr naming the file.
    @Test func badPicturesExitTwoWithOneLine() throws {
        let sandbox = CLI.Sandbox()
        let payload = PlainPayload.encode(Self.nordic)
        let png = try PNGCodec.encode(QRRender.image(try QRMatrix.encode(payload, level: .M), scale: 4))
        let jpeg = try JPEGCodec.encode(QRRender.image(try QRMatrix.encode(payload, level: .M), scale: 4), quality: 80)
        var giant: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        giant += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 0, 0, 0, 0]
        giant += crc32(Array(giant[12...]))
        let files: [(String, [UInt8])] = [
            ("empty.png", []),
            ("random.jpg", (0..<4096).map { _ in UInt8.random(in: 0...255) }),
            ("truncated.png", Array(png.prefix(png.count / 2))),
            ("truncated.jpg", Array(jpeg.prefix(jpeg.count / 2))),
            ("giant.png", giant),
            ("notes.txt", Array("not a picture\n".utf8)),
        ]
        var paths = files.map { name, bytes in
            let path = sandbox.path + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            return path
        }
        paths.append(contentsOf: ["01.png", "05.png"].map { corpus + "/no-qr/" + $0 })
        paths.append(sandbox.path + "/missing.png")
        for path in paths {
            let result = CLI.run(["scan", path])
            #expect(result.status == 2, "\(path): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(path): \(result.stderr)")
            #expect(result.stderr.contains((path as NSString).lastPathComponent), "the message names the file: \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}

/// The shared decode corpus, read in place (never copied into the project).
let corpus = packageRoot + "/../shared/corpus"

func crc32(_ bytes: [UInt8]) -> [UInt8] {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    return [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
}
