import LommeImages

/// Draws a QR matrix for people and cameras: in a terminal, as pixels, or as SVG.
/// Every drawing has a quiet zone of four light modules around the code.
package enum QRRender {
    package static let quietZone = 4

    /// How a terminal draws the code.
    package enum TerminalStyle: Sendable {
        /// `▀ ▄ █`: two module rows per text line, square modules on most fonts.
        case halfBlocks
        /// `██`: one module row per line, for consoles without half blocks (`TERM=linux`).
        case fullBlocks

        /// Half blocks unless the terminal is the Linux console (or says it is dumb).
        package static func forTerminal(_ term: String?) -> TerminalStyle {
            switch term ?? "" {
            case "linux", "vt100", "vt102", "vt220", "dumb", "": .fullBlocks
            default: .halfBlocks
            }
        }
    }

    /// 256-colour black and white (16 and 231) are fixed in every palette, unlike colours
    /// 0–15 that themes change.
    package static let black = 16, white = 231
    static func background(_ colour: Int) -> String { "\u{1B}[48;5;\(colour)m" }
    static let reset = "\u{1B}[0m"

    /// Text for a terminal, with explicit colours so it reads the same on dark and light
    /// themes. Every dark module is the cell's BACKGROUND (black): the font's glyphs need not
    /// fill their cells, and the seams they leave must never cross a dark module. A cell that
    /// is all light is a space on a white background; only a cell half dark, half light
    /// holds a glyph, `▀` or `▄` in white on black, so a seam can only thin a light half.
    /// Full blocks are two spaces per module and no glyph at all. Each line resets its colours.
    package static func terminal(_ matrix: QRMatrix, style: TerminalStyle) -> String {
        var output = ""
        for row in rows(matrix, style: style) {
            output += "\u{1B}[38;5;\(white)m"
            var current = -1
            for (top, bottom) in row {
                let colour = top && bottom ? white : black
                if colour != current { output += background(colour); current = colour }
                switch (top, bottom) {
                case (true, false): output += "▀"
                case (false, true): output += "▄"
                default: output += style == .fullBlocks ? "  " : " "
                }
            }
            output += reset + "\n"
        }
        return output
    }

    /// The drawing as plain text for a file or a pipe, where colour escapes would be noise:
    /// dark modules are ink (`█ ▀ ▄`), light ones spaces, as on paper or a light ground.
    package static func text(_ matrix: QRMatrix, style: TerminalStyle) -> String {
        rows(matrix, style: style).map { row in
            row.map { top, bottom in
                switch (top, bottom) {
                case (true, true): style == .fullBlocks ? "  " : " "
                case (true, false): "▄"
                case (false, true): "▀"
                case (false, false): style == .fullBlocks ? "██" : "█"
                }
            }.joined() + "\n"
        }.joined()
    }

    /// The cells of each text line, quiet zone included, as (top half light, bottom half
    /// light); full blocks have one module row per line, so both halves are the same.
    static func rows(_ matrix: QRMatrix, style: TerminalStyle) -> [[(Bool, Bool)]] {
        let first = -quietZone
        let last = matrix.size + quietZone
        let light = { (x: Int, y: Int) in y >= last || !matrix[x, y] }
        let step = style == .halfBlocks ? 2 : 1
        return stride(from: first, to: last, by: step).map { y in
            (first..<last).map { x in (light(x, y), light(x, y + step - 1)) }
        }
    }

    /// Pixels, `scale` per module, black on white, with the quiet zone.
    package static func image(_ matrix: QRMatrix, scale: Int = 8) -> GrayImage {
        let side = (matrix.size + 2 * quietZone) * scale
        var image = GrayImage(width: side, height: side, fill: 255)
        for y in 0..<matrix.size {
            for x in 0..<matrix.size where matrix[x, y] {
                let left = (x + quietZone) * scale
                let top = (y + quietZone) * scale
                for row in top..<top + scale {
                    image.pixels.replaceSubrange(row * side + left..<row * side + left + scale, with: repeatElement(0, count: scale))
                }
            }
        }
        return image
    }

    /// An SVG drawing: one path of unit squares on a white ground, crisp edges.
    package static func svg(_ matrix: QRMatrix, moduleSize: Int = 8) -> String {
        let side = matrix.size + 2 * quietZone
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            while x < matrix.size {
                guard matrix[x, y] else { x += 1; continue }
                var run = 1
                while matrix[x + run, y] { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(side * moduleSize)" height="\(side * moduleSize)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#ffffff"/>
            <path fill="#000000" stroke="none" d="\(path)"/>
            </svg>

            """
    }
}
