import CZbar
import LommeImages

/// One QR code zbar found: the raw bytes it holds, and where it is in the picture scanned.
package struct Symbol: Sendable, Equatable {
    package var bytes: [UInt8]
    /// The outline zbar gives the code (its corners, in the scanned picture's pixels).
    package var corners: [SIMD2<Double>] = []

    package init(bytes: [UInt8], corners: [SIMD2<Double>] = []) {
        self.bytes = bytes
        self.corners = corners
    }
}

/// A thin, safe layer over libzbar's image scanner, for QR codes only and raw bytes (`ZBAR_CFG_BINARY`).
///
/// Each picture is scanned by a zbar scanner made for it alone: zbar's QR reader seeds the
/// random numbers its RANSAC fit draws once per scanner (`qr_reader_init`), so a scanner kept
/// across pictures reads a marginal code or not depending on what it scanned before — and with
/// two workers, on which thread took which picture. A fresh scanner reads each picture as
/// `zbarimg` does, whatever came before (`ZBarTests`).
package final class ZBarScanner {
    /// How many pictures this scanner was handed (the deadline tests count them).
    package private(set) var scans = 0

    package init() {}

    /// A zbar scanner for QR codes alone, raw bytes, every `spacing`-th row and column.
    private static func made(lineSpacing spacing: Int32) -> OpaquePointer? {
        guard let scanner = zbar_image_scanner_create() else { return nil }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, spacing)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, spacing)
        return scanner
    }

    /// zbar's name for 8-bit grey, `zbar_fourcc('Y','8','0','0')` (a C macro Swift cannot call).
    static let y800: UInt = UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8
        | UInt(UInt8(ascii: "0")) << 16 | UInt(UInt8(ascii: "0")) << 24

    /// Every QR code zbar reads in `image`, scanning every `lineSpacing`-th row and column (default 1, least 1).
    package func scan(_ image: GrayImage, lineSpacing spacing: Int32 = 1) -> [Symbol] {
        scans += 1
        guard image.width > 0, image.height > 0 else { return [] }
        guard let scanner = Self.made(lineSpacing: max(1, spacing)) else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        zbar_image_set_format(zimage, ZBarScanner.y800)
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBufferPointer { buffer -> [Symbol] in
            // zbar only reads the buffer; it is not freed by zbar (no cleanup handler).
            zbar_image_set_data(zimage, buffer.baseAddress, UInt(buffer.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return [] }
            var symbols: [Symbol] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                        Array(UnsafeBufferPointer(start: $0, count: length))
                    }
                    let corners = (0..<zbar_symbol_get_loc_size(current)).map { n in
                        SIMD2(Double(zbar_symbol_get_loc_x(current, n)), Double(zbar_symbol_get_loc_y(current, n)))
                    }
                    symbols.append(Symbol(bytes: bytes, corners: corners))
                }
                symbol = zbar_symbol_next(current)
            }
            return symbols
        }
    }
}
