import LommeCore

/// One picture format: how its files start, the size its header declares, and its
/// decoder. `ImageLoader` knows formats only through `ImageCodecs.all` — no per-format
/// switch — so a new format is one file (a type conforming to this protocol, and its
/// `ImageLoader.Format` name) and one line in that table.
///
/// The limits (`ImageLimits`) are every codec's to keep: `size` and `decode` refuse a
/// declared size past them from the header, before any pixel is allocated, and every
/// failure is a `LommeError` with code `.unreadableImage` naming the file.
package protocol ImageCodec {
    /// What messages call the format: "PNG", "PGM/PPM".
    static var formatName: String { get }
    /// True when `bytes` start as a file of this format (first bytes only, never the name).
    static func sniff(_ bytes: [UInt8]) -> Bool
    /// Width and height from the header only, as `decode` would return them at `reduce` 1
    /// (after any rotation the file declares); throws past the limits.
    static func size(_ bytes: [UInt8], name: String) throws(LommeError) -> (width: Int, height: Int)
    /// The picture as 8-bit grey. `reduce` (1, 2, 4 or 8) asks for 1/`reduce` of each side
    /// where that is nearly free; a codec that cannot (`scalesWhileDecoding` false) returns
    /// the full size, and callers use the size they get.
    static func decode(_ bytes: [UInt8], reduce: Int, name: String) throws(LommeError) -> GrayImage
    /// True when `decode` honours `reduce`.
    static var scalesWhileDecoding: Bool { get }
}

extension ImageCodec {
    package static var scalesWhileDecoding: Bool { false }
}

/// Every picture format lomme-vault reads, in the order files are sniffed.
package enum ImageCodecs {
    package static var all: [any ImageCodec.Type] {
        [PNGCodec.self, JPEGCodec.self, WebPCodec.self, PNMCodec.self, HEIFCodec.self]
    }

    /// "PNG, JPEG, WebP, PGM/PPM or HEIC".
    static var names: String {
        let names = all.map { $0.formatName }
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
