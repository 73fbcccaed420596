import Foundation
@testable import LommeImages
import Testing

/// The references between images read before libheif sees a HEIC file: loops, references
/// to items that are not pictures and derivations too deep or too costly are damage
/// (libheif 1.15 overflows its stack, aborts on an assertion, or multiplies decodes and
/// threads), and so is a file libheif would read one way and a careful reader another; the
/// references of a real grid photo, with or without alpha, are not.
@Suite("HEIF references")
struct HEIFReferencesTests {
    /// A box: 32-bit size, four-character type, body.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return be(size, 4) + Array(type.utf8) + body
    }

    static func be(_ value: UInt32, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(value >> (8 * UInt32(width - 1 - $0)) & 0xFF) }
    }

    /// An 'infe' of `version` (0 and 1: no type; 2: 16-bit item numbers, 3: 32-bit) for
    /// item `id` of `type`.
    static func infe(_ id: UInt32, _ type: String, version: UInt8 = 2) -> [UInt8] {
        if version < 2 { return box("infe", [version, 0, 0, 0] + be(id, 2) + [0, 0, 0, 0, 0]) }
        return box("infe", [version, 0, 0, 0] + be(id, version == 2 ? 2 : 4) + [0, 0] + Array(type.utf8) + [0])
    }

    /// An 'iinf' holding `items`.
    static func iinf(_ items: [(UInt32, String)], wide: Bool = false) -> [UInt8] {
        box("iinf", [wide ? 1 : 0, 0, 0, 0] + be(UInt32(items.count), wide ? 4 : 2)
            + items.flatMap { infe($0.0, $0.1, version: wide ? 3 : 2) })
    }

    /// An 'iref' holding `references` (item → items) as boxes of `type`, and `alpha`
    /// (alpha image → the image it is the alpha of) as 'auxl'.
    static func iref(_ references: [(UInt32, [UInt32])], alpha: [(UInt32, UInt32)] = [], wide: Bool = false) -> [UInt8] {
        let w = wide ? 4 : 2
        return box("iref", [wide ? 1 : 0, 0, 0, 0]
            + references.flatMap { from, to in box("dimg", be(from, w) + be(UInt32(to.count), 2) + to.flatMap { be($0, w) }) }
            + alpha.flatMap { box("auxl", be($0.0, w) + be(1, 2) + be($0.1, w)) })
    }

    /// A file of `ftyp`, a `meta` holding `inMeta` and an `mdat` (libheif ignores a 'meta'
    /// that is the file's last box).
    static func file(_ inMeta: [UInt8]) -> [UInt8] {
        box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + box("meta", [0, 0, 0, 0] + inMeta) + box("mdat", [1, 2, 3, 4])
    }

    /// A file whose 'meta' holds `items` and `references` as 'dimg'; `wide` for 32-bit
    /// item numbers.
    static func file(items: [(UInt32, String)], references: [(UInt32, [UInt32])], alpha: [(UInt32, UInt32)] = [], wide: Bool = false) -> [UInt8] {
        file(iinf(items, wide: wide) + iref(references, alpha: alpha, wide: wide))
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
        // A grid with a grid of alpha tiles beside it ('auxl' from the alpha to the image).
        let alpha = Self.file(items: [(1, "grid"), (2, "hvc1"), (3, "hvc1"), (4, "grid"), (5, "hvc1"), (6, "hvc1")],
                              references: [(1, [2, 3]), (4, [5, 6])], alpha: [(4, 1)])
        #expect(HEIFReferences.damage(alpha) == nil)
    }

    @Test func aReferenceToAnItemThatIsNotAPictureIsDamage() {
        // No item of that number (the fuzzer's find), and metadata rather than a picture.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "hvc1"), (2, "iden")], references: [(2, [0x50F3])])) == .notAPicture)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "iovl"), (2, "Exif")], references: [(1, [2])])) == .notAPicture)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "iden"), (2, "mime")], references: [(1, [2])], wide: true)) == .notAPicture)
        // An entry of version 0 or 1 has no type: libheif never decodes it as a picture.
        let old = Self.file(Self.box("iinf", [0, 0, 0, 0] + Self.be(2, 2) + Self.infe(1, "", version: 1) + Self.infe(2, "iden"))
            + Self.iref([(2, [1])]))
        #expect(HEIFReferences.damage(old) == .notAPicture)
    }

    @Test func aLoopIsDamage() {
        #expect(HEIFReferences.damage(Self.file(items: [(1, "grid")], references: [(1, [1])])) == .loop)
        #expect(HEIFReferences.damage(Self.file(items: [(1, "grid"), (2, "iden")], references: [(1, [2]), (2, [1])])) == .loop)
        // Two images each the other's alpha: decoding one decodes the other, and so on.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "hvc1"), (2, "hvc1")], references: [], alpha: [(1, 2), (2, 1)])) == .loop)
        // An alpha that is made from the image it is the alpha of.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "hvc1"), (2, "iden")], references: [(2, [1])], alpha: [(2, 1)])) == .loop)
    }

    /// The CI fuzzer's finds (2026-11-26): libheif reads a reference box inside 'iref' by
    /// its fields and ignores its size, so a size that does not fit 'iref' must not hide
    /// the reference (a grid made from itself ran libheif out of threads and memory; an
    /// 'iden' of a missing item stopped it on its assertion).
    @Test func aReferenceBoxsSizeIsIgnoredAsLibheifIgnoresIt() {
        func misSized(_ from: UInt32, _ to: [UInt32], size: UInt32) -> [UInt8] {
            Self.box("iref", [0, 0, 0, 0] + Self.be(size, 4) + Array("dimg".utf8) + Self.be(from, 2) + Self.be(UInt32(to.count), 2) + to.flatMap { Self.be($0, 2) })
        }
        for size: UInt32 in [0xB600_000E, 0x0200_000E, 0, 7, 100] {
            #expect(HEIFReferences.damage(Self.file(Self.iinf([(1, "hvc1"), (2, "grid")]) + misSized(2, [2], size: size))) == .loop, "size \(size)")
            #expect(HEIFReferences.damage(Self.file(Self.iinf([(1, "hvc1"), (2, "iden")]) + misSized(2, [0x5001], size: size))) == .notAPicture, "size \(size)")
        }
        // A count past the end of 'iref' ends there, as in libheif: the references read count.
        let long = Self.box("iref", [0, 0, 0, 0] + Self.be(14, 4) + Array("dimg".utf8) + Self.be(2, 2) + Self.be(0xD805, 2) + Self.be(2, 2))
        #expect(HEIFReferences.damage(Self.file(Self.iinf([(2, "grid")]) + long)) == .loop)
        // A reference cut off inside its fields: libheif refuses the file itself.
        let cut = Self.box("iref", [0, 0, 0, 0] + Self.be(14, 4) + Array("dimg".utf8) + Self.be(2, 2))
        #expect(HEIFReferences.references(cut, HEIFReferences.Box(type: "iref", body: 8..<cut.count)) == nil)
        let whole = Self.box("iref", [0, 0, 0, 0] + Self.be(14, 4) + Array("dimg".utf8) + Self.be(2, 2) + Self.be(1, 2) + Self.be(3, 2))
        #expect(HEIFReferences.references(whole, HEIFReferences.Box(type: "iref", body: 8..<whole.count)) == [.init(type: "dimg", from: 2, to: [3])])
    }

    @Test func aDerivationTooDeepOrTooCostlyIsDamage() {
        // A chain of 'iden': four levels above the coded picture are allowed, five are not.
        func chain(_ levels: Int) -> [UInt8] {
            let items = (1...levels).map { (UInt32($0), "iden") } + [(UInt32(levels + 1), "hvc1")]
            return Self.file(items: items, references: (1...levels).map { (UInt32($0), [UInt32($0 + 1)]) })
        }
        #expect(HEIFReferences.damage(chain(HEIFReferences.maxDepth)) == nil)
        #expect(HEIFReferences.damage(chain(HEIFReferences.maxDepth + 1)) == .tooComplex)
        // A chain of 20000 is refused without following it to its end (on a 64 KB stack).
        final class Outcome: @unchecked Sendable { var damage: HEIFReferences.Damage? }
        let long = Outcome(), done = DispatchSemaphore(value: 0), bytes = chain(20_000)
        let thread = Thread { long.damage = HEIFReferences.damage(bytes); done.signal() }
        thread.stackSize = 64 * 1024
        thread.start()
        done.wait()
        #expect(long.damage == .tooComplex)
        // A grid of grids, each tile the same item: no loop, but every reference is decoded.
        // 1 + 63 × (1 + 64) = 4096 decodes are allowed, 1 + 64 × 65 are not.
        func grids(_ outer: Int) -> [UInt8] {
            Self.file(items: [(1, "grid"), (2, "grid"), (3, "hvc1")],
                      references: [(1, Array(repeating: 2, count: outer)), (2, Array(repeating: 3, count: 64))])
        }
        #expect(HEIFReferences.damage(grids(63)) == nil)
        #expect(HEIFReferences.damage(grids(64)) == .tooComplex)
        // The cost is counted per path, however often an image is shared: four levels of
        // grids, each made from the next one nine times, are 7381 decodes (seven times, 2801).
        func shared(_ fanOut: Int) -> [UInt8] {
            Self.file(items: (1...4).map { (UInt32($0), "grid") } + [(5, "hvc1")],
                      references: (1...4).map { (UInt32($0), Array(repeating: UInt32($0 + 1), count: fanOut)) })
        }
        #expect(HEIFReferences.damage(shared(7)) == nil)
        #expect(HEIFReferences.damage(shared(9)) == .tooComplex)
    }

    @Test func aFileReadableTwoWaysIsDamage() {
        let meta = Self.iinf([(1, "hvc1"), (2, "grid")]) + Self.iref([(2, [1])])
        let ftyp = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let mdat = Self.box("mdat", [0])
        // Two 'meta' boxes: libheif takes the last, a careful reader the first.
        #expect(HEIFReferences.damage(ftyp + Self.box("meta", [0, 0, 0, 0] + meta) + Self.box("meta", [0, 0, 0, 0] + meta) + mdat) == .ambiguous)
        // ...unless the second is the file's last box, which libheif never keeps.
        #expect(HEIFReferences.damage(ftyp + Self.box("meta", [0, 0, 0, 0] + meta) + Self.box("meta", [0, 0, 0, 0] + meta)) == nil)
        // Two items of one number (libheif keeps the first), two 'iinf', two 'iref'.
        #expect(HEIFReferences.damage(Self.file(items: [(1, "Exif"), (1, "hvc1"), (2, "iden")], references: [(2, [1])])) == .ambiguous)
        #expect(HEIFReferences.damage(Self.file(Self.iinf([(1, "hvc1")]) + Self.iinf([(2, "iden")]) + Self.iref([(2, [1])]))) == .ambiguous)
        #expect(HEIFReferences.damage(Self.file(meta + Self.iref([(2, [2])]))) == .ambiguous)
        // A loop in a 'meta' that is the file's last box is not read (nor by libheif).
        #expect(HEIFReferences.damage(ftyp + Self.box("meta", [0, 0, 0, 0] + Self.iinf([(1, "grid")]) + Self.iref([(1, [1])]))) == nil)
    }

    @Test func boxesAreWalkedAsLibheifWalksThem() {
        // Size 0 and sizes below the header end the walk; size 1 takes a 64-bit size; a
        // 'uuid' header is 16 bytes longer.
        let large: [UInt8] = Self.be(1, 4) + Array("free".utf8) + Self.be(0, 4) + Self.be(20, 4) + [9, 9, 9, 9]
        let uuid = Self.box("uuid", Array(repeating: 7, count: 16) + [5])
        let tail = Self.box("free", [1])
        let boxes = HEIFReferences.children(large + uuid + tail, 0..<(large.count + uuid.count + tail.count))
        #expect(boxes.map(\.type) == ["free", "uuid", "free"])
        #expect(boxes.map(\.body.count) == [4, 1, 1])
        let zero = Self.be(0, 4) + Array("free".utf8)
        #expect(HEIFReferences.children(tail + zero + tail, 0..<(2 * tail.count + 8)).map(\.type) == ["free"])
    }
}
