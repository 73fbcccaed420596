import LommeImages

/// Finding where a code probably is, so that a crop of it can be scanned again at a
/// better scale: QR finder patterns (the three nested squares, a 1:1:3:1:1 run of
/// dark and light along any line through their centre) in a two-level picture.
struct FinderPattern: Equatable {
    var x: Double
    var y: Double
    /// Width of one module in pixels.
    var module: Double
    /// How many scan lines confirmed it.
    var hits: Int
}

enum FinderSearch {
    // MARK: Tuning: what counts as a finder pattern

    /// Dark pixels of the two-level pictures searched (0 and 255) are below this.
    static let darkBelow: UInt8 = 128
    /// How far each outer run (1 of 1:1:3:1:1) may be from one module, in modules: blur
    /// and the binarisation's window widen or narrow runs by up to a pixel or two.
    static let runTolerance = 0.7
    /// The centre run's tolerance, as a share of three times `runTolerance`: tighter, since
    /// a three-module centre is what tells a finder from look-alikes in the data area.
    static let centreTolerance = 0.8
    /// The column cross-check follows each run up to this many expected modules (plus
    /// `crossCheckSlack` pixels) before giving up: a finder's runs are one module, its
    /// centre three; longer runs belong to something else.
    static let crossCheckReach = 5.0
    static let crossCheckSlack = 2
    /// The module down the column may be this factor wider or narrower than along the row:
    /// perspective, and terminal cells taller than wide.
    static let crossCheckScale = 1.6
    /// The fine search's: a small code turned 40-60° away in a 12 MP photo has finders two
    /// or three times wider than tall (in the working view that much lets in look-alikes
    /// that crowd out the crops of the `regions` passes).
    static let steepCrossCheckScale = 2.5
    /// Sightings within this many modules of each other, of module sizes within
    /// `sameScale`, are one finder (also for merging the patterns two windows found).
    static let samePlace = 2.0
    static let sameScale = 1.5
    /// A finder needs this many sightings, and at least `sightingsPerModule` per module of
    /// its size (see `patterns(in:)`).
    static let minimumSightings = 2
    static let sightingsPerModule = 0.5

    /// Finder patterns in `image`, which should be binarised (0 and 255), whose module down
    /// the column is within `scale` of the one along the row.
    static func patterns(in image: GrayImage, scale: Double = crossCheckScale) -> [FinderPattern] {
        let w = image.width, h = image.height
        guard w >= QRGeometry.smallestSide, h >= QRGeometry.smallestSide else { return [] }
        var found = Sightings()
        image.pixels.withUnsafeBufferPointer { px in
            var starts: [Int] = [], lengths: [Int] = []
            starts.reserveCapacity(w); lengths.reserveCapacity(w)
            var five = [0, 0, 0, 0, 0]
            for y in 0..<h {
                let row = y * w
                // The row as runs; runs at even indices are dark.
                starts.removeAll(keepingCapacity: true); lengths.removeAll(keepingCapacity: true)
                var x = 0
                while x < w && px[row + x] >= darkBelow { x += 1 }
                while x < w {
                    let dark = px[row + x] < darkBelow
                    var end = x + 1
                    while end < w && (px[row + end] < darkBelow) == dark { end += 1 }
                    starts.append(x); lengths.append(end - x)
                    x = end
                }
                var i = 0
                while i + 4 < lengths.count {
                    for k in 0..<5 { five[k] = lengths[i + k] }
                    if let module = ratioModule(five) {
                        let centerX = Double(starts[i + 2]) + Double(lengths[i + 2]) / 2
                        if let (centerY, vModule) = crossCheckVertical(px, w, h, x: Int(centerX), y: y, expected: module, scale: scale) {
                            found.add(FinderPattern(x: centerX, y: centerY, module: (module + vModule) / 2, hits: 1))
                        }
                    }
                    i += 2
                }
            }
        }
        // An upright finder's 3-module centre is crossed by about 3·module scan lines, but one
        // turned 30-45° only by the few rows near its exact centre (its runs keep the ratio
        // there alone); asking for 1.5·module sightings lost codes turned that far.
        // Look-alikes in the data area are confirmed by fewer still, and triples are ranked
        // by sightings.
        return found.patterns.filter { $0.hits >= max(minimumSightings, Int($0.module * sightingsPerModule)) }.sorted { $0.hits > $1.hits }
    }

    /// The module size if five run lengths are close enough to 1:1:3:1:1.
    static func ratioModule(_ r: [Int]) -> Double? {
        let total = r[0] + r[1] + r[2] + r[3] + r[4]
        guard total >= QRGeometry.finderSide else { return nil }
        let module = Double(total) / Double(QRGeometry.finderSide)
        let tolerance = module * runTolerance
        for i in [0, 1, 3, 4] where abs(Double(r[i]) - module) > tolerance { return nil }
        let centre = Double(QRGeometry.finderCentreSide)
        guard abs(Double(r[2]) - centre * module) < centre * tolerance * centreTolerance else { return nil }
        return module
    }

    /// Counts runs up and down from a dark centre pixel and checks the same ratio there.
    static func crossCheckVertical(_ px: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, x: Int, y: Int, expected: Double,
                                   scale: Double) -> (Double, Double)? {
        guard x >= 0, x < w else { return nil }
        @inline(__always) func dark(_ yy: Int) -> Bool { px[yy * w + x] < darkBelow }
        guard dark(y) else { return nil }
        let limit = Int(expected * crossCheckReach) + crossCheckSlack
        var r = [0, 0, 0, 0, 0]
        // Upwards: centre dark, light, dark.
        var yy = y
        while yy >= 0 && dark(yy) { r[2] += 1; yy -= 1 }
        while yy >= 0 && !dark(yy) && r[1] <= limit { r[1] += 1; yy -= 1 }
        while yy >= 0 && dark(yy) && r[0] <= limit { r[0] += 1; yy -= 1 }
        yy = y + 1
        while yy < h && dark(yy) { r[2] += 1; yy += 1 }
        while yy < h && !dark(yy) && r[3] <= limit { r[3] += 1; yy += 1 }
        while yy < h && dark(yy) && r[4] <= limit { r[4] += 1; yy += 1 }
        guard r[0] > 0, r[1] > 0, r[3] > 0, r[4] > 0, let module = ratioModule(r) else { return nil }
        guard module < expected * scale, module > expected / scale else { return nil }
        let centerY = Double(yy - r[4] - r[3]) - Double(r[2]) / 2
        return (centerY, module)
    }

}

/// The finder patterns seen so far, each sighting merged into a pattern at the same place
/// and scale, found through a coarse grid of cells: a textured 12 MP photo can hold
/// thousands of look-alikes, and comparing each sighting with all of them took seconds.
struct Sightings {
    private(set) var patterns: [FinderPattern] = []
    /// Indices into `patterns` by cell.
    private var cells: [Int: [Int]] = [:]
    static let cellSide = 32.0

    private static func cell(_ x: Double, _ y: Double) -> (Int, Int) { (Int(x / cellSide), Int(y / cellSide)) }
    private static func key(_ c: (Int, Int)) -> Int { c.1 &* 1_000_003 &+ c.0 }

    /// Merges a sighting with a pattern found before at the same place and scale, or adds it.
    mutating func add(_ new: FinderPattern) {
        // A pattern it merges with is within samePlace of its own module, which is under
        // sameScale times the sighting's.
        let reach = new.module * FinderSearch.samePlace * FinderSearch.sameScale
        let (x0, y0) = Self.cell(max(0, new.x - reach), max(0, new.y - reach))
        let (x1, y1) = Self.cell(new.x + reach, new.y + reach)
        var best: Int? = nil
        for cy in y0...y1 {
            for cx in x0...x1 {
                for i in cells[Self.key((cx, cy))] ?? [] where best.map({ i < $0 }) ?? true {
                    let old = patterns[i]
                    if abs(old.x - new.x) <= old.module * FinderSearch.samePlace, abs(old.y - new.y) <= old.module * FinderSearch.samePlace,
                       new.module < old.module * FinderSearch.sameScale, new.module > old.module / FinderSearch.sameScale {
                        best = i
                    }
                }
            }
        }
        guard let i = best else {
            cells[Self.key(Self.cell(new.x, new.y)), default: []].append(patterns.count)
            patterns.append(new)
            return
        }
        // The first pattern found that matches, as a list searched in order would find it.
        let old = patterns[i], n = Double(old.hits)
        let merged = FinderPattern(x: (old.x * n + new.x) / (n + 1), y: (old.y * n + new.y) / (n + 1),
                                   module: (old.module * n + new.module) / (n + 1), hits: old.hits + 1)
        let before = Self.key(Self.cell(old.x, old.y)), after = Self.key(Self.cell(merged.x, merged.y))
        if before != after {
            cells[before]?.removeAll { $0 == i }
            cells[after, default: []].append(i)
        }
        patterns[i] = merged
    }
}
