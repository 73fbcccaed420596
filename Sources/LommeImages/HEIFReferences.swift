/// The references between the images of a HEIF file ('dimg' and 'auxl' in meta/iref), read
/// before libheif sees the file. libheif 1.15 trusts them:
/// - it follows them recursively, so a grid that refers to itself (directly or through
///   others, or an image that is its alpha's alpha) recurses until the stack overflows — or,
///   with its tile threads, until thread creation fails and it aborts;
/// - it follows every reference of a grid without remembering what it decoded, so grids of
///   grids of grids multiply the decodes (and the tile threads) without any loop;
/// - an 'iden' or 'iovl' image that refers to an item which is not a picture (none of that
///   number, or metadata such as Exif) stops it on an assertion (`imginfo` in
///   decode_image_planar), which aborts the process.
/// Each is refused as damaged. The boxes are read the way libheif 1.15 reads them (its
/// 'iref' ignores the sizes of the reference boxes inside it; its last 'meta' counts), and
/// what libheif would read one way and this code another — two 'meta', 'iinf' or 'iref'
/// boxes, two items of one number — is refused too: no camera writes it.
enum HEIFReferences {
    enum Damage: Equatable {
        /// The references contain a loop.
        case loop
        /// A reference leads to an item that is not a picture.
        case notAPicture
        /// An image is derived more than `maxDepth` levels deep or needs more than
        /// `maxDecodes` pictures decoded.
        case tooComplex
        /// The boxes could be read in two ways (see above).
        case ambiguous
    }

    /// The item types libheif 1.15 decodes as pictures (`item_type_is_image`).
    static let pictureTypes: Set<String> = ["hvc1", "grid", "iden", "iovl", "av01", "vvc1"]

    /// Levels of derivation allowed above a coded picture. A phone's photo is a grid of
    /// tiles (one level), its alpha or an 'iden'/'iovl' over it one more; libheif starts up
    /// to four tile threads per grid level, so the levels bound the threads (4⁴).
    static let maxDepth = 4

    /// Pictures one image may need decoded, counting each time a reference is followed.
    /// A 48 MP phone photo in 512-pixel tiles is 192; at libheif's 10000-pixel limit,
    /// 256-pixel tiles and an alpha grid are 3200.
    static let maxDecodes = 4096

    /// What is wrong with the file's references, if anything. A file libheif cannot read
    /// at all is left to libheif (it fails with its own message).
    static func damage(_ bytes: [UInt8]) -> Damage? {
        let metas = metas(bytes)
        if metas.count > 1 { return .ambiguous }
        guard let meta = metas.first, meta.body.count >= 4 else { return nil }
        let inMeta = children(bytes, (meta.body.lowerBound + 4)..<meta.body.upperBound)
        let irefs = inMeta.filter { $0.type == "iref" }, iinfs = inMeta.filter { $0.type == "iinf" }
        if irefs.count > 1 || iinfs.count > 1 { return .ambiguous }
        guard let iref = irefs.first, let links = references(bytes, iref) else { return nil }
        guard let pictures = pictureItems(bytes, iinfs.first) else { return .ambiguous }
        // Decoding an image decodes what it is derived from ('dimg' from it) and its alpha
        // (an 'auxl' from the alpha to it); libheif checks that an 'auxl' names a picture.
        var edges: [UInt32: [UInt32]] = [:]
        for link in links where link.type == "dimg" {
            if link.to.contains(where: { !pictures.contains($0) }) { return .notAPicture }
            edges[link.from, default: []].append(contentsOf: link.to)
        }
        for link in links where link.type == "auxl" {
            for master in link.to { edges[master, default: []].append(link.from) }
        }
        if edges.isEmpty { return nil }
        return shape(edges)
    }

    /// A loop, or an image too deep or too costly to decode, in `edges` (image → what
    /// decoding it decodes).
    static func shape(_ edges: [UInt32: [UInt32]]) -> Damage? {
        // Depth-first, with what each finished image costs: its depth (levels above a coded
        // picture) and its decodes (itself and each reference followed, counted per path).
        var finished: [UInt32: (depth: Int, decodes: Int)] = [:]
        var onPath: Set<UInt32> = []
        var damage: Damage? = nil
        func visit(_ node: UInt32) -> (depth: Int, decodes: Int) {
            if let done = finished[node] { return done }
            if onPath.contains(node) { damage = .loop; return (0, 1) }
            // Deeper than allowed already: stop before the recursion does (a chain of
            // thousands of items must not overflow this thread's stack).
            if onPath.count > maxDepth { damage = .tooComplex; return (0, 1) }
            onPath.insert(node)
            var depth = 0, decodes = 1
            for target in edges[node] ?? [] {
                let below = visit(target)
                if damage != nil { break }
                depth = max(depth, below.depth + 1)
                decodes += below.decodes
                if depth > maxDepth || decodes > maxDecodes { damage = .tooComplex; break }
            }
            onPath.remove(node)
            finished[node] = (depth, decodes)
            return (depth, decodes)
        }
        for node in edges.keys.sorted() where damage == nil { _ = visit(node) }
        return damage
    }

    /// One reference box of 'iref': its type, the item it is from and the items it names.
    struct Link: Equatable {
        let type: String
        let from: UInt32
        let to: [UInt32]
    }

    /// The references in `iref`, read as libheif 1.15 reads them (`Box_iref::parse`): one
    /// after another to the end of 'iref', each a box header whose size is ignored, the
    /// item it is from, a count and that many items (a count longer than 'iref' ends at its
    /// end). nil where libheif's reading fails (it then refuses the file).
    static func references(_ bytes: [UInt8], _ iref: Box) -> [Link]? {
        guard iref.body.count >= 4 else { return nil }
        let wide = bytes[iref.body.lowerBound] != 0
        let end = iref.body.upperBound
        var at = iref.body.lowerBound + 4
        func next(_ width: Int) -> UInt32? {
            guard at + width <= end else { return nil }
            defer { at += width }
            return bytes[at..<at + width].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        var links: [Link] = []
        while at < end {
            guard let size = next(4), let typeCode = next(4) else { return nil }
            let type = String(decoding: bytes[at - 4..<at], as: UTF8.self)
            if size == 1 {
                guard next(4) != nil, next(4) != nil else { return nil }
            }
            if typeCode == 0x7575_6964 {  // 'uuid' headers carry 16 bytes more
                guard at + 16 <= end else { return nil }
                at += 16
            }
            guard let from = next(wide ? 4 : 2), let count = next(2) else { return nil }
            var to: [UInt32] = []
            for _ in 0..<count {
                guard let item = next(wide ? 4 : 2) else { return nil }
                to.append(item)
                if at == end { break }
            }
            links.append(Link(type: type, from: from, to: to))
        }
        return links
    }

    /// The numbers of the items `iinf` declares as pictures: each 'infe' as libheif 1.15
    /// reads it (version 0 and 1 carry no type and are never pictures; 2 has 16-bit item
    /// numbers, 3 and above 32-bit). nil when two entries give one number (libheif keeps
    /// the first, a reader of the standard might take either).
    static func pictureItems(_ bytes: [UInt8], _ iinf: Box?) -> Set<UInt32>? {
        guard let iinf, iinf.body.count >= 4 else { return [] }
        let countWidth = bytes[iinf.body.lowerBound] == 0 ? 2 : 4
        let first = iinf.body.lowerBound + 4 + countWidth
        guard first <= iinf.body.upperBound else { return [] }
        var items: Set<UInt32> = [], pictures: Set<UInt32> = []
        for entry in children(bytes, first..<iinf.body.upperBound) where entry.type == "infe" && entry.body.count >= 4 {
            let version = bytes[entry.body.lowerBound]
            let idWidth = version <= 2 ? 2 : 4
            let id = entry.body.lowerBound + 4, type = id + idWidth + 2
            guard id + idWidth <= entry.body.upperBound else { continue }
            let item = bytes[id..<id + idWidth].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard items.insert(item).inserted else { return nil }
            guard version >= 2, type + 4 <= entry.body.upperBound else { continue }
            if pictureTypes.contains(String(decoding: bytes[type..<type + 4], as: UTF8.self)) { pictures.insert(item) }
        }
        return pictures
    }

    struct Box {
        let type: String
        let body: Range<Int>
    }

    /// The file's top-level 'meta' boxes as libheif 1.15 reads them (`parse_heif_file`): up
    /// to the first box it cannot read, and not the file's last box (its loop stops at the
    /// end of the file before keeping the box it just read).
    static func metas(_ bytes: [UInt8]) -> [Box] {
        var metas: [Box] = []
        walk(bytes, 0..<bytes.count, limit: .max) { box in
            if box.type == "meta" && box.body.upperBound < bytes.count { metas.append(box) }
        }
        return metas
    }

    /// The boxes laid end to end in `range`, as libheif 1.15 reads a box's children: the
    /// list ends at a box it cannot read, and past the 20001 children it reads before it
    /// refuses the file.
    static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var out: [Box] = []
        walk(bytes, range, limit: 20_001) { out.append($0) }
        return out
    }

    /// Hands `body` the boxes laid end to end in `range`, at most `limit`, as libheif 1.15
    /// reads them (`Box::read`): a box smaller than its header (size 0 too) or longer than
    /// what is left ends the walk; size 1 means a 64-bit size follows, and a 'uuid' box's
    /// header holds 16 bytes more.
    static func walk(_ bytes: [UInt8], _ range: Range<Int>, limit: Int, _ body: (Box) -> Void) {
        var at = range.lowerBound, count = 0
        while at + 8 <= range.upperBound && count < limit {
            var size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { return }
                size = bytes[at + 8..<at + 16].reduce(0) { ($0 << 8) | Int($1) }
                header = 16
            }
            if type == "uuid" { header += 16 }
            guard size >= header, size <= range.upperBound - at else { return }
            body(Box(type: type, body: (at + header)..<(at + size)))
            at += size
            count += 1
        }
    }
}
