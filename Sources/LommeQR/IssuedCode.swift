import LommeCore
import LommeImages

/// A payload made into a QR code and checked: what `issue`, `issue --all`, `key`,
/// `receipt` and the recovery kit show or write. Its kind decides, in this one place, the
/// error-correction level it gets unless one is asked for, and the mode of a file holding it.
package struct IssuedCode: Sendable {
    package let payload: String
    package let kind: Kind
    package let matrix: QRMatrix

    /// What a code holds, as far as how it is made and kept goes.
    package enum Kind: Sendable {
        /// The original app's JSON: the secret in clear.
        case plain
        /// Sealed to one device.
        case sealed
        /// A device's public receiving key (`key`).
        case receivingKey
        /// A child's receipt (public).
        case receipt
        /// The household's recovery key: a secret.
        case recoveryKit

        /// H for a plain code, as the original app's instructions; Q for the kit (a fold or
        /// a stain on paper); M for the rest, which are longer.
        package var defaultLevel: QRMatrix.ErrorCorrection {
            switch self {
            case .plain: .H
            case .recoveryKit: .Q
            case .sealed, .receivingKey, .receipt: .M
            }
        }

        /// 0600 for a file holding a secret (a plain code, the kit), 0644 otherwise.
        package var fileMode: UInt32 {
            switch self {
            case .plain, .recoveryKit: 0o600
            case .sealed, .receivingKey, .receipt: 0o644
            }
        }
    }

    /// Encodes `payload` at `level` (the kind's own when nil) and reads the matrix back with
    /// zbar before anything is drawn.
    package init(payload: String, kind: Kind, level: QRMatrix.ErrorCorrection? = nil) throws(LommeError) {
        self.payload = payload
        self.kind = kind
        matrix = try QRMatrix.encode(payload, level: level ?? kind.defaultLevel)
        try QRVerify.check(QRRender.image(matrix, scale: 4), holds: payload, what: "QR code")
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
        throw LommeError.usage("--output must end in .png or .svg: \(path)")
    }
}
