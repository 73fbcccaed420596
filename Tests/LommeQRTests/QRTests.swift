import LommeCore
import LommeQR
import LommeScan
import LommeTestSupport
import Testing

@Suite("QR encoding and drawing")
struct QRTests {
    @Test(arguments: QRMatrix.ErrorCorrection.allCases)
    func matrixReadsBackAtEveryLevel(level: QRMatrix.ErrorCorrection) throws {
        let payload = PlainPayload.encode(sampleConfig())
        let matrix = try QRMatrix.encode(payload, level: level)
        #expect(matrix.size == 17 + 4 * matrix.version)
        let found = ZBarScanner().scan(QRRender.image(matrix, scale: 3))
        #expect(found.map(\.bytes) == [Array(payload.utf8)])
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
        let found = ZBarScanner().scan(QRVerify.imageFromTerminal(text, style: style))
        #expect(found.map(\.bytes) == [Array(payload.utf8)])
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
