import LommeImages

/// Finding a code's bottom-right alignment pattern (a dark module in a light ring in a
/// dark ring, 5×5 modules, centred 6.5 modules in from the bottom-right corner in
/// versions 2 and up): the fourth point a perspective map needs besides the three finders.
enum AlignmentSearch {
    // MARK: Tuning

    /// Correlation with the template below this is not an alignment pattern.
    static let minimumCorrelation = 0.6
    /// A module vector shorter than half a pixel (squared: a quarter) cannot be searched.
    static let smallestModuleSquared = 0.25
    /// Search positions per module in each direction.
    static let stepsPerModule = 4
    /// Scores this close are equal, and the position nearer the prediction wins.
    static let equalScores = 1e-9

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
    /// enough like one (correlation with the template below `minimumCorrelation`).
    static func locate(in image: GrayImage, map: Homography, u: Double, v: Double, radius: Double) -> (x: Double, y: Double)? {
        let centre = map.map(u, v)
        let right = map.map(u + 1, v), down = map.map(u, v + 1)
        // The local module vectors; the search steps a quarter module in each.
        let ex = (x: right.x - centre.x, y: right.y - centre.y), ey = (x: down.x - centre.x, y: down.y - centre.y)
        guard (ex.x * ex.x + ex.y * ex.y) > smallestModuleSquared, (ey.x * ey.x + ey.y * ey.y) > smallestModuleSquared else { return nil }
        let darkMean = Double(template.filter(\.dark).count) / Double(template.count)
        let templateNorm = template.map { (($0.dark ? 1 : 0) - darkMean) * (($0.dark ? 1 : 0) - darkMean) }
            .reduce(0, +).squareRoot()
        var best = minimumCorrelation, bestPoint: (x: Double, y: Double)? = nil, bestDistance = Double.infinity
        let steps = Int(radius * Double(stepsPerModule))
        var values = [Double](repeating: 0, count: template.count)
        image.pixels.withUnsafeBufferPointer { px in
            for j in -steps...steps {
                for i in -steps...steps {
                    let su = Double(i) / Double(stepsPerModule), sv = Double(j) / Double(stepsPerModule)
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
                    if score > best + equalScores || (abs(score - best) <= equalScores && offset < bestDistance) {
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
