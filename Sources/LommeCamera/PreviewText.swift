import LommeImages

/// A small grey picture of a frame for a terminal: each character cell is an upper half
/// block (`▀`) whose foreground is the upper pixel and background the lower one, in the 24
/// greys of the 256-colour palette (232-255). Text only: the CLI writes it.
package enum PreviewText {
    /// The preview's size in cells for a frame `width` × `height` in a window of `columns` ×
    /// `rows`: at most 64 cells wide, and leaving `reserve` rows free (for the lines under it);
    /// nil when the window is too small for a useful picture (under 16 × 6).
    package static func size(width: Int, height: Int, columns: Int, rows: Int, reserve: Int = 3) -> (columns: Int, rows: Int)? {
        guard width > 0, height > 0 else { return nil }
        var cols = min(columns - 1, maximumColumns)
        // a cell is about twice as tall as wide and holds two pixels down: square pixels
        var lines = cols * height / width / 2
        let room = rows - reserve
        if lines > room {
            lines = room
            cols = lines * 2 * width / height
        }
        guard cols >= 16, lines >= 6 else { return nil }
        return (cols, lines)
    }

    static let maximumColumns = 64

    /// The frame drawn in `columns` × `rows` cells: one string per row, each ending with the
    /// attributes reset. `marked` draws a bright frame round the picture (a code was found).
    package static func render(_ image: GrayImage, columns: Int, rows: Int, marked: Bool = false) -> [String] {
        let h = rows * 2
        var lines: [String] = []
        lines.reserveCapacity(rows)
        for row in 0..<rows {
            var line = ""
            line.reserveCapacity(columns * 24)
            var last: (Int, Int) = (-1, -1)
            for column in 0..<columns {
                var top = grey(image, column, row * 2, columns, h)
                var bottom = grey(image, column, row * 2 + 1, columns, h)
                if marked {
                    let edge = column == 0 || column == columns - 1
                    if edge || row == 0 { top = markLevel }
                    if edge || row == rows - 1 { bottom = markLevel }
                }
                if (top, bottom) != last {
                    line += "\u{1B}[38;5;\(top);48;5;\(bottom)m"
                    last = (top, bottom)
                }
                line += "▀"
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines
    }

    /// A palette colour for the mark: bright green.
    static let markLevel = 46

    /// The palette grey (232 black … 255 white) of the mean of the pixels under one half cell.
    static func grey(_ image: GrayImage, _ x: Int, _ y: Int, _ columns: Int, _ height: Int) -> Int {
        let x0 = x * image.width / columns, x1 = max(x0 + 1, (x + 1) * image.width / columns)
        let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
        var sum = 0, count = 0
        // at most 4 × 4 samples a cell: the preview need not be exact
        let stepX = max(1, (x1 - x0) / 4), stepY = max(1, (y1 - y0) / 4)
        var yy = y0
        while yy < min(y1, image.height) {
            var xx = x0
            while xx < min(x1, image.width) {
                sum += Int(image.pixels[yy * image.width + xx])
                count += 1
                xx += stepX
            }
            yy += stepY
        }
        let mean = count > 0 ? sum / count : 0
        return 232 + min(23, mean * 24 / 256)
    }
}
