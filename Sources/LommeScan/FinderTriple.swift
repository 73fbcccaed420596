import Glibc
import LommeImages

/// Where a code probably is, from three of its finder patterns.
struct FinderTriple {
    var topLeft: (x: Double, y: Double)
    var topRight: (x: Double, y: Double)
    var bottomLeft: (x: Double, y: Double)
    /// Module width along the top and left edges in pixels (they differ for perspective and tall terminal cells).
    var moduleAcross: Double
    var moduleDown: Double
    /// The code's side in modules counted along its timing patterns, when they could be read.
    var timingDimension: Int? = nil
    /// Each finder's own module width (top-left, top-right, bottom-left), when known.
    var finderModules: [Double]? = nil

    // MARK: Tuning: the perspective the finders' module widths suggest

    /// A module's width goes as w^-1.5 with the map's denominator w.
    static let widthPower = 2.0 / 3
    /// Denominator ratios within this of 1 are no perspective worth a map of its own.
    static let leastPerspective = 0.05
    /// Ratios outside these are finders that disagree, not a view.
    static let smallestRatio = 0.5
    static let largestRatio = 2.0
    /// The fourth corner's denominator below this puts it near infinity (a view almost edge-on).
    static let smallestDenominator = 0.2

    // MARK: Tuning: counting the timing pattern

    /// The line counted runs this many modules in from the finders' centres.
    static let timingInset = 2.5
    /// Samples per module along it.
    static let timingSamplesPerModule = 4.0
    /// Fewer pixels per sample than this, or more samples, and the count is noise.
    static let smallestTimingStep = 0.2
    static let mostTimingSamples = 20_000.0
    /// A dark run of fewer samples (under half a module) is a speck, not a timing module.
    static let shortestTimingRun = 2

    /// The perspective map the three finders' module widths suggest, for a `dimension`-module code.
    func perspectiveMap(dimension: Int) -> Homography? {
        guard let m = finderModules, m.count == QRGeometry.finders, m.allSatisfy({ $0 > 0 }) else { return nil }
        let right = pow(m[0] / m[1], Self.widthPower), down = pow(m[0] / m[2], Self.widthPower)
        guard abs(right - 1) > Self.leastPerspective || abs(down - 1) > Self.leastPerspective,
              right > Self.smallestRatio, right < Self.largestRatio, down > Self.smallestRatio, down < Self.largestRatio
        else { return nil }
        let g = right - 1, h = down - 1
        let p = (x: topRight.x * right - topLeft.x, y: topRight.y * right - topLeft.y)
        let q = (x: bottomLeft.x * down - topLeft.x, y: bottomLeft.y * down - topLeft.y)
        let w = 1 + g + h
        guard w > Self.smallestDenominator else { return nil }
        let corner = (x: (p.x + q.x + topLeft.x) / w, y: (p.y + q.y + topLeft.y) / w)
        let d = Double(dimension), c = QRGeometry.finderCentre
        return Homography(from: [(c, c), (d - c, c), (c, d - c), (d - c, d - c)],
                          to: [topLeft, topRight, bottomLeft, corner])
    }

    /// Centre-to-centre distances over module widths: the code's side in modules less seven.
    var estimatedDimension: Int {
        let across = distance(topLeft, topRight) / moduleAcross, down = distance(topLeft, bottomLeft) / moduleDown
        return Self.snapped(Int(((across + down) / 2).rounded()) + QRGeometry.finderSide)
    }

    /// The same from the finders' own module widths rather than the legs', which blur and glare can stretch.
    var finderEstimatedDimension: Int? {
        guard let m = finderModules, m.count == QRGeometry.finders, m.allSatisfy({ $0 > 0 }) else { return nil }
        let across = distance(topLeft, topRight) / ((m[0] + m[1]) / 2)
        let down = distance(topLeft, bottomLeft) / ((m[0] + m[2]) / 2)
        return Self.snapped(Int(((across + down) / 2).rounded()) + QRGeometry.finderSide)
    }

    static func snapped(_ estimate: Int) -> Int {
        var dimension = estimate
        // A QR code is 4·version + 17 modules wide.
        switch dimension & 3 {
        case 0: dimension += 1
        case 2: dimension -= 1
        case 3: dimension += 2
        default: break
        }
        return min(QRGeometry.largestSide, max(QRGeometry.smallestSide, dimension))
    }

    /// Dimensions to try, the estimate first and then its neighbours.
    var candidateDimensions: [Int] {
        let d = estimatedDimension
        let step = QRGeometry.sideStep
        var candidates = [d, d + step, d - step]
        if let f = finderEstimatedDimension, abs(f - d) > step {
            candidates += [f, f + step, f - step].filter { !candidates.contains($0) }
        }
        // Counting timing modules beats dividing distances when perspective makes finders' module widths differ.
        if let t = timingDimension {
            candidates.removeAll { $0 == t }
            candidates.insert(t, at: 0)
        }
        return candidates.filter { $0 >= QRGeometry.smallestSide && $0 <= QRGeometry.largestSide }
    }

    /// Counts the dark modules of the timing pattern between two finders along the line 2.5 modules in from
    /// their centres (the finders' edge rows and the timing row): 2 + (dimension − 15) / 2 dark runs.
    static func timingDimension(in image: GrayImage, from a: (x: Double, y: Double), _ moduleA: Double,
                                to b: (x: Double, y: Double), _ moduleB: Double,
                                inward: (x: Double, y: Double)) -> Int? {
        let length = (inward.x * inward.x + inward.y * inward.y).squareRoot()
        guard length > 0 else { return nil }
        let ux = inward.x / length, uy = inward.y / length
        let start = (x: a.x + timingInset * moduleA * ux, y: a.y + timingInset * moduleA * uy)
        let end = (x: b.x + timingInset * moduleB * ux, y: b.y + timingInset * moduleB * uy)
        let span = distance(start, end)
        let step = min(moduleA, moduleB) / timingSamplesPerModule
        guard step > smallestTimingStep, span / step < mostTimingSamples else { return nil }
        let count = Int(span / step)
        var values = [Double](repeating: 0, count: count + 1)
        image.pixels.withUnsafeBufferPointer { px in
            for i in 0...count {
                let t = Double(i) / Double(count)
                values[i] = GridSampler.bilinear(px, image.width, image.height,
                                                 start.x + t * (end.x - start.x), start.y + t * (end.y - start.y))
            }
        }
        let threshold = (values.min()! + values.max()!) / 2
        // Dark runs, ignoring specks.
        var runs = 0, dark = false, length2 = 0
        for value in values {
            let isDark = value < threshold
            if isDark == dark { length2 += 1; continue }
            if dark && length2 >= shortestTimingRun { runs += 1 }
            if !dark && length2 < shortestTimingRun && runs > 0 && isDark { runs -= 1 }  // a speck of light inside dark
            dark = isDark
            length2 = 1
        }
        if dark && length2 >= shortestTimingRun { runs += 1 }
        let dimension = 2 * runs + 11
        guard dimension >= QRGeometry.smallestSide, dimension <= QRGeometry.largestSide, dimension % 4 == 1 else { return nil }
        return dimension
    }
}

@inline(__always)
func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
}

extension FinderSearch {
    // MARK: Tuning: which three patterns make one code

    /// The best-sighted patterns tried (84 triples at most).
    static let tripleCandidates = 9
    /// The three finders' module sizes within this factor of each other.
    static let tripleModuleRatio = 2.2
    /// The two legs' lengths within this factor.
    static let tripleLegRatio = 2.6
    /// The legs' angle: a cosine up to this (about 41° to 139°), perspective bends the right angle.
    static let tripleCosine = 0.75
    /// The shorter leg at least this many modules.
    static let shortestLeg = 10.0
    /// The longer leg at most this many: version 40's are 170 apart.
    static let longestLeg = 180.0
    /// How much a skewed angle costs a triple's score against its sightings.
    static let anglePenalty = 3.0
    /// Triples handed to the grid sampler, best first.
    static let maximumTriples = 10
    /// Module widths along a leg: the finder's runs must end within this share of the leg
    /// (beyond, they would be the other finder's), sampled every `moduleAlongStep` pixels.
    static let moduleAlongReach = 0.8
    static let moduleAlongStep = 0.5

    /// Three patterns as a code's corners: the top-left, the other two, the legs' cosine and length ratio.
    typealias Corners = (corner: FinderPattern, FinderPattern, FinderPattern, cosine: Double, ratio: Double)

    /// Triples of finder patterns that can be the corners of one code, the most plausible first.
    static func triples(from patterns: [FinderPattern], in binary: GrayImage, grey: GrayImage? = nil) -> [FinderTriple] {
        let candidates = Array(patterns.prefix(tripleCandidates))
        var scored: [([Corners], Double)] = []
        for i in candidates.indices {
            for j in candidates.indices where j > i {
                for k in candidates.indices where k > j {
                    let (a, b, c) = (candidates[i], candidates[j], candidates[k])
                    let choices = cornerChoices(a, b, c)
                    guard let first = choices.first else { continue }
                    // Scored by the likelier corner.
                    let score = Double(a.hits + b.hits + c.hits) / (1 + abs(first.cosine) * anglePenalty) / first.ratio
                        / (max(a.module, b.module, c.module) / min(a.module, b.module, c.module))
                    scored.append((choices, score))
                }
            }
        }
        // Only the kept ones are measured along their legs and timing patterns (walks of
        // hundreds of pixels each): of a dark code's light look-alikes, most of the 84.
        return scored.sorted { $0.1 > $1.1 }.prefix(maximumTriples).flatMap { choices, _ in
            choices.map { triple(corner: $0.corner, $0.1, $0.2, in: binary, grey: grey) }
        }
    }

    /// The triple with `a` at the top-left corner.
    static func triple(corner a: FinderPattern, _ b: FinderPattern, _ c: FinderPattern,
                       in binary: GrayImage, grey: GrayImage?) -> FinderTriple {
        // In picture coordinates (y down) top-right × bottom-left turns clockwise.
        let cross = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
        let (right, left) = cross > 0 ? (b, c) : (c, b)
        let across = ((moduleAlong(binary, from: pt(a), toward: pt(right)) ?? a.module)
            + (moduleAlong(binary, from: pt(right), toward: pt(a)) ?? right.module)) / 2
        let down = ((moduleAlong(binary, from: pt(a), toward: pt(left)) ?? a.module)
            + (moduleAlong(binary, from: pt(left), toward: pt(a)) ?? left.module)) / 2
        var triple = FinderTriple(topLeft: pt(a), topRight: pt(right), bottomLeft: pt(left),
                                  moduleAcross: across, moduleDown: down,
                                  finderModules: [a.module, right.module, left.module])
        if let grey {
            let top = FinderTriple.timingDimension(
                in: grey, from: pt(a), a.module, to: pt(right), right.module,
                inward: (left.x - a.x, left.y - a.y))
            let side = FinderTriple.timingDimension(
                in: grey, from: pt(a), a.module, to: pt(left), left.module,
                inward: (right.x - a.x, right.y - a.y))
            if let top, let side { triple.timingDimension = top == side ? top : nil } else {
                triple.timingDimension = top ?? side
            }
        }
        return triple
    }

    private static func pt(_ p: FinderPattern) -> (x: Double, y: Double) { (p.x, p.y) }

    /// A side this much longer than the next is the diagonal for sure.
    static let sureDiagonal = 1.1

    /// `corners` at the corner opposite the longest side, and at the next longest's when near (`sureDiagonal`).
    /// (Asked of all 84 triples of every search: no array is made for three patterns that are no code.)
    static func cornerChoices(_ p0: FinderPattern, _ p1: FinderPattern, _ p2: FinderPattern) -> [Corners] {
        let sides = (distance(pt(p1), pt(p2)), distance(pt(p0), pt(p2)), distance(pt(p0), pt(p1)))
        func side(_ i: Int) -> Double { i == 0 ? sides.0 : i == 1 ? sides.1 : sides.2 }
        // The sides' indices, the longest first; equal ones in index order, as a stable sort leaves them.
        var longest = 0, next = 1
        if side(next) > side(longest) { (longest, next) = (next, longest) }
        if side(2) > side(next) { (longest, next) = side(2) > side(longest) ? (2, longest) : (longest, 2) }
        // The three modules in the patterns' order (their mean is summed in it).
        let modules = (p0.module, p1.module, p2.module)
        func at(_ corner: Int) -> Corners? {
            let p = corner == 0 ? (p0, p1, p2) : corner == 1 ? (p1, p2, p0) : (p2, p0, p1)
            return corners(p.0, p.1, p.2, modules: modules)
        }
        let first = at(longest)
        let second = side(longest) < side(next) * sureDiagonal ? at(next) : nil
        guard let first else { return second.map { [$0] } ?? [] }
        guard let second else { return [first] }
        return [first, second]
    }

    /// Three patterns as a code's corners, `a` the top-left, when they can be (within the bounds above);
    /// `modules` are the three patterns' modules in the order they were found.
    static func corners(_ a: FinderPattern, _ b: FinderPattern, _ c: FinderPattern,
                        modules: (Double, Double, Double)) -> Corners? {
        let (m0, m1, m2) = modules
        guard max(m0, m1, m2) < min(m0, m1, m2) * tripleModuleRatio else { return nil }
        let ab = distance(pt(a), pt(b)), ac = distance(pt(a), pt(c))
        let ratio = max(ab, ac) / min(ab, ac)
        guard ratio < tripleLegRatio else { return nil }
        let cosine = ((b.x - a.x) * (c.x - a.x) + (b.y - a.y) * (c.y - a.y)) / (ab * ac)
        guard abs(cosine) < tripleCosine else { return nil }
        let module = (m0 + m1 + m2) / Double(QRGeometry.finders)
        guard min(ab, ac) > module * shortestLeg, max(ab, ac) < module * longestLeg else { return nil }
        return (a, b, c, cosine, ratio)
    }

    /// The module width along the line from a finder's centre toward `target`.
    static func moduleAlong(_ binary: GrayImage, from centre: (x: Double, y: Double),
                            toward target: (x: Double, y: Double)) -> Double? {
        let length = distance(centre, target)
        guard length > 0 else { return nil }
        let dx = (target.x - centre.x) / length, dy = (target.y - centre.y) / length
        let w = binary.width, h = binary.height
        return binary.pixels.withUnsafeBufferPointer { px -> Double? in
            /// The three runs (dark, light, dark) going one way, as a distance to where they end.
            func reach(_ sign: Double) -> Double? {
                var state = 0, t = 0.0
                let limit = length * moduleAlongReach
                while t < limit {
                    let x = Int((centre.x + sign * t * dx).rounded()), y = Int((centre.y + sign * t * dy).rounded())
                    guard x >= 0, y >= 0, x < w, y < h else { return nil }
                    let dark = px[y * w + x] < darkBelow
                    switch state {
                    case 0: if !dark { state = 1 }
                    case 1: if dark { state = 2 }
                    default: if !dark { return t }
                    }
                    t += moduleAlongStep
                }
                return nil
            }
            guard let forward = reach(1), let backward = reach(-1) else { return nil }
            return (forward + backward) / Double(QRGeometry.finderSide)
        }
    }
}
