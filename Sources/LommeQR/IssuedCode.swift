import LommeCore
import LommeImages

/// A payload made into a QR code and checked: what `issue` (and later `key`) shows.
package struct IssuedCode: Sendable {
    package let payload: String
    package let matrix: QRMatrix

    /// Encodes `payload` at `level` and reads the matrix back with zbar before anything
    /// is drawn.
    package init(payload: String, level: QRMatrix.ErrorCorrection) throws(LommeError) {
        self.payload = payload
        matrix = try QRMatrix.encode(payload, level: level)
        try QRVerify.check(QRRender.image(matrix, scale: 4), holds: payload, what: "QR code")
    }

    /// The code as terminal text, checked by turning the characters back into pixels.
    package func terminalText(term: String?) throws(LommeError) -> String {
        let style = QRRender.TerminalStyle.forTerminal(term)
        let text = QRRender.terminal(matrix, style: style)
        try QRVerify.check(QRVerify.imageFromTerminal(text, style: style), holds: payload, what: "terminal drawing")
        return text
    }

    /// The file to write for `--output`: PNG (8 px per module, re-read through our own PNG
    /// loader and scanner before it is written) or SVG, chosen by the extension.
    package func fileBytes(for path: String) throws(LommeError) -> [UInt8] {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") {
            let png = try PNGCodec.encode(QRRender.image(matrix, scale: 8))
            let reread = try ImageLoader.load(bytes: png, name: path)
            try QRVerify.check(reread, holds: payload, what: "PNG file")
            return png
        }
        if lower.hasSuffix(".svg") {
            return Array(QRRender.svg(matrix).utf8)
        }
        throw LommeError.usage("--output must end in .png or .svg: \(path)")
    }
}
