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
                .qrReadBackFailed, "the \(what) did not read back as the payload (\(found.count) codes found); nothing was shown — please report this")
        }
    }

    /// The colours a terminal's theme gives text that does not set its own.
    package enum Theme: CaseIterable, Sendable {
        case dark, light
        var foreground: UInt8 { self == .dark ? 255 : 0 }
        var background: UInt8 { self == .dark ? 0 : 255 }
    }

    /// Turns terminal text made by `QRRender.terminal` (or `.text`) back into pixels, 4 per
    /// module side, the way a terminal with `theme` shows it: a cell's background fills the
    /// cell, `█ ▀ ▄` paint their part in the foreground colour. Only 256-colour black and
    /// white (16, 231) are fixed; any other colour is the theme's, so a drawing that leans on
    /// the theme fails on one of the two.
    package static func imageFromTerminal(_ text: String, style: QRRender.TerminalStyle, theme: Theme = .light) -> GrayImage {
        let (cellWidth, cellHeight) = style == .halfBlocks ? (4, 8) : (2, 4)
        var rows: [[(top: UInt8, bottom: UInt8)]] = []
        // Colours hold across lines, as in a terminal, until an escape changes them.
        var foreground = theme.foreground, background = theme.background
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            var cells: [(top: UInt8, bottom: UInt8)] = []
            for part in escapeSplit(String(line)) {
                switch part {
                case .escape(let parameters):
                    (foreground, background) = applySGR(parameters, foreground, background, theme)
                case .character(let character):
                    switch character {
                    case " ": cells.append((background, background))
                    case "█": cells.append((foreground, foreground))
                    case "▀": cells.append((foreground, background))
                    case "▄": cells.append((background, foreground))
                    default: cells.append((128, 128))
                    }
                }
            }
            rows.append(cells)
        }
        let width = rows.map(\.count).max() ?? 0
        var image = GrayImage(width: width * cellWidth, height: rows.count * cellHeight, fill: theme.background)
        for (y, row) in rows.enumerated() {
            for (x, cell) in row.enumerated() {
                for dy in 0..<cellHeight {
                    for dx in 0..<cellWidth {
                        image[x * cellWidth + dx, y * cellHeight + dy] = dy < cellHeight / 2 ? cell.top : cell.bottom
                    }
                }
            }
        }
        return image
    }

    /// Colours after one SGR escape (`ESC [ … m`): 0 resets to the theme, 38;5;N and 48;5;N
    /// set 256-colour N (black and white fixed, any other the theme's), 30–49 are the theme's.
    static func applySGR(_ parameters: [Int], _ foreground: UInt8, _ background: UInt8, _ theme: Theme) -> (UInt8, UInt8) {
        var (foreground, background) = (foreground, background)
        var index = 0
        while index < parameters.count {
            let code = parameters[index]
            if (code == 38 || code == 48) && index + 2 < parameters.count && parameters[index + 1] == 5 {
                let fixed: UInt8? = parameters[index + 2] == QRRender.black ? 0 : parameters[index + 2] == QRRender.white ? 255 : nil
                if code == 38 { foreground = fixed ?? theme.foreground } else { background = fixed ?? theme.background }
                index += 3
                continue
            }
            if code == 0 { (foreground, background) = (theme.foreground, theme.background) }
            if (30...39).contains(code) { foreground = theme.foreground }
            if (40...49).contains(code) { background = theme.background }
            index += 1
        }
        return (foreground, background)
    }

    enum Part { case escape([Int]), character(Character) }

    /// A line as its characters and its CSI escapes (parameters of an `m`; any other escape
    /// is kept as no colour change).
    static func escapeSplit(_ line: String) -> [Part] {
        var parts: [Part] = []
        var escape: String?
        for character in line {
            if var text = escape {
                text.append(character)
                escape = text
                if character.isLetter {
                    escape = nil
                    if text.hasPrefix("[") && character == "m" {
                        parts.append(.escape(text.dropFirst().dropLast().split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }))
                    }
                }
            } else if character == "\u{1B}" {
                escape = ""
            } else {
                parts.append(.character(character))
            }
        }
        return parts
    }
}
