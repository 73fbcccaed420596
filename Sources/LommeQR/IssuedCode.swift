import LommeCore
import LommeImages

/// A payload made into a QR code and checked: what `issue`, `issue --all`, `key`,
/// `receipt` and the recovery kit show or write. Its kind (`CodeKind.facts`) gives the
/// error-correction level it gets unless one is asked for, and the mode of a file holding it.
package struct IssuedCode: Sendable {
    package let payload: String
    package let kind: CodeKind
    package let matrix: QRMatrix

    /// Encodes `payload` at `level` (the kind's own when nil) and reads the matrix back with
    /// zbar before anything is drawn.
    package init(payload: String, kind: CodeKind, level: QRErrorCorrection? = nil) throws(LommeError) {
        self.payload = payload
        self.kind = kind
        matrix = try QRMatrix.encode(payload, level: IssuedCode.level(kind, asked: level))
        try QRVerify.check(QRRender.image(matrix, scale: 4), holds: payload, what: "QR code")
    }

    /// The level a code of `kind` is made at: the one asked for, else its kind's own.
    package static func level(_ kind: CodeKind, asked: QRErrorCorrection? = nil) throws(LommeError) -> QRErrorCorrection {
        guard let level = asked ?? kind.facts.level else { throw LommeError.failure(.internalError, "lomme-vault makes no code of another application's") }
        return level
    }

    /// The code for a terminal, with its colours, checked by turning the characters back
    /// into pixels as a terminal with a dark theme and one with a light theme shows them.
    package func terminalText(style: QRRender.TerminalStyle) throws(LommeError) -> String {
        let text = QRRender.terminal(matrix, style: style)
        for theme in QRVerify.Theme.allCases {
            try QRVerify.check(QRVerify.imageFromTerminal(text, style: style, theme: theme), holds: payload, what: "terminal drawing")
        }
        return text
    }

    /// The code as plain text for a file or a pipe (no escapes), checked as ink on paper.
    package func plainText(style: QRRender.TerminalStyle) throws(LommeError) -> String {
        let text = QRRender.text(matrix, style: style)
        try QRVerify.check(QRVerify.imageFromTerminal(text, style: style, theme: .light), holds: payload, what: "text drawing")
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
        throw LommeError.usage(.outputFormatUnknown, "--output must end in .png or .svg: \(path)")
    }
}
