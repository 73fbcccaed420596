import LommeImages

/// Finding a code's bottom-right alignment pattern (a dark module in a light ring in a
/// dark ring, 5×5 modules, centred 6.5 modules in from the bottom-right corner in
/// versions 2 and up): the fourth point a perspective map needs besides the three finders.
enum AlignmentSearch {
    /// Module-space offsets of the 5×5 template and whether each is dark.
    static let template: [(dx: Double, dy: Double, dark: Bool)] = {
        var cells: [(Double, Double, Bool)] = []
        for dy in -2...2 {
            for dx in -2...2 { cells.append((Double(dx), Double(dy), max(abs(dx), abs(dy)) != 1)) }
        }
        return cells
    }()

    /// The picture position of the alignment pattern whose centre `map` puts near module
    /// coordinates `(u, v)`, searched within `radius` modules; nil when nothing there looks
    /// enough like one (correlation with the template below `minimum`).
    static func locate(in image: GrayImage, map: Homography, u: Double, v: Double, radius: Double,
                       minimum: Double = 0.6) -> (x: Double, y: Double)? {
        let centre = map.map(u, v)
        let right = map.map(u + 1, v), down = map.map(u, v + 1)
        // The local module vectors; the search steps a quarter module in each.
        let ex = (x: right.x - centre.x, y: right.y - centre.y), ey = (x: down.x - centre.x, y: down.y - centre.y)
        guard (ex.x * ex.x + ex.y * ex.y) > 0.25, (ey.x * ey.x + ey.y * ey.y) > 0.25 else { return nil }
        let darkMean = Double(template.filter(\.dark).count) / Double(template.count)
        let templateNorm = template.map { (($0.dark ? 1 : 0) - darkMean) * (($0.dark ? 1 : 0) - darkMean) }
            .reduce(0, +).squareRoot()
        var best = minimum, bestPoint: (x: Double, y: Double)? = nil, bestDistance = Double.infinity
        let steps = Int(radius * 4)
        var values = [Double](repeating: 0, count: template.count)
        image.pixels.withUnsafeBufferPointer { px in
            for j in -steps...steps {
                for i in -steps...steps {
                    let su = Double(i) / 4, sv = Double(j) / 4
                    let cx = centre.x + su * ex.x + sv * ey.x, cy = centre.y + su * ex.y + sv * ey.y
                    var sum = 0.0
                    for (n, cell) in template.enumerated() {
                        let x = cx + cell.dx * ex.x + cell.dy * ey.x, y = cy + cell.dx * ex.y + cell.dy * ey.y
                        values[n] = 255 - GridSampler.bilinear(px, image.width, image.height, x, y)
                        sum += values[n]
                    }
                    let mean = sum / Double(template.count)
                    var dot = 0.0, norm = 0.0
                    for (n, cell) in template.enumerated() {
                        let d = values[n] - mean
                        dot += d * ((cell.dark ? 1 : 0) - darkMean)
                        norm += d * d
                    }
                    guard norm > 0 else { continue }
                    let score = dot / (norm.squareRoot() * templateNorm)
                    let offset = su * su + sv * sv
                    // Equal scores: the one nearer the prediction.
                    if score > best + 1e-9 || (abs(score - best) <= 1e-9 && offset < bestDistance) {
                        best = score
                        bestPoint = (cx, cy)
                        bestDistance = offset
                    }
                }
            }
        }
        return bestPoint
    }
}
