/// The derived-image references of a HEIF file ('dimg' in meta/iref), read before libheif
/// sees the file: libheif 1.15 follows them recursively, so a grid that refers to itself
/// (directly or through others) recurses until the stack overflows — or, with its tile
/// threads, until thread creation fails and it aborts. A loop is refused as damaged.
enum HEIFReferences {
    /// True when the file's 'dimg' references contain a loop.
    static func haveLoop(_ bytes: [UInt8]) -> Bool {
        guard let meta = children(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }), meta.body.count >= 4 else { return false }
        guard let iref = children(bytes, (meta.body.lowerBound + 4)..<meta.body.upperBound).first(where: { $0.type == "iref" }),
              iref.body.count >= 4 else { return false }
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
        return edges.keys.contains { visit($0, depth: 0) }
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
