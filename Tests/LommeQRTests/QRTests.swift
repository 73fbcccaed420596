import LommeCore
import LommeQR
import LommeScan
import LommeTestSupport
import Testing

@Suite("QR encoding and drawing")
struct QRTests {
    @Test(arguments: QRErrorCorrection.allCases)
    func matrixReadsBackAtEveryLevel(level: QRErrorCorrection) throws {
        let payload = PlainPayload.encode(sampleConfig())
        let matrix = try QRMatrix.encode(payload, level: level)
        #expect(matrix.size == 17 + 4 * matrix.version)
        let found = ZBarScanner().scan(QRRender.image(matrix, scale: 3))
        #expect(found.map(\.bytes) == [Array(payload.utf8)])
    }

    /// A code is made at its kind's level (`CodeKind.facts`) unless another is asked for,
    /// and lomme-vault makes no code of another application's.
    @Test(arguments: CodeKind.allCases)
    func anIssuedCodeTakesItsKindsLevel(kind: CodeKind) throws {
        let payload = "LR1:SAMPLE"
        guard let level = kind.facts.level else {
            #expect(throws: LommeError.self) { try IssuedCode(payload: payload, kind: kind) }
            return
        }
        #expect(try IssuedCode(payload: payload, kind: kind).matrix.level == level)
        #expect(try IssuedCode(payload: payload, kind: kind, level: .L).matrix.level == .L)
    }

    /// The scanner's whole-picture passes have zbar scan every second line: a code of
    /// 3-pixel modules still reads so; one of 2-pixel modules reads at every line and not at
    /// every second (zbarimg -Sx-density=2 -Sy-density=2 agrees), and one scanner set sparse
    /// and then dense again reads it.
    @Test func zbarScanLineSpacingIsAppliedAndReset() throws {
        let payload = PlainPayload.encode(sampleConfig())
        let matrix = try QRMatrix.encode(payload, level: .M)
        let expected = [Array(payload.utf8)]
        let scanner = ZBarScanner()
        #expect(scanner.scan(QRRender.image(matrix, scale: 3), lineSpacing: 2).map(\.bytes) == expected)
        let small = QRRender.image(matrix, scale: 2)
        #expect(scanner.scan(small, lineSpacing: 2).isEmpty, "every second line steps over 2-pixel modules")
        #expect(scanner.scan(small).map(\.bytes) == expected, "every line again")
        #expect(scanner.scan(small, lineSpacing: 2).isEmpty)
        #expect(scanner.scan(small, lineSpacing: 0).map(\.bytes) == expected, "a spacing under 1 is 1")
    }

    @Test(arguments: [QRRender.TerminalStyle.halfBlocks, .fullBlocks])
    func terminalDrawingReadsBack(style: QRRender.TerminalStyle) throws {
        let payload = PlainPayload.encode(sampleConfig())
        let matrix = try QRMatrix.encode(payload, level: .H)
        let text = QRRender.terminal(matrix, style: style)
        let lines = text.split(separator: "\n")
        let side = matrix.size + 8
        #expect(lines.count == (style == .halfBlocks ? (side + 1) / 2 : side))
        for line in lines {
            #expect(line.hasPrefix("\u{1B}["), "every line sets its colours")
            #expect(line.hasSuffix("\u{1B}[0m"), "every line resets its colours")
        }
        for theme in QRVerify.Theme.allCases {
            let found = ZBarScanner().scan(QRVerify.imageFromTerminal(text, style: style, theme: theme))
            #expect(found.map(\.bytes) == [Array(payload.utf8)], "on a \(theme) theme")
        }
        let plain = QRRender.text(matrix, style: style)
        #expect(!plain.contains("\u{1B}"))
        #expect(ZBarScanner().scan(QRVerify.imageFromTerminal(plain, style: style)).map(\.bytes) == [Array(payload.utf8)])
    }

    /// Colours a theme sets (0–15, or none) read differently on a dark and a light theme;
    /// only 256-colour black and white read the same on both.
    @Test func readBackTellsThemeColoursFromFixedOnes() {
        let themed = "\u{1B}[30;47m ▀\u{1B}[0m\n", fixed = "\u{1B}[38;5;231;48;5;16m ▀\u{1B}[0m\n"
        let pixels = { (text: String, theme: QRVerify.Theme) in QRVerify.imageFromTerminal(text, style: .halfBlocks, theme: theme).pixels }
        #expect(pixels(themed, .dark) != pixels(themed, .light))
        #expect(pixels(fixed, .dark) == pixels(fixed, .light))
        // A space is all background (black); `▀` is white above, black below; 4×8 px a cell.
        let top = [UInt8](repeating: 0, count: 4) + [UInt8](repeating: 255, count: 4)
        #expect(pixels(fixed, .dark) == Array([[UInt8]](repeating: top, count: 4).joined()) + [UInt8](repeating: 0, count: 32))
    }

    @Test func linuxConsoleGetsFullBlocks() {
        #expect(QRRender.TerminalStyle.forTerminal("linux") == .fullBlocks)
        #expect(QRRender.TerminalStyle.forTerminal("xterm-256color") == .halfBlocks)
    }

    @Test func verifyRefusesADrawingOfSomethingElse() throws {
        let matrix = try QRMatrix.encode("one thing", level: .M)
        #expect(throws: LommeError.self) {
            try QRVerify.check(QRRender.image(matrix, scale: 4), holds: "another thing", what: "test")
        }
    }

    @Test func svgHasQuietZoneAndOnePath() throws {
        let matrix = try QRMatrix.encode("svg", level: .L)
        let svg = QRRender.svg(matrix)
        #expect(svg.contains(#"viewBox="0 0 \#(matrix.size + 8) \#(matrix.size + 8)""#))
        #expect(svg.contains("M4 4h7v1h-7z"), "the top-left finder starts at the quiet zone")
    }
}
