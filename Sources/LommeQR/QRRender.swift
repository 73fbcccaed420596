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

    /// Text for a terminal, with explicit colours — black modules on a white ground —
    /// so the code reads the same on dark and light themes. Each line resets its colours.
    package static func terminal(_ matrix: QRMatrix, style: TerminalStyle) -> String {
        let colours: String
        switch style {
        case .fullBlocks: colours = "\u{1B}[30;47m"
        // 256-colour black and white are fixed in every palette, unlike colours 0–15
        // that themes change.
        case .halfBlocks: colours = "\u{1B}[38;5;16;48;5;231m"
        }
        let reset = "\u{1B}[0m"
        let first = -quietZone
        let last = matrix.size + quietZone
        var output = ""
        switch style {
        case .fullBlocks:
            for y in first..<last {
                output += colours
                for x in first..<last { output += matrix[x, y] ? "██" : "  " }
                output += reset + "\n"
            }
        case .halfBlocks:
            var y = first
            while y < last {
                output += colours
                for x in first..<last {
                    let top = matrix[x, y]
                    let bottom = y + 1 < last && matrix[x, y + 1]
                    switch (top, bottom) {
                    case (true, true): output += "█"
                    case (true, false): output += "▀"
                    case (false, true): output += "▄"
                    case (false, false): output += " "
                    }
                }
                output += reset + "\n"
                y += 2
            }
        }
        return output
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
