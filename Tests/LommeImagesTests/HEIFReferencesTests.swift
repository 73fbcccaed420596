@testable import LommeImages
import Testing

/// The derived-image references read before libheif sees a HEIC file: loops and references
/// to items that are not pictures are damage (libheif 1.15 overflows its stack on the one
/// and aborts on an assertion on the other); the references of a real grid photo are not.
@Suite("HEIF references")
struct HEIFReferencesTests {
    /// A box: 32-bit size, four-character type, body.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    static func be(_ value: UInt32, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(value >> (8 * UInt32(width - 1 - $0)) & 0xFF) }
    }

    /// An 'infe' of `version` (2: 16-bit item numbers, 3: 32-bit) for item `id` of `type`.
    static func infe(_ id: UInt32, _ type: String, version: UInt8 = 2) -> [UInt8] {
        box("infe", [version, 0, 0, 0] + be(id, version == 2 ? 2 : 4) + [0, 0] + Array(type.utf8) + [0])
    }

    /// A file of `ftyp` and a `meta` holding `items` in its 'iinf' and `references` (item →
    /// items it is derived from) as 'dimg' in its 'iref'; `wide` for 32-bit item numbers.
    static func file(items: [(UInt32, String)], references: [(UInt32, [UInt32])], wide: Bool = false) -> [UInt8] {
        let version: UInt8 = wide ? 1 : 0
        let iinf = box("iinf", [version, 0, 0, 0] + be(UInt32(items.count), wide ? 4 : 2)
            + items.flatMap { infe($0.0, $0.1, version: wide ? 3 : 2) })
        let iref = box("iref", [version, 0, 0, 0] + references.flatMap { from, to in
            box("dimg", be(from, wide ? 4 : 2) + be(UInt32(to.count), 2) + to.flatMap { be($0, wide ? 4 : 2) })
        })
        return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + box("meta", [0, 0, 0, 0] + iinf + iref)
    }

    @Test func aGridOfTilesIsSound() {
        // A phone's photo: a grid of hidden hvc1 tiles, in both item-number widths.
        for wide in [false, true] {
            let bytes = Self.file(items: [(1, "grid"), (2, "hvc1"), (3, "hvc1"), (4, "Exif")], references: [(1, [2, 3])], wide: wide)
            #expect(HEIFReferences.damage(bytes) == nil, "wide \(wide)")
        }
        // Derived from derived: an 'iden' of a grid.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "iden"), (2, "grid"), (3, "av01")], references: [(1, [2]), (2, [3])])) == nil)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "hvc1")], references: [])) == nil)
    }

    @Test func aReferenceToAnItemThatIsNotAPictureIsDamage() {
        // No item of that number (the fuzzer's find), and metadata rather than a picture.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "hvc1"), (2, "iden")], references: [(2, [0x50F3])])) == .notAPicture)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "iovl"), (2, "Exif")], references: [(1, [2])])) == .notAPicture)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "iden"), (2, "mime")], references: [(1, [2])], wide: true)) == .notAPicture)
    }

    @Test func aLoopIsDamage() {
        #expect(HEIFReferences.damage(Self.file(items: [(1, "grid")], references: [(1, [1])])) == .loop)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "grid"), (2, "iden")], references: [(1, [2]), (2, [1])])) == .loop)
    }
}
