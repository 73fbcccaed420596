import LommeCore
import LommeImages
import LommeScan

/// The check `issue` makes before it shows anything: the drawing, read back by our own
/// scanner, must give exactly the payload.
package enum QRVerify {
    /// Decodes `image` with zbar and demands exactly one code holding `payload`.
    package static func check(_ image: GrayImage, holds payload: String, what: String) throws(LommeError) {
        let found = ZBarScanner().scan(image)
        guard found.count == 1, found[0].bytes == Array(payload.utf8) else {
            throw LommeError.failure(
                "the \(what) did not read back as the payload (\(found.count) codes found); nothing was shown — please report this")
        }
    }

    /// Turns terminal text made by `QRRender.terminal` back into pixels (4 per module
    /// side), so the characters themselves are what gets checked.
    package static func imageFromTerminal(_ text: String, style: QRRender.TerminalStyle) -> GrayImage {
        let scale = 4
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            let visible = stripEscapes(String(line))
            switch style {
            case .fullBlocks:
                let cells = Array(visible)
                rows.append(stride(from: 0, to: cells.count - 1, by: 2).map { cells[$0] == "█" })
            case .halfBlocks:
                let cells = Array(visible)
                rows.append(cells.map { $0 == "█" || $0 == "▀" })
                rows.append(cells.map { $0 == "█" || $0 == "▄" })
            }
        }
        let width = rows.map(\.count).max() ?? 0
        var image = GrayImage(width: width * scale, height: rows.count * scale, fill: 255)
        for (y, row) in rows.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                for dy in 0..<scale {
                    for dx in 0..<scale { image[x * scale + dx, y * scale + dy] = 0 }
                }
            }
        }
        return image
    }

    static func stripEscapes(_ line: String) -> String {
        var output = ""
        var inEscape = false
        for character in line {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                output.append(character)
            }
        }
        return output
    }
}
