import LommeCore
import LommeQR

/// The kit's one page, laid out in points (1/72 inch) from the top left corner, the same on
/// every surface (PDF, SVG, the PNG's pixels) and on A4 and Letter: the title, the household
/// and the date, the key in a box, the QR code, and what the sheet is.
struct KitPage {
    let kit: RecoveryKit
    let matrix: QRMatrix
    let paper: Paper

    /// Three quarters of an inch all round: inside what any printer prints.
    static let margin = 54.0
    /// The QR code's side without its quiet zone: 6 cm (2 mm a module), well over the 4 cm
    /// a phone needs from an arm's length.
    static let codeSide = 60 / 25.4 * 72
    /// The largest size the key is set in (a smaller one only if a line would not fit).
    static let keySize = 26.0
    static let textSize = 11.0, leading = 15.0

    init(kit: RecoveryKit, matrix: QRMatrix, paper: Paper) {
        self.kit = kit
        self.matrix = matrix
        self.paper = paper
    }

    var contentWidth: Double { paper.width - 2 * KitPage.margin }
    /// One module of the code.
    var module: Double { KitPage.codeSide / Double(matrix.size) }

    /// The page drawn by cairo on pixels, `scale` per point.
    func raster(scale: Double) throws(LommeError) -> Cairo.Raster {
        try Cairo.Raster(width: Int((paper.width * scale).rounded()), height: Int((paper.height * scale).rounded()), scale: scale) {
            draw($0)
        }
    }

    /// Draws the page; returns how far down it reached (the tests keep that above the
    /// bottom margin).
    @discardableResult
    func draw(_ pen: Pen) -> Double {
        let left = KitPage.margin
        var y = KitPage.margin

        pen.grey(0)
        pen.font(.sansBold, size: 24)
        y += 22
        pen.text(Words.title, x: left, y: y)
        pen.font(.sans, size: 12)
        y += 22
        pen.text(Words.subtitle, x: left, y: y)
        y += 12
        pen.line(from: (left, y), to: (left + contentWidth, y), width: 0.75)

        // The household and the date, labels in grey.
        let labelWidth = 76.0
        for (label, value) in [("Household", kit.household), ("Made on", kit.date)] {
            y += 22
            pen.grey(0.35)
            pen.font(.sans, size: 10)
            pen.text(label, x: left, y: y)
            pen.grey(0)
            pen.font(.mono, size: 13)
            pen.text(value, x: left + labelWidth, y: y)
        }

        // The key, in a box, centred, as large as fits.
        y += 30
        pen.grey(0.35)
        pen.font(.sans, size: 10)
        pen.text("Recovery key", x: left, y: y)
        pen.grey(0)
        let padding = 16.0
        let lines = kit.keyLines
        var size = KitPage.keySize
        pen.font(.monoBold, size: size)
        let widest = lines.map(pen.width).max() ?? 0
        if widest > contentWidth - 2 * padding {
            size *= (contentWidth - 2 * padding) / widest
            pen.font(.monoBold, size: size)
        }
        let lineHeight = size * 1.4
        let boxTop = y + 8
        let boxHeight = 2 * padding + Double(lines.count) * lineHeight - (lineHeight - size)
        pen.frame(x: left, y: boxTop, width: contentWidth, height: boxHeight, line: 1.5)
        for (index, line) in lines.enumerated() {
            // The baseline sits at about three quarters of the size below the line's top.
            let baseline = boxTop + padding + Double(index) * lineHeight + size * 0.76
            pen.text(line, x: left + (contentWidth - pen.width(line)) / 2, y: baseline)
        }
        y = boxTop + boxHeight

        // The QR code, centred, its quiet zone kept clear.
        let quiet = Double(QRRender.quietZone) * module
        y += 16
        let codeLeft = left + (contentWidth - KitPage.codeSide) / 2
        let codeTop = y + quiet
        var squares: [(x: Double, y: Double, width: Double, height: Double)] = []
        for row in 0..<matrix.size {
            var column = 0
            while column < matrix.size {
                guard matrix[column, row] else { column += 1; continue }
                var run = 1
                while matrix[column + run, row] { run += 1 }
                squares.append((codeLeft + Double(column) * module, codeTop + Double(row) * module, Double(run) * module, module))
                column += run
            }
        }
        pen.fill(squares)
        y = codeTop + KitPage.codeSide + quiet
        pen.font(.sans, size: 10)
        pen.grey(0.35)
        pen.text(Words.qrCaption, x: left + (contentWidth - pen.width(Words.qrCaption)) / 2, y: y)
        pen.grey(0)

        // What the sheet is, and where to keep it.
        for (heading, body) in Words.sections(kit) {
            y += 30
            pen.font(.sansBold, size: 13)
            pen.text(heading, x: left, y: y)
            y += 4
            pen.font(.sans, size: KitPage.textSize)
            let space = pen.width(" ")
            let measure = { (token: Words.Token) -> Double in
                pen.font(token.command ? .mono : .sans, size: KitPage.textSize)
                return pen.width(token.text)
            }
            let lines = Words.lines(body, fits: { $0 <= contentWidth }, measure: measure, space: space)
            for line in lines {
                y += KitPage.leading
                var x = left
                for (index, token) in line.enumerated() {
                    if index > 0 && !token.glued { x += space }
                    pen.font(token.command ? .mono : .sans, size: KitPage.textSize)
                    pen.text(token.text, x: x, y: y)
                    x += pen.width(token.text)
                }
            }
        }
        return y + 4
    }
}
