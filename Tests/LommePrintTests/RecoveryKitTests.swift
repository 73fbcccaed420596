import Foundation
import LommeCore
import LommeImages
import LommePrint
import LommeScan
import LommeTestSupport
import Testing

/// The recovery kit read back by programs no one here wrote: poppler (pdfinfo, pdftoppm,
/// pdftotext, pdffonts), zbarimg, zxing-cpp, librsvg and ImageMagick; and a phone-like photo
/// of it by our own scanner. Every kit holds a fresh real recovery key.
@Suite("Recovery kit")
struct RecoveryKitTests {
    static func kit() -> RecoveryKit {
        let key = RecoveryKey.generate()
        return RecoveryKit(keyText: key.text, qrText: key.qrText, household: "ABCD-EFGH-JKLM-NPQR", date: "2026-11-27")
    }

    /// Runs a program; its exit status, stdout and stderr (through a file, so that neither
    /// pipe can fill up and stall it).
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let folder = TemporaryFolder("lomme-kit-run")
        let errors = folder.path + "/stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: readFile(errors), as: UTF8.self))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// What zbarimg reads in the picture: each code's text (`--raw`, one a line).
    static func zbarimg(_ path: String) throws -> [String] {
        let r = try run("zbarimg", ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path])
        return r.status == 0 ? r.out.split(separator: "\n").map(String.init) : []
    }

    /// The groups of five the text shows, in order: the recovery key as printed.
    static func keyGroups(in text: String) -> [String] {
        let alphabet = Set("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { $0.count == 5 && $0.allSatisfy(alphabet.contains) }
    }

    @Test(arguments: [(Paper.a4, "595 x 842 pts (A4)"), (Paper.letter, "612 x 792 pts (letter)")])
    func thePDFIsOnePageThatPopplerRendersAndZbarReads(paper: Paper, size: String) throws {
        let folder = TemporaryFolder("lomme-kit-pdf")
        let kit = Self.kit()
        let pdf = folder.path + "/kit.pdf"
        try Self.write(try kit.pdf(paper: paper), to: pdf)

        let info = try Self.run("pdfinfo", [pdf])
        #expect(info.status == 0, "\(info.err)")
        var fields: [String: String] = [:]
        for line in info.out.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #expect(fields["Pages"] == "1", "\(info.out)")
        #expect(fields["Page size"] == size, "\(info.out)")
        #expect(fields["Title"] == "lomme-vault recovery kit", "\(info.out)")
        #expect(!info.out.contains(kit.keyText) && !info.out.contains(kit.keyText.prefix(5)), "the key is in the document's information")

        // The fonts are embedded (subsets), so the page prints the same on any machine.
        let fonts = try Self.run("pdffonts", [pdf])
        let rows = fonts.out.split(separator: "\n").dropFirst(2)
        #expect(fonts.status == 0 && !rows.isEmpty, "\(fonts.out) \(fonts.err)")
        for row in rows {
            #expect(row.split(separator: " ").filter { $0 == "yes" || $0 == "no" }.first == "yes", "not embedded: \(row)")
        }

        // The words: the key's groups in order (typed back, they are the key), the household, the date.
        let text = try Self.run("pdftotext", ["-layout", pdf, "-"])
        #expect(text.status == 0, "\(text.err)")
        let groups = Self.keyGroups(in: text.out)
        #expect(groups.joined(separator: "-") == kit.keyText, "\(groups) in \(text.out)")
        #expect((try? RecoveryKey(text: groups.joined(separator: " ")).text) == kit.keyText)
        #expect(text.out.contains("ABCD-EFGH-JKLM-NPQR") && text.out.contains("2026-11-27"), "\(text.out)")
        #expect(text.out.contains("lomme-vault recovery kit") && text.out.contains("lomme-vault unlock --with recovery"), "\(text.out)")

        // Rendered at 150 dpi, the QR code reads as exactly the key's QR text, with zbar and zxing-cpp.
        let rendered = folder.path + "/page"
        let render = try Self.run("pdftoppm", ["-r", "150", "-png", "-singlefile", pdf, rendered])
        #expect(render.status == 0, "\(render.err)")
        #expect(try Self.zbarimg(rendered + ".png") == [kit.qrText])
        let zxing = try Self.run("ZXingReader", [rendered + ".png"])
        #expect(zxing.out.contains("Text:       \"\(kit.qrText)\""), "\(zxing.out) \(zxing.err)")
        #expect(zxing.out.contains("EC Level:   Q"), "\(zxing.out)")
        // At least 4 cm wide on paper: zxing-cpp's corners, in pixels of 1/150 inch.
        let corners = zxing.out.split(separator: "\n").first { $0.hasPrefix("Position:") }?
            .split(separator: " ").dropFirst().compactMap { point -> (Double, Double)? in
                let xy = point.split(separator: "x").compactMap { Double($0) }
                return xy.count == 2 ? (xy[0], xy[1]) : nil
            } ?? []
        try #require(corners.count == 4, "\(zxing.out)")
        let side = hypot(corners[1].0 - corners[0].0, corners[1].1 - corners[0].1) / 150 * 2.54
        #expect(side >= 4, "the code is \(side) cm wide")

        // Nothing is drawn within half an inch of the paper's edges: the page fits the paper.
        let page = try ImageLoader.load(path: rendered + ".png")
        // (poppler rounds a part pixel up, cairo to the nearest.)
        #expect(abs(page.width - Int((paper.width * 150 / 72).rounded())) <= 1 && abs(page.height - Int((paper.height * 150 / 72).rounded())) <= 1)
        let edge = 75
        var inked: [(Int, Int)] = []
        for y in 0..<page.height {
            for x in 0..<page.width where (y < edge || y >= page.height - edge || x < edge || x >= page.width - edge) && page[x, y] < 200 {
                inked.append((x, y))
            }
        }
        #expect(inked.isEmpty, "\(inked.count) dark pixels near the edge, first \(inked.prefix(3))")
    }

    /// A photo of a printed kit: a few degrees askew, a little blurred and shrunk, greyer,
    /// noisy, saved as JPEG by ImageMagick. zbarimg and the project's own scanner still read it.
    @Test func thePNGReadsAndSoDoesAPhoneLikePhotoOfIt() throws {
        let folder = TemporaryFolder("lomme-kit-png")
        let kit = Self.kit()
        let png = try kit.png()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let path = folder.path + "/kit.png"
        try Self.write(png, to: path)
        let size = try ImageLoader.size(bytes: png)
        #expect(size.width == 1240 && size.height == 1754, "A4 at 150 dpi: \(size)")
        #expect(try Self.zbarimg(path) == [kit.qrText])

        let photo = folder.path + "/photo.jpg"
        try ImageMagick.convert([path, "-background", "white", "-rotate", "4", "-blur", "0x1.5", "-resize", "70%",
                                 "+level", "12%,88%", "-attenuate", "0.4", "+noise", "Gaussian", "-quality", "60", photo])
        #expect(try Self.zbarimg(photo) == [kit.qrText])
        let found = try Scanner.scan(path: photo, options: ScanOptions(deadline: .seconds(120)), accept: { $0.text == kit.qrText })
        #expect(found.map(\.text) == [kit.qrText])
        #expect(RecoveryKey.isRecoveryKey(found.first?.text ?? ""))
    }

    @Test func theSVGIsWellFormedAndLibrsvgsRenderingReads() throws {
        let folder = TemporaryFolder("lomme-kit-svg")
        let kit = Self.kit()
        let svg = folder.path + "/kit.svg"
        try Self.write(try kit.svg(), to: svg)

        let parsed = try Self.run("python3", ["-c", """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            print(root.tag, root.get("width"), root.get("height"))
            """, svg])
        #expect(parsed.status == 0, "\(parsed.err)")
        #expect(parsed.out == "{http://www.w3.org/2000/svg}svg 595pt 842pt\n", "\(parsed.out)")

        let png = folder.path + "/svg.png"
        let render = try Self.run("rsvg-convert", ["--dpi-x", "150", "--dpi-y", "150", "--background-color", "white", "-o", png, svg])
        #expect(render.status == 0, "\(render.err)")
        #expect(try Self.zbarimg(png) == [kit.qrText])
        let size = try ImageLoader.size(bytes: readFile(png))
        #expect(size.width == 1240 && abs(size.height - 1754) <= 1, "A4 at 150 dpi: \(size)")
    }

    /// Three screens for a terminal, each within 72 columns and short enough for a window of
    /// 24 rows with the question under it (two rows at 80 columns): the key as text, the
    /// caption of its QR code, the words; the key on the first alone.
    @Test(arguments: [0, 1, 2])
    func theTerminalGetsTheKeyThenTheCodeThenTheWords(earlierKits: Int) throws {
        var kit = Self.kit()
        kit.earlierKits = earlierKits
        let (key, caption, words) = kit.terminalScreens()
        #expect(key.hasPrefix("lomme-vault recovery kit\n"))
        #expect(key.contains("ABCD-EFGH-JKLM-NPQR") && key.contains("2026-11-27") && key.contains("Keep it like a passport"))
        #expect(Self.keyGroups(in: key).joined(separator: "-") == kit.keyText, "\(key)")
        for line in kit.keyLines { #expect(key.contains("\n    " + line + "\n")) }
        #expect(kit.keyLines.count == 2 && kit.keyLines[0].split(separator: " - ").count == 4)
        #expect(caption == "The QR code holds the same key.")
        #expect(!words.contains(kit.keyText.prefix(5)) && !words.contains("`"))
        for text in ["lomme-vault unlock --with recovery", "lomme-vault init --parent --restore", "(lomme-vault recovery kit)", "passport"] {
            #expect(words.contains(text), "\(text) is missing: \(words)")
        }
        #expect(words.contains("It replaces") == (earlierKits > 0))
        for screen in [key, words] {
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count + 2 <= 24, "\(lines.count) rows:\n\(screen)")
            for line in lines { #expect(line.count <= 72, "\(line.count) columns: \(line)") }
        }
        // The same code the page carries, for the terminal to draw.
        let code = try kit.code()
        #expect(code.payload == kit.qrText && code.matrix.level == .Q)
    }

    @Test func theFileIsChosenByItsExtension() throws {
        let kit = Self.kit()
        #expect(try kit.fileBytes(for: "kit.PDF", paper: .letter).starts(with: Array("%PDF-".utf8)))
        #expect(try kit.fileBytes(for: "kit.png", paper: .a4).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try kit.fileBytes(for: "/tmp/kit.svg", paper: .a4).starts(with: Array("<?xml".utf8)))
        #expect(throws: LommeError.usage(.outputFormatUnknown, "a recovery kit is written as .pdf, .png or .svg: kit.txt")) {
            try kit.fileBytes(for: "kit.txt", paper: .a4)
        }
        #expect(Paper(rawValue: "letter") == .letter && Paper(rawValue: "a4") == .a4)
    }

    /// A kit whose code and text are different keys, or whose text is no key, is never drawn.
    @Test func aKitThatWouldPrintTwoKeysOrNoneIsRefused() {
        let kit = Self.kit(), other = Self.kit()
        var mixed = kit
        mixed.qrText = other.qrText
        #expect(throws: LommeError.self) { try mixed.pdf(paper: .a4) }
        #expect(throws: LommeError.self) { try mixed.png() }
        var typo = kit
        let first = typo.keyText.first == "A" ? "B" : "A"
        typo.keyText = first + typo.keyText.dropFirst()
        typo.qrText = RecoveryKey.qrPrefix + typo.keyText
        #expect(throws: LommeError.self) { try typo.svg() }
    }
}
