import Foundation
import LommeQR
import Testing

/// SPEC "Issue output": the quiet zone, the module size and the colours, measured on what
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

    /// Explicit 256-colour black on white on every line (colours 0–15 change with the theme),
    /// reset at its end; four blank modules on every side.
    @Test func theTerminalDrawingHasFixedColoursAndAQuietZone() throws {
        let (lines, matrix) = try Self.terminalLines(.halfBlocks)
        let start = "\u{1B}[38;5;16;48;5;231m", end = "\u{1B}[0m"
        #expect(lines.count == (matrix.size + 8 + 1) / 2)
        for line in lines {
            #expect(line.hasPrefix(start) && line.hasSuffix(end), "\(line.debugDescription.prefix(40))")
        }
        let cells = lines.map { Array($0.dropFirst(start.count).dropLast(end.count)) }
        #expect(cells.allSatisfy { $0.count == matrix.size + 8 })
        for blank in [cells[0], cells[1], cells[cells.count - 2]] {
            #expect(blank.allSatisfy { $0 == " " })
        }
        #expect(cells[cells.count - 1].allSatisfy { $0 == " " || $0 == "▀" }, "the last line's lower half is below the code")
        #expect(cells.allSatisfy { $0.prefix(4).allSatisfy { $0 == " " } && $0.suffix(4).allSatisfy { $0 == " " } })
        #expect(cells[2].contains("█") || cells[2].contains("▀") || cells[2].contains("▄"), "the code starts on the third line")
    }

    @Test func theSVGIsDarkOnAWhiteGroundWithAQuietZone() throws {
        let matrix = try QRMatrix.encode(Self.config, level: .M)
        let svg = QRRender.svg(matrix)
        let side = matrix.size + 8
        #expect(svg.contains(##"<rect width="\##(side)" height="\##(side)" fill="#ffffff"/>"##))
        #expect(svg.contains(##"<path fill="#000000""##) && svg.contains(##"d="M4 4h7v1h-7z"##))
    }
}
