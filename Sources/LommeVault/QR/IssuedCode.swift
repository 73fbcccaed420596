import Glibc

/// A payload made into a QR code and checked: what `issue` (and later `key`) shows.
public struct IssuedCode: Sendable {
    public let payload: String
    public let matrix: QRMatrix

    /// Encodes `payload` at `level` and reads the matrix back with zbar before anything
    /// is drawn.
    public init(payload: String, level: QRMatrix.ErrorCorrection) throws(LommeError) {
        self.payload = payload
        matrix = try QRMatrix.encode(payload, level: level)
        try QRVerify.check(QRRender.image(matrix, scale: 4), holds: payload, what: "QR code")
    }

    /// The code as terminal text, checked by turning the characters back into pixels.
    public func terminalText(term: String?) throws(LommeError) -> String {
        let style = QRRender.TerminalStyle.forTerminal(term)
        let text = QRRender.terminal(matrix, style: style)
        try QRVerify.check(QRVerify.imageFromTerminal(text, style: style), holds: payload, what: "terminal drawing")
        return text
    }

    /// The file to write for `--output`: PNG (8 px per module, re-read through our own PNG
    /// loader and scanner before it is written) or SVG, chosen by the extension.
    public func fileBytes(for path: String) throws(LommeError) -> [UInt8] {
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

    /// Writes `bytes` to `path` through a temporary file and a rename, so a reader never
    /// sees half a file. `mode` 0600 for codes that carry a secret.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(LommeError) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw LommeError.failure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let data = bytes
        var ok = true
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                offset += written
            }
        }
        let error = errno
        if ok { ok = fsync(descriptor) == 0 }
        close(descriptor)
        guard ok, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(ok ? errno : error))
            unlink(temporary)
            throw LommeError.failure("cannot write \(path): \(reason)")
        }
    }
}
