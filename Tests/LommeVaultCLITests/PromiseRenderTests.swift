import Foundation
import LommeQR
import Testing

/// docs/contract.md, "Issue output": the quiet zone, the module size and the colours, measured on what
/// the tool writes (the PNG decoded by ImageMagick, not by lomme-vault's own decoder).
@Suite("Promises: drawing")
struct PromiseRenderTests {
    static let config = #"{"clientId":"render","clientSecret":"render-secret","userId":"15128972371","accountNr":"98765432197"}"#

    /// Width, height and 8-bit grey pixels of a picture, by `convert FILE pgm:-`.
    static func pixels(_ file: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let r = CLI.run([file], shell: #"convert "$1" -depth 8 pgm:-"#)
        try #require(r.status == 0, "\(r.stderr)")
        var fields: [Int] = [], index = 2, number = ""
        while fields.count < 3 {
            let byte = r.stdout[index]; index += 1
            if (48...57).contains(byte) { number.append(Character(UnicodeScalar(byte))) } else if !number.isEmpty { fields.append(Int(number)!); number = "" }
        }
        #expect(fields[2] == 255)
        return (fields[0], fields[1], Array(r.stdout[index...]))
    }

    @Test func theIssuedPNGHasFourModulesOfQuietZoneOnEverySideAndEightPixelModules() throws {
        let box = CLI.Sandbox()
        let from = box.write("config.json", Self.config)
        let png = box.path + "/code.png"
        let issued = CLI.run(["issue", "--from", from, "--output", png])
        try #require(issued.status == 0, "\(issued.stderr)")
        let image = try Self.pixels(png)
        let dark = { (x: Int, y: Int) in image.pixels[y * image.width + x] < 128 }
        let rows = (0..<image.height).filter { y in (0..<image.width).contains { dark($0, y) } }
        let columns = (0..<image.width).filter { x in (0..<image.height).contains { dark(x, $0) } }
        let top = try #require(rows.first), bottom = try #require(rows.last)
        let left = try #require(columns.first), right = try #require(columns.last)
        // The top-left finder pattern is 7 modules of dark on the first dark row.
        let finder = (left..<image.width).prefix { dark($0, top) }.count
        #expect(finder % 7 == 0)
        let module = finder / 7
        #expect(module >= 8, "modules of \(module) px")
        let margins = [left, top, image.width - 1 - right, image.height - 1 - bottom]
        #expect(margins == [Int](repeating: 4 * module, count: 4), "margins \(margins) px with \(module) px modules")
        #expect(image.width == image.height && (image.width / module - 8) % 4 == 1, "\(image.width) px is not a QR code and its quiet zone")
    }

    static func terminalLines(_ style: QRRender.TerminalStyle) throws -> (lines: [String], matrix: QRMatrix) {
        let matrix = try QRMatrix.encode(Self.config, level: .M)
        return (QRRender.terminal(matrix, style: style).split(separator: "\n").map(String.init), matrix)
    }

    /// A terminal line as cells: (background, foreground, character) after its escapes.
    static func cells(_ line: String) -> [(background: String, foreground: String, character: Character)] {
        var background = "", foreground = "", cells: [(String, String, Character)] = []
        var rest = Substring(line)
        while let first = rest.first {
            if first == "\u{1B}", let end = rest.firstIndex(of: "m") {
                let escape = rest[rest.index(rest.startIndex, offsetBy: 2)..<end]
                if escape.hasPrefix("48;5;") { background = String(escape) } else if escape.hasPrefix("38;5;") { foreground = String(escape) } else { background = ""; foreground = "" }
                rest = rest[rest.index(after: end)...]
            } else {
                cells.append((background, foreground, first))
                rest = rest.dropFirst()
            }
        }
        return cells
    }

    /// Explicit 256-colour black (16) and white (231) only — colours 0–15 change with the
    /// theme —, reset at every line's end. Every dark module is a cell's black background: a
    /// glyph (`▀ ▄`, white) only ever sits on black, so the seams fonts leave around glyphs
    /// cannot cut a dark module. Read back that way, the cells are the code with four light
    /// modules on every side.
    @Test(arguments: [QRRender.TerminalStyle.halfBlocks, .fullBlocks])
    func theTerminalDrawingHasFixedColoursDarkBackgroundsAndAQuietZone(style: QRRender.TerminalStyle) throws {
        let (lines, matrix) = try Self.terminalLines(style)
        let side = matrix.size + 8, black = "48;5;16", white = "48;5;231"
        #expect(lines.count == (style == .halfBlocks ? (side + 1) / 2 : side))
        var modules: [[Bool]] = []  // true: dark
        for line in lines {
            #expect(line.hasSuffix("\u{1B}[0m"), "\(line.debugDescription.suffix(20))")
            let cells = Self.cells(line)
            #expect(cells.allSatisfy { [black, white].contains($0.background) }, "a cell without a fixed background")
            for cell in cells where cell.character != " " {
                #expect(cell.background == black && cell.foreground == "38;5;231" && "▀▄".contains(cell.character),
                        "a glyph \(cell.character) on \(cell.background) in \(cell.foreground)")
            }
            let step = style == .fullBlocks ? 2 : 1
            #expect(cells.count == side * step)
            #expect(style == .halfBlocks || cells.allSatisfy { $0.character == " " }, "full blocks are backgrounds only")
            let columns = stride(from: 0, to: cells.count, by: step).map { cells[$0] }
            let dark = { (cell: (background: String, foreground: String, character: Character), top: Bool) in
                cell.background == black && cell.character != (top ? "▀" : "▄")
            }
            modules.append(columns.map { dark($0, true) })
            if style == .halfBlocks { modules.append(columns.map { dark($0, false) }) }
        }
        for y in 0..<side {
            for x in 0..<side {
                #expect(modules[y][x] == matrix[x - 4, y - 4], "module \(x - 4), \(y - 4) (quiet zone: 4)")
            }
        }
    }

    @Test func theSVGIsDarkOnAWhiteGroundWithAQuietZone() throws {
        let matrix = try QRMatrix.encode(Self.config, level: .M)
        let svg = QRRender.svg(matrix)
        let side = matrix.size + 8
        #expect(svg.contains(##"<rect width="\##(side)" height="\##(side)" fill="#ffffff"/>"##))
        #expect(svg.contains(##"<path fill="#000000""##) && svg.contains(##"d="M4 4h7v1h-7z"##))
    }
}
