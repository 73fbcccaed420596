import LommeImages

/// Finding a code's bottom-right alignment pattern (a dark module in a light ring in a dark ring,
/// 5×5 modules, centred 6.5 modules in from the bottom-right corner in versions 2 and up).
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
    /// Positions round the best scoring at most this much less are one plateau; its middle is the centre.
    static let plateauDrop = 0.02

    /// Module-space offsets of the 5×5 template and whether each is dark.
    static let template: [(dx: Double, dy: Double, dark: Bool)] = {
        var cells: [(Double, Double, Bool)] = []
        for dy in -2...2 {
            for dx in -2...2 { cells.append((Double(dx), Double(dy), max(abs(dx), abs(dy)) != 1)) }
        }
        return cells
    }()

    /// The picture position of the alignment pattern `map` puts near `(u, v)`, searched within `radius` modules.
    static func locate(in image: GrayImage, map: Homography, u: Double, v: Double, radius: Double) -> (x: Double, y: Double)? {
        let centre = map.map(u, v)
        let right = map.map(u + 1, v), down = map.map(u, v + 1)
        // The local module vectors; the search steps a quarter module in each.
        return locate(in: image, near: centre, across: (right.x - centre.x, right.y - centre.y),
                      down: (down.x - centre.x, down.y - centre.y), radius: radius)
    }

    /// The same round a picture position, a module being `across` along the code's rows and `down` its columns.
    static func locate(in image: GrayImage, near centre: (x: Double, y: Double), across ex: (x: Double, y: Double),
                       down ey: (x: Double, y: Double), radius: Double) -> (x: Double, y: Double)? {
        guard (ex.x * ex.x + ex.y * ex.y) > smallestModuleSquared, (ey.x * ey.x + ey.y * ey.y) > smallestModuleSquared else { return nil }
        let darkMean = Double(template.filter(\.dark).count) / Double(template.count)
        let templateNorm = template.map { (($0.dark ? 1 : 0) - darkMean) * (($0.dark ? 1 : 0) - darkMean) }
            .reduce(0, +).squareRoot()
        let steps = Int(radius * Double(stepsPerModule)), side = 2 * steps + 1
        var scores = [Double](repeating: -1, count: side * side)
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
                    scores[(j + steps) * side + i + steps] = dot / (norm.squareRoot() * templateNorm)
                }
            }
        }
        // The best position, the one nearer the prediction among equals.
        var best = minimumCorrelation, seed: Int? = nil, bestDistance = Int.max
        for index in scores.indices {
            let i = index % side - steps, j = index / side - steps, offset = i * i + j * j
            if scores[index] > best + equalScores || (abs(scores[index] - best) <= equalScores && offset < bestDistance) {
                best = scores[index]
                seed = index
                bestDistance = offset
            }
        }
        guard let seed else { return nil }
        // The middle of the plateau round it.
        var plateau = [seed], seen = Set([seed]), next = 0
        while next < plateau.count {
            let index = plateau[next], i = index % side, j = index / side
            next += 1
            for (x, y) in [(i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)] where x >= 0 && y >= 0 && x < side && y < side {
                let neighbour = y * side + x
                if scores[neighbour] >= best - plateauDrop, seen.insert(neighbour).inserted { plateau.append(neighbour) }
            }
        }
        let su = plateau.map { Double($0 % side - steps) }.reduce(0, +) / Double(plateau.count) / Double(stepsPerModule)
        let sv = plateau.map { Double($0 / side - steps) }.reduce(0, +) / Double(plateau.count) / Double(stepsPerModule)
        return (centre.x + su * ex.x + sv * ey.x, centre.y + su * ex.y + sv * ey.y)
    }
}
