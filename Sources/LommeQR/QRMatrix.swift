import CQRencode
import LommeCore

/// A QR code as modules: `size` × `size`, true for dark.
package struct QRMatrix: Sendable, Equatable {
    package let version: Int
    package let size: Int
    package let level: QRErrorCorrection
    package let modules: [Bool]

    package subscript(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }


    /// Encodes `text` the way `qrencode -l LEVEL` does (libqrencode's
    /// `QRcode_encodeString`, case-sensitive, 8-bit hint): the smallest version that fits,
    /// with numeric and alphanumeric stretches packed tighter than bytes.
    package static func encode(_ text: String, level: QRErrorCorrection = .H) throws(LommeError) -> QRMatrix {
        guard !text.utf8.contains(0) else { throw LommeError.failure(.qrPayloadNul, "a QR payload cannot hold a NUL character") }
        guard let code = QRcode_encodeString(text, 0, level.qrencode, QR_MODE_8, 1) else {
            throw LommeError.failure(.qrPayloadTooLarge, "the payload (\(text.utf8.count) bytes) does not fit in a QR code at level \(level.rawValue); try --level L or fewer extra fields")
        }
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: size * size)
        return QRMatrix(version: Int(code.pointee.version), size: size, level: level, modules: data.map { $0 & 1 == 1 })
    }
}

extension QRErrorCorrection {
    /// libqrencode's name for the level.
    var qrencode: QRecLevel {
        switch self {
        case .L: QR_ECLEVEL_L
        case .M: QR_ECLEVEL_M
        case .Q: QR_ECLEVEL_Q
        case .H: QR_ECLEVEL_H
        }
    }
}
