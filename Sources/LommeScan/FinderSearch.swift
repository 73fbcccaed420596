import LommeImages

/// Finding where a code probably is, so that a crop of it can be scanned again at a better scale.
struct FinderPattern: Equatable {
    var x: Double
    var y: Double
    /// Width of one module in pixels.
    var module: Double
    /// How many scan lines confirmed it.
    var hits: Int
    /// The narrower of its module widths along the row and down the column (mean over sightings), if known.
    var narrowModule: Double? = nil

    /// `narrowModule`, or `module` when that is not known.
    var narrowest: Double { narrowModule ?? module }
}

enum FinderSearch {
    // MARK: Tuning: what counts as a finder pattern

    /// Dark pixels of the two-level pictures searched (0 and 255) are below this.
    static let darkBelow: UInt8 = 128
    /// How far each outer run (1 of 1:1:3:1:1) may be from one module, in modules.
    static let runTolerance = 0.7
    /// The centre run's tolerance, as a share of three times `runTolerance`.
    static let centreTolerance = 0.8
    /// The column cross-check follows each run up to this many expected modules (plus `crossCheckSlack` px):
    /// a finder's runs are one module, its centre three; longer runs belong to something else.
    static let crossCheckReach = 5.0
    static let crossCheckSlack = 2
    /// The module down the column may be this factor wider or narrower than along the row.
    static let crossCheckScale = 1.6
    /// The fine search's: a small code turned 40-60° away in a 12 MP photo has finders 2-3 times wider than
    /// tall (in the working view that lets in look-alikes that crowd out the `regions` crops).
    static let steepCrossCheckScale = 2.5
    /// Sightings within this many modules, of modules within `sameScale`, are one finder (also two windows' finds).
    static let samePlace = 2.0
    static let sameScale = 1.5
    /// A finder needs this many sightings, and `sightingsPerModule` per module of its size (`patterns(in:)`).
    static let minimumSightings = 2
    static let sightingsPerModule = 0.5

    /// Finder patterns in `image` (binarised: 0 and 255) whose module down the column is within `scale` of the row's.
    static func patterns(in image: GrayImage, scale: Double = crossCheckScale, inverted: Bool = false) -> [FinderPattern] {
        let both = patternsByPolarity(in: image, scale: scale)
        return inverted ? both.light : both.dark
    }

    /// Dark on light and light on dark finder patterns in `image`, found in one pass over its rows.
    static func patternsByPolarity(in image: GrayImage, scale: Double = crossCheckScale)
        -> (dark: [FinderPattern], light: [FinderPattern]) {
        patternsByPolarity(in: image, scales: [scale])[0]
    }

    /// The same at several cross-check scales in one pass over the rows.
    static func patternsByPolarity(in image: GrayImage, scales: [Double], rowStep: Int = 1)
        -> [(dark: [FinderPattern], light: [FinderPattern])] {
        let w = image.width, h = image.height
        guard w >= QRGeometry.smallestSide, h >= QRGeometry.smallestSide, let widest = scales.max() else {
            return scales.map { _ in ([], []) }
        }
        assert(darkBelow == 0x80, "the run search reads the top bit")
        var dark = scales.map { _ in Sightings() }, light = dark
        // A row's runs of one level: ends[0] = 0, ends[k + 1] where run k ends (the last at w).
        let ends = UnsafeMutablePointer<Int32>.allocate(capacity: w + 2)
        // Each run's length, and whether the five runs ending with run i may be a finder (`mayBeFinder`).
        let lengths = UnsafeMutablePointer<Int32>.allocate(capacity: w + 1)
        let may = UnsafeMutablePointer<UInt8>.allocate(capacity: w + 1)
        defer {
            ends.deallocate()
            lengths.deallocate()
            may.deallocate()
        }
        image.pixels.withUnsafeBufferPointer { px in
            guard let base = px.baseAddress else { return }
            for y in stride(from: 0, to: h, by: max(1, rowStep)) {
                let row = y * w
                let runs = runEnds(UnsafeRawPointer(base + row), width: w, into: ends)
                guard runs >= 5 else { continue }
                @inline(__always) func run(_ k: Int) -> Int { Int(ends[k &+ 1] &- ends[k]) }
                // Every five runs asked at once, several at a time (most fail), then the few that pass
                // looked at. Rows too wide for its arithmetic pass every five on to `ratioModule`.
                for k in 0..<runs { lengths[k] = ends[k &+ 1] &- ends[k] }
                if w <= mayBeFinderWidest {
                    for i in 4..<runs { may[i] = mayBeFinder(lengths[i &- 4], lengths[i &- 3], lengths[i &- 2], lengths[i &- 1], lengths[i]) }
                } else {
                    for i in 4..<runs { may[i] = 1 }
                }
                // Runs alternate in level: run i is the first run's level when i is even.
                let firstDark = px[row] < darkBelow
                for i in 4..<runs where may[i] != 0 {
                    let r2 = run(i &- 2)
                    guard let module = ratioModule(run(i &- 4), run(i &- 3), r2, run(i &- 1), run(i)) else { continue }
                    let isDark = firstDark == (i & 1 == 0)
                    let centerX = Double(ends[i &- 2]) + Double(r2) / 2
                    if let (centerY, vModule) = crossCheckVertical(px, w, h, x: Int(centerX), y: y, expected: module,
                                                                  scale: widest, inverted: !isDark) {
                        let found = FinderPattern(x: centerX, y: centerY, module: (module + vModule) / 2, hits: 1,
                                                  narrowModule: min(module, vModule))
                        for (n, scale) in scales.enumerated() where vModule < module * scale && vModule > module / scale {
                            if isDark { dark[n].add(found) } else { light[n].add(found) }
                        }
                    }
                }
            }
        }
        // A finder turned 30-45° keeps the run ratio only on the few rows near its centre:
        // half a module's worth of sightings; triples are ranked by sightings.
        func confirmed(_ found: Sightings) -> [FinderPattern] {
            let perModule = rowStep > 1 ? 0 : sightingsPerModule
            return found.patterns.filter { $0.hits >= max(minimumSightings, Int($0.module * perModule)) }.sorted { $0.hits > $1.hits }
        }
        return zip(dark, light).map { (confirmed($0), confirmed($1)) }
    }

    /// The runs of one level along a row of a two-level picture `w` pixels wide: writes 0 to `ends[0]`
    /// and where each run ends to the entries after it (the last at `w`); returns how many runs.
    @inline(__always)
    static func runEnds(_ row: UnsafeRawPointer, width w: Int, into ends: UnsafeMutablePointer<Int32>) -> Int {
        let px = row.assumingMemoryBound(to: UInt8.self)
        var count = 0
        ends[0] = 0
        // Whether the pixel before the next one read is light (the first pixel itself at first: no run ends there).
        var previous = UInt64(px[0] >> 7)
        var x = 0
        // 64 pixels at a time as a word, bit k set where pixel x + k is light (its top bit set,
        // with `darkBelow` 128): each byte's top bit gathered by one multiplication, eight bytes a read.
        while x &+ 64 <= w {
            var light: UInt64 = 0
            for c in 0..<8 {
                let bytes = row.loadUnaligned(fromByteOffset: x &+ 8 &* c, as: UInt64.self)
                light |= ((((bytes >> 7) & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) >> 56) << UInt64(8 &* c)
            }
            // A run ends before every pixel whose level is not the one before it.
            var changes = light ^ (light << 1 | previous)
            previous = light >> 63
            while changes != 0 {
                count &+= 1
                ends[count] = Int32(truncatingIfNeeded: x &+ changes.trailingZeroBitCount)
                changes &= changes &- 1
            }
            x &+= 64
        }
        while x < w {
            let level = UInt64(px[x] >> 7)
            if level != previous {
                count &+= 1
                ends[count] = Int32(truncatingIfNeeded: x)
            }
            previous = level
            x &+= 1
        }
        count &+= 1
        ends[count] = Int32(truncatingIfNeeded: w)
        return count
    }

    /// Whether five run lengths may pass `ratioModule` (1) or not (0), in whole numbers: asked of
    /// every run, most fail. Without a branch, so that the compiler asks several at once and a
    /// noisy row's coin tosses cost no mispredictions. Exact for the runs of a row of up to
    /// `mayBeFinderWidest` pixels: five runs total at most its width, and the largest product,
    /// 100·|7·r2 − 3·total| ≤ 400 × width, stays in 31 bits.
    @inline(__always)
    static func mayBeFinder(_ r0: Int32, _ r1: Int32, _ r2: Int32, _ r3: Int32, _ r4: Int32) -> UInt8 {
        assert(runTolerance == 0.7 && centreTolerance == 0.8, "the whole-number bounds below are these tolerances")
        let total = r0 &+ r1 &+ r2 &+ r3 &+ r4
        let outer = 7 &* total
        @inline(__always) func atMost(_ a: Int32, _ b: Int32) -> UInt8 { a <= b ? 1 : 0 }
        @inline(__always) func magnitude(_ v: Int32) -> Int32 { (v ^ (v >> 31)) &- (v >> 31) }
        @inline(__always) func near(_ r: Int32) -> UInt8 { atMost(10 &* magnitude(7 &* r &- total), outer) }
        // The centre: 100·|7·r2 − 3·total| ≤ 168·total; each outer run: 10·|7·r − total| ≤ 7·total.
        let centre = atMost(100 &* magnitude(7 &* r2 &- 3 &* total), 168 &* total)
        return atMost(Int32(QRGeometry.finderSide), total) & centre & near(r0) & near(r1) & near(r3) & near(r4)
    }

    /// The widest row `mayBeFinder` is asked about.
    static let mayBeFinderWidest = 1 << 20

    /// The module size if five run lengths are close enough to 1:1:3:1:1.
    @inline(__always)
    static func ratioModule(_ r0: Int, _ r1: Int, _ r2: Int, _ r3: Int, _ r4: Int) -> Double? {
        let total = r0 + r1 + r2 + r3 + r4
        guard total >= QRGeometry.finderSide else { return nil }
        // Most runs fail already the test below multiplied through by 7 (a hair looser for rounding): no division.
        let loose = Double(total) * (1 + 1e-9)
        @inline(__always) func outerFar(_ r: Int) -> Bool { Double(abs(7 * r - total)) > runTolerance * loose }
        guard !outerFar(r0), !outerFar(r1), !outerFar(r3), !outerFar(r4),
              Double(abs(7 * r2 - 3 * total)) < 3 * runTolerance * centreTolerance * loose else { return nil }
        let module = Double(total) / Double(QRGeometry.finderSide)
        let tolerance = module * runTolerance
        guard abs(Double(r0) - module) <= tolerance, abs(Double(r1) - module) <= tolerance,
              abs(Double(r3) - module) <= tolerance, abs(Double(r4) - module) <= tolerance else { return nil }
        let centre = Double(QRGeometry.finderCentreSide)
        guard abs(Double(r2) - centre * module) < centre * tolerance * centreTolerance else { return nil }
        return module
    }

    /// Counts runs up and down from a dark centre pixel and checks the same ratio there.
    static func crossCheckVertical(_ px: UnsafeBufferPointer<UInt8>, _ w: Int, _ h: Int, x: Int, y: Int, expected: Double,
                                   scale: Double, inverted: Bool = false) -> (Double, Double)? {
        guard x >= 0, x < w else { return nil }
        @inline(__always) func dark(_ yy: Int) -> Bool { (px[yy &* w &+ x] < darkBelow) != inverted }
        guard dark(y) else { return nil }
        let limit = Int(expected * crossCheckReach) + crossCheckSlack
        var r0 = 0, r1 = 0, r2 = 0, r3 = 0, r4 = 0
        // Wrapping arithmetic: the counts are bounded by the picture's height.
        var yy = y
        while yy >= 0 && dark(yy) { r2 &+= 1; yy &-= 1 }
        while yy >= 0 && !dark(yy) && r1 <= limit { r1 &+= 1; yy &-= 1 }
        while yy >= 0 && dark(yy) && r0 <= limit { r0 &+= 1; yy &-= 1 }
        yy = y &+ 1
        while yy < h && dark(yy) { r2 &+= 1; yy &+= 1 }
        while yy < h && !dark(yy) && r3 <= limit { r3 &+= 1; yy &+= 1 }
        while yy < h && dark(yy) && r4 <= limit { r4 &+= 1; yy &+= 1 }
        guard r0 > 0, r1 > 0, r3 > 0, r4 > 0, let module = ratioModule(r0, r1, r2, r3, r4) else { return nil }
        guard module < expected * scale, module > expected / scale else { return nil }
        let centerY = Double(yy - r4 - r3) - Double(r2) / 2
        return (centerY, module)
    }

}

/// The finder patterns seen so far, each sighting merged into one at the same place and scale (by grid cell).
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
                                   module: (old.module * n + new.module) / (n + 1), hits: old.hits + 1,
                                   narrowModule: (old.narrowModule ?? old.module) * n / (n + 1) + (new.narrowModule ?? new.module) / (n + 1))
        let before = Self.key(Self.cell(old.x, old.y)), after = Self.key(Self.cell(merged.x, merged.y))
        if before != after {
            cells[before]?.removeAll { $0 == i }
            cells[after, default: []].append(i)
        }
        patterns[i] = merged
    }
}
