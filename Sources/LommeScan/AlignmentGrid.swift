import LommeImages

/// A map for a code of version 7 up, which holds a grid of alignment patterns (every 16–28 modules).
struct AlignmentGrid {
    /// The module coordinates of the grid's rows and columns (the patterns' centres).
    let lines: [Double]
    /// One map per cell, row by row: `(lines.count − 1)²` of them.
    let cells: [Homography]

    // MARK: Tuning

    /// Each pattern is searched this many modules round where its neighbours put it.
    static let searchRadius = 4.0
    /// At least this share of the alignment patterns must be found.
    static let leastFoundShare = 0.5

    /// Where module coordinates `(u, v)` are in the picture.
    @inline(__always)
    func point(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
        cells[cell(v) * (lines.count - 1) + cell(u)].map(u, v)
    }

    @inline(__always)
    private func cell(_ t: Double) -> Int {
        var i = 0
        while i < lines.count - 2, t >= lines[i + 1] { i += 1 }
        return i
    }

    /// The grid for a `dimension`-module code that `map` roughly places in `image`.
    static func located(in image: GrayImage, map: Homography, dimension: Int) -> AlignmentGrid? {
        guard dimension >= QRGeometry.smallestGriddedSide else { return nil }
        let centres = QRGeometry.alignmentCentres(dimension: dimension)
        guard centres.count >= 2 else { return nil }
        let n = centres.count - 1, lines = centres.map { Double($0) + 0.5 }
        var at = [(x: Double, y: Double)?](repeating: nil, count: (n + 1) * (n + 1))
        // Three corners of the grid are in the finder patterns (no alignment pattern there).
        let d = Double(dimension), c = QRGeometry.finderCentre
        for (x, y) in [(0, 0), (n, 0), (0, n)] { at[y * (n + 1) + x] = map.map(lines[x], lines[y]) }
        func projected(_ x: Int, _ y: Int) -> (x: Double, y: Double) { at[y * (n + 1) + x] ?? map.map(lines[x], lines[y]) }
        func search(_ x: Int, _ y: Int, near p: (x: Double, y: Double)) -> (x: Double, y: Double)? {
            // One module along each axis there, as the map has it.
            let here = map.map(lines[x], lines[y]), right = map.map(lines[x] + 1, lines[y]), below = map.map(lines[x], lines[y] + 1)
            return AlignmentSearch.locate(in: image, near: p, across: (right.x - here.x, right.y - here.y),
                                          down: (below.x - here.x, below.y - here.y), radius: searchRadius)
        }
        // Row by row from the top-left.
        for y in 0...n {
            for x in 0...n where at[y * (n + 1) + x] == nil {
                let guess: (x: Double, y: Double)
                if x == 0 || y == 0 {
                    guess = projected(x, y)
                } else {
                    let left = projected(x - 1, y), up = projected(x, y - 1), corner = projected(x - 1, y - 1)
                    guess = (left.x + up.x - corner.x, left.y + up.y - corner.y)
                }
                at[y * (n + 1) + x] = search(x, y, near: guess)
            }
        }
        let patterns = (n + 1) * (n + 1) - 3
        let found = at.compactMap { $0 }.count - 3
        guard Double(found) >= leastFoundShare * Double(patterns) else { return nil }
        // A gap: searched again where the lines through the two nearest found patterns in its row and column cross.
        for y in 0...n {
            for x in 0...n where at[y * (n + 1) + x] == nil {
                let row = nearestTwo(along: x, n) { at[y * (n + 1) + $0] }
                let column = nearestTwo(along: y, n) { at[$0 * (n + 1) + x] }
                guard row.count == 2, column.count == 2,
                      let crossing = intersection(row[0], row[1], column[0], column[1]) else { continue }
                at[y * (n + 1) + x] = search(x, y, near: crossing) ?? crossing
            }
        }
        // Still a gap: where the map through the finders and the bottom-right pattern puts it.
        var fallback = map
        if let corner = at[(n + 1) * (n + 1) - 1],
           let through = Homography(from: [(c, c), (d - c, c), (c, d - c), (lines[n], lines[n])],
                                    to: [map.map(c, c), map.map(d - c, c), map.map(c, d - c), corner]) {
            fallback = through
        }
        // The finders' cells are pinned at their centres, known exactly, not at the grid's corner 3 modules in.
        let finderNodes = [0: (c, c), n: (d - c, c), n * (n + 1): (c, d - c)]
        var cells: [Homography] = []
        for y in 0..<n {
            for x in 0..<n {
                let corners = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)].map { $0.1 * (n + 1) + $0.0 }
                let from = corners.map { finderNodes[$0] ?? (lines[$0 % (n + 1)], lines[$0 / (n + 1)]) }
                let to = zip(corners, from).map { node, module in
                    finderNodes[node] != nil ? map.map(module.0, module.1) : at[node] ?? fallback.map(module.0, module.1)
                }
                guard let cell = Homography(from: from, to: to) else { return nil }
                cells.append(cell)
            }
        }
        return AlignmentGrid(lines: lines, cells: cells)
    }

    /// The two found points nearest index `i` along one grid line, the nearer first (lower index first on ties).
    static func nearestTwo(along i: Int, _ n: Int, _ point: (Int) -> (x: Double, y: Double)?) -> [(x: Double, y: Double)] {
        var out: [(x: Double, y: Double)] = []
        for distance in 1...max(1, n) {
            for k in [i - distance, i + distance] where k >= 0 && k <= n && out.count < 2 {
                if let p = point(k) { out.append(p) }
            }
        }
        return out
    }

    /// Where the line through `a1` and `a2` crosses the one through `b1` and `b2`.
    static func intersection(_ a1: (x: Double, y: Double), _ a2: (x: Double, y: Double),
                             _ b1: (x: Double, y: Double), _ b2: (x: Double, y: Double)) -> (x: Double, y: Double)? {
        let r = (x: a2.x - a1.x, y: a2.y - a1.y), s = (x: b2.x - b1.x, y: b2.y - b1.y)
        let denominator = r.x * s.y - r.y * s.x
        guard abs(denominator) > Homography.singularPivot * (r.x * r.x + r.y * r.y + s.x * s.x + s.y * s.y) else { return nil }
        let t = ((b1.x - a1.x) * s.y - (b1.y - a1.y) * s.x) / denominator
        return (a1.x + t * r.x, a1.y + t * r.y)
    }
}
