/// The derived-image references of a HEIF file ('dimg' in meta/iref), read before libheif
/// sees the file. libheif 1.15 trusts them:
/// - it follows them recursively, so a grid that refers to itself (directly or through
///   others) recurses until the stack overflows — or, with its tile threads, until thread
///   creation fails and it aborts;
/// - an 'iden' or 'iovl' image that refers to an item which is not a picture (none of that
///   number, or metadata such as Exif) stops it on an assertion (`imginfo` in
///   decode_image_planar), which aborts the process.
/// Either is refused as damaged.
enum HEIFReferences {
    enum Damage: Equatable {
        /// The references contain a loop.
        case loop
        /// A reference leads to an item that is not a picture.
        case notAPicture
    }

    /// The item types libheif 1.15 decodes as pictures (`item_type_is_image`).
    static let pictureTypes: Set<String> = ["hvc1", "grid", "iden", "iovl", "av01", "vvc1"]

    /// What is wrong with the file's 'dimg' references, if anything.
    static func damage(_ bytes: [UInt8]) -> Damage? {
        guard let meta = children(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }), meta.body.count >= 4 else { return nil }
        let inMeta = children(bytes, (meta.body.lowerBound + 4)..<meta.body.upperBound)
        guard let iref = inMeta.first(where: { $0.type == "iref" }), iref.body.count >= 4 else { return nil }
        let edges = references(bytes, iref)
        if edges.isEmpty { return nil }
        let pictures = pictureItems(bytes, inMeta.first { $0.type == "iinf" })
        if edges.values.contains(where: { $0.contains { !pictures.contains($0) } }) { return .notAPicture }
        // Depth-first search with colours: grey on the path, black done.
        var colour: [UInt32: Bool] = [:]  // false = grey, true = black
        func visit(_ node: UInt32, depth: Int) -> Bool {
            if depth > 64 { return true }  // deeper than any real file: treat as a loop
            if let done = colour[node] { return !done }
            colour[node] = false
            for target in edges[node] ?? [] where visit(target, depth: depth + 1) { return true }
            colour[node] = true
            return false
        }
        return edges.keys.contains { visit($0, depth: 0) } ? .loop : nil
    }

    /// The 'dimg' references in `iref`: each item to the items it is derived from, read as
    /// libheif reads them (a count longer than the box ends at the box's end).
    static func references(_ bytes: [UInt8], _ iref: Box) -> [UInt32: [UInt32]] {
        let wide = bytes[iref.body.lowerBound] != 0
        var edges: [UInt32: [UInt32]] = [:]
        for reference in children(bytes, (iref.body.lowerBound + 4)..<iref.body.upperBound) where reference.type == "dimg" {
            var at = reference.body.lowerBound
            func next(_ width: Int) -> UInt32? {
                guard at + width <= reference.body.upperBound else { return nil }
                defer { at += width }
                return bytes[at..<at + width].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            }
            guard let from = next(wide ? 4 : 2), let count = next(2) else { continue }
            for _ in 0..<count {
                guard let to = next(wide ? 4 : 2) else { break }
                edges[from, default: []].append(to)
            }
        }
        return edges
    }

    /// The numbers of the items `iinf` declares as pictures ('infe' of version 2 or 3, whose
    /// type is one of `pictureTypes`; older entries carry no type, and libheif decodes none).
    static func pictureItems(_ bytes: [UInt8], _ iinf: Box?) -> Set<UInt32> {
        guard let iinf, iinf.body.count >= 4 else { return [] }
        let countWidth = bytes[iinf.body.lowerBound] == 0 ? 2 : 4
        let first = iinf.body.lowerBound + 4 + countWidth
        guard first <= iinf.body.upperBound else { return [] }
        var items: Set<UInt32> = []
        for entry in children(bytes, first..<iinf.body.upperBound) where entry.type == "infe" && entry.body.count >= 4 {
            let version = bytes[entry.body.lowerBound]
            guard version == 2 || version == 3 else { continue }
            let idWidth = version == 2 ? 2 : 4
            let id = entry.body.lowerBound + 4, type = id + idWidth + 2
            guard type + 4 <= entry.body.upperBound else { continue }
            let item = bytes[id..<id + idWidth].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if pictureTypes.contains(String(decoding: bytes[type..<type + 4], as: UTF8.self)) { items.insert(item) }
        }
        return items
    }

    struct Box {
        let type: String
        let body: Range<Int>
    }

    /// The boxes laid end to end in `range` (a malformed size ends the list).
    static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var out: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound && out.count < 4096 {
            var size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                size = bytes[at + 8..<at + 16].reduce(0) { ($0 << 8) | Int($1) & 0xFF }
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            out.append(Box(type: type, body: (at + header)..<(at + size)))
            at += size
        }
        return out
    }
}
