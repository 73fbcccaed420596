import LommeImages
import LommeTestSupport
import Testing
@testable import LommeScan

/// The order the workers take passes in when one of them would wait for the other.
@Suite("Scanner search state")
struct SearchStateTests {
    @Test func aPassPutOffIsTakenOnceReadyBeforeTheNextInOrder() throws {
        let state = SearchState()
        var ready: Set<Int> = []
        func next() -> (Int, Bool)? { state.nextPass(below: 4, ready: { ready.contains($0) }).map { ($0.0, $0.1) } }
        #expect(next()! == (0, true))
        #expect(next()! == (1, true))
        #expect(state.putOff(1, below: 4), "passes 2 and 3 are left to take meanwhile")
        #expect(next()! == (2, true), "not ready: the next in order")
        ready = [1]
        #expect(next()! == (1, false), "ready now: before pass 3")
        #expect(next()! == (3, true))
        #expect(next() == nil)
    }

    @Test func aPassIsNotPutOffWhenNothingIsLeftToDoMeanwhile() {
        let state = SearchState()
        for _ in 0..<3 { _ = state.nextPass(below: 3, ready: { _ in false }) }
        #expect(!state.putOff(2, below: 3), "the last pass: waiting is all there is to do")
    }

    @Test func aPassPutOffIsTakenAtTheEndEvenIfNotReady() throws {
        let state = SearchState()
        _ = state.nextPass(below: 2, ready: { _ in false })
        #expect(state.putOff(0, below: 2))
        #expect(state.nextPass(below: 2, ready: { _ in false }).map { $0.0 } == 1)
        let last = try #require(state.nextPass(below: 2, ready: { _ in false }))
        #expect(last.0 == 0 && !last.1, "taken again, to wait for its evidence")
        #expect(state.nextPass(below: 2, ready: { _ in false }) == nil)
    }
}

/// The cheaper searches give the results of the plain ones they replaced.
@Suite("Scanner search cost")
struct SearchCostTests {
    typealias F = ScanFixtures

    /// Finder patterns the simple way: each row as a list of runs from its first dark
    /// pixel, every five runs ending dark checked (the search before it learnt to find both
    /// polarities in one pass and to skip eight pixels at a time).
    static func plainPatterns(in image: GrayImage, scale: Double) -> [FinderPattern] {
        var found = Sightings()
        let w = image.width, h = image.height
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<h {
                var starts: [Int] = [], lengths: [Int] = []
                var x = 0
                while x < w && px[y * w + x] >= FinderSearch.darkBelow { x += 1 }
                while x < w {
                    let dark = px[y * w + x] < FinderSearch.darkBelow
                    var end = x + 1
                    while end < w && (px[y * w + end] < FinderSearch.darkBelow) == dark { end += 1 }
                    starts.append(x)
                    lengths.append(end - x)
                    x = end
                }
                var i = 0
                while i + 4 < lengths.count {
                    let r = Array(lengths[i..<(i + 5)])
                    if let module = FinderSearch.ratioModule(r[0], r[1], r[2], r[3], r[4]) {
                        let centerX = Double(starts[i + 2]) + Double(lengths[i + 2]) / 2
                        if let (centerY, vModule) = FinderSearch.crossCheckVertical(px, w, h, x: Int(centerX), y: y,
                                                                                  expected: module, scale: scale) {
                            found.add(FinderPattern(x: centerX, y: centerY, module: (module + vModule) / 2, hits: 1,
                                                        narrowModule: min(module, vModule)))
                        }
                    }
                    i += 2
                }
            }
        }
        return found.patterns
            .filter { $0.hits >= max(FinderSearch.minimumSightings, Int($0.module * FinderSearch.sightingsPerModule)) }
            .sorted { $0.hits > $1.hits }
    }

    /// Two-level pictures with finder patterns of both polarities and plenty of noise runs.
    static func binarised() throws -> [(String, GrayImage)] {
        let steep = try F.image("steep.jpg")
        let dark = try F.image("dark-blurred.jpg")
        var seed: UInt64 = 20_261_122
        // Rows a multiple of the row search's eight-pixel reads wide, a pixel wider and
        // narrower, and narrow ones; dark and light pixels of every grey either side of
        // `darkBelow` (the search reads the top bit).
        func noise(_ width: Int, _ height: Int) -> (String, GrayImage) {
            var image = GrayImage(width: width, height: height, fill: 0)
            for i in image.pixels.indices {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                image.pixels[i] = (seed >> 61) < 3 ? UInt8(truncatingIfNeeded: seed >> 40) & 0x7f : UInt8(truncatingIfNeeded: seed >> 40) | 0x80
            }
            return ("noise \(width)x\(height)", image)
        }
        return [
            ("clean", try F.image("clean.png").otsuBinarized()),
            ("steep blocks", steep.blockBinarized()),
            ("dark-blurred", dark.adaptiveBinarized(radius: 20)),
            noise(333, 257), noise(64, 64), noise(128, 65), noise(127, 40), noise(129, 40), noise(23, 300),
        ]
    }

    @Test func bothPolaritiesInOnePassFindWhatTwoPlainSearchesFind() throws {
        for (name, binary) in try Self.binarised() {
            for scale in [FinderSearch.crossCheckScale, FinderSearch.steepCrossCheckScale] {
                let both = FinderSearch.patternsByPolarity(in: binary, scale: scale)
                #expect(both.dark == Self.plainPatterns(in: binary, scale: scale), "\(name) dark on light, scale \(scale)")
                #expect(both.light == Self.plainPatterns(in: binary.inverted(), scale: scale), "\(name) light on dark, scale \(scale)")
            }
        }
        // Both scales in one pass: each the same as its own search.
        for (name, binary) in try Self.binarised() + [("tilted", try F.image("tilted.jpg").adaptiveBinarized(radius: 48))] {
            let scales = [FinderSearch.crossCheckScale, FinderSearch.steepCrossCheckScale]
            let together = FinderSearch.patternsByPolarity(in: binary, scales: scales)
            #expect(together.count == 2)
            for (n, scale) in scales.enumerated() where n < together.count {
                let alone = FinderSearch.patternsByPolarity(in: binary, scale: scale)
                #expect(together[n].dark == alone.dark && together[n].light == alone.light, "\(name), scale \(scale)")
            }
        }
        // The pictures do hold patterns of each kind (the comparison is not of empty lists).
        let all = try Self.binarised().map { FinderSearch.patternsByPolarity(in: $0.1, scale: FinderSearch.steepCrossCheckScale) }
        #expect(all.contains { $0.dark.count >= 3 } && all.contains { $0.light.count >= 3 })
    }

    /// The triples of the searches as they were made before only the kept ones were measured:
    /// every combination measured along its legs and timing patterns, then ranked.
    static func everyTripleMeasured(from patterns: [FinderPattern], in binary: GrayImage, grey: GrayImage) -> [FinderTriple] {
        let candidates = Array(patterns.prefix(FinderSearch.tripleCandidates))
        var scored: [([FinderTriple], Double)] = []
        for i in candidates.indices {
            for j in candidates.indices where j > i {
                for k in candidates.indices where k > j {
                    let p = [candidates[i], candidates[j], candidates[k]]
                    let choices = FinderSearch.cornerChoices(p[0], p[1], p[2])
                    guard let first = choices.first else { continue }
                    let modules = p.map(\.module)
                    let score = Double(p.map(\.hits).reduce(0, +)) / (1 + abs(first.cosine) * FinderSearch.anglePenalty)
                        / first.ratio / (modules.max()! / modules.min()!)
                    scored.append((choices.map { FinderSearch.triple(corner: $0.corner, $0.1, $0.2, in: binary, grey: grey) }, score))
                }
            }
        }
        return scored.sorted { $0.1 > $1.1 }.prefix(FinderSearch.maximumTriples).flatMap(\.0)
    }

    /// Searching every second row (the negated view's block binarisation) finds a code's
    /// finders in the same places, each seen about half as often, and no pattern the search
    /// of every row does not find.
    @Test func everySecondRowFindsTheSameFindersSeenHalfAsOften() throws {
        let binary = try F.image("clean.png").otsuBinarized()
        let every = FinderSearch.patternsByPolarity(in: binary, scales: [FinderSearch.crossCheckScale])[0].dark
        let second = FinderSearch.patternsByPolarity(in: binary, scales: [FinderSearch.crossCheckScale], rowStep: 2)[0].dark
        for found in second {
            #expect(every.contains { abs($0.x - found.x) <= 2 && abs($0.y - found.y) <= 2 }, "\(found)")
        }
        // The code's own three, crossed by the most rows.
        for found in every.prefix(QRGeometry.finders) {
            let same = second.first { abs($0.x - found.x) <= 1 && abs($0.y - found.y) <= 1 }
            #expect(same != nil, "\(found)")
            if let same { #expect(abs(2 * same.hits - found.hits) <= 2, "\(same.hits) of \(found.hits)") }
        }
    }

    @Test func onlyTheKeptTriplesAreMeasuredAndTheyAreTheSame() throws {
        var compared = 0
        for name in ["tilted.jpg", "steep.jpg", "foreshortened.jpg", "long-legged.jpg", "tall-cells.jpg"] {
            let grey = try F.image(name).fitting(longSide: Pass.workingSide)
            let binary = grey.adaptiveBinarized(radius: Pass.localRadius(grey, divisor: Pass.narrowWindow))
            let both = FinderSearch.patternsByPolarity(in: binary, scale: FinderSearch.steepCrossCheckScale)
            for (patterns, image, picture) in [(both.dark, binary, grey), (both.light, binary.inverted(), grey.inverted())] {
                let kept = FinderSearch.triples(from: patterns, in: image, grey: picture)
                let every = Self.everyTripleMeasured(from: patterns, in: image, grey: picture)
                #expect(kept.map(Self.described) == every.map(Self.described), "\(name)")
                compared += kept.count
            }
        }
        #expect(compared >= 20, "the pictures hold triples to compare")
    }

    static func described(_ t: FinderTriple) -> String {
        "\(t.topLeft) \(t.topRight) \(t.bottomLeft) \(t.moduleAcross) \(t.moduleDown) \(String(describing: t.timingDimension)) \(String(describing: t.finderModules))"
    }

    /// The whole-number test the row search asks of every run never refuses five runs the
    /// ratio test takes, and refuses most of the others (every run from 1 to 14 pixels).
    @Test func theWholeNumberRunTestIsNeverStricterThanTheRatioTest() {
        var taken = 0, refused = 0, passedOn = 0
        let lengths = 1...14
        for r0 in lengths { for r1 in lengths { for r2 in 1...3 * lengths.upperBound { for r3 in lengths { for r4 in lengths {
            let may = FinderSearch.mayBeFinder(Int32(r0), Int32(r1), Int32(r2), Int32(r3), Int32(r4)) != 0
            if FinderSearch.ratioModule(r0, r1, r2, r3, r4) != nil {
                taken += 1
                if !may { Issue.record("refused \([r0, r1, r2, r3, r4])") }
            } else if may { passedOn += 1 } else { refused += 1 }
        } } } } }
        #expect(taken > 0)
        #expect(refused > 20 * passedOn, "refused \(refused), passed on \(passedOn)")
    }

    /// The run test as first written, in whole numbers of 64 bits, one test after another.
    static func plainMayBeFinder(_ r0: Int, _ r1: Int, _ r2: Int, _ r3: Int, _ r4: Int) -> Bool {
        let total = r0 + r1 + r2 + r3 + r4
        guard total >= 7 else { return false }
        func near(_ r: Int) -> Bool { 10 * abs(7 * r - total) <= 7 * total }
        return 100 * abs(7 * r2 - 3 * total) <= 168 * total && near(r0) && near(r1) && near(r3) && near(r4)
    }

    /// The branchless 32-bit run test answers as the plain one: every five runs from 0 to 11
    /// pixels (the centre to 33), and runs from a fixed seed, near a finder's 1:1:3:1:1 and
    /// not, up to rows of `mayBeFinderWidest` pixels, where its products come nearest to
    /// overflowing.
    @Test func theBranchlessRunTestIsThePlainOne() {
        var checked = 0, passed = 0
        func check(_ r: [Int]) {
            let branchless = FinderSearch.mayBeFinder(Int32(r[0]), Int32(r[1]), Int32(r[2]), Int32(r[3]), Int32(r[4]))
            let plain = Self.plainMayBeFinder(r[0], r[1], r[2], r[3], r[4])
            if (branchless != 0) != plain { Issue.record("\(r): branchless \(branchless), plain \(plain)") }
            checked += 1
            if plain { passed += 1 }
        }
        let lengths = 0...11
        for r0 in lengths { for r1 in lengths { for r2 in 0...33 { for r3 in lengths { for r4 in lengths {
            check([r0, r1, r2, r3, r4])
        } } } } }
        var generator = SplitMix(seed: 72)
        let widest = FinderSearch.mayBeFinderWidest
        for _ in 0..<100_000 {
            let module = Int.random(in: 1...widest / 7, using: &generator)
            let spread = Int.random(in: 0...module, using: &generator)
            var runs = [module, module, 3 * module, module, module].map { max(0, $0 + Int.random(in: -spread...spread, using: &generator)) }
            if Bool.random(using: &generator) { runs = (0..<5).map { _ in Int.random(in: 0...widest / 5, using: &generator) } }
            if runs.reduce(0, +) <= widest { check(runs) }
        }
        check([widest / 7, widest / 7, 3 * widest / 7, widest / 7, widest / 7])
        #expect(checked > 700_000 && passed > 1_000, "checked \(checked), passed \(passed)")
    }

    /// A row wider than `mayBeFinderWidest` skips the whole-number test (its products could
    /// overflow) and hands every five runs to the ratio test: a finder in such a row is found
    /// as in a narrow picture, at the same place and size.
    @Test func aFinderInARowTooWideForTheRunTestIsStillFound() {
        let module = 3, side = 7 * module, margin = 5, height = side + 2 * margin
        func picture(width: Int, finderAt left: Int) -> GrayImage {
            var pixels = [UInt8](repeating: 255, count: width * height)
            for y in 0..<side {
                for x in 0..<side {
                    let ring = min(min(x, y), min(side - 1 - x, side - 1 - y)) / module
                    if ring != 1 { pixels[(margin + y) * width + left + x] = 0 }
                }
            }
            return GrayImage(width: width, height: height, pixels: pixels)
        }
        let narrow = FinderSearch.patterns(in: picture(width: 100, finderAt: 40))
        let wideWidth = FinderSearch.mayBeFinderWidest + 101, offset = wideWidth - 100
        let wide = FinderSearch.patterns(in: picture(width: wideWidth, finderAt: offset + 40))
        #expect(narrow.count == 1, "\(narrow)")
        #expect(wide.map { FinderPattern(x: $0.x - Double(offset), y: $0.y, module: $0.module, hits: $0.hits, narrowModule: $0.narrowModule) } == narrow,
                "\(wide) against \(narrow)")
    }

    /// The fitted mesh the plain way: each control point searched on its own.
    static func plainFit(_ image: GrayImage, map: Homography, dimension: Int) -> ([Double], [Double]) {
        let step = MeshWarp.controlSpacing, side = (dimension + step - 1) / step + 1, window = step - 1
        let steps = MeshWarp.fittedSteps, delta = MeshWarp.fittedReach / Double(steps)
        var du = [Double](repeating: 0, count: side * side), dv = du
        image.pixels.withUnsafeBufferPointer { px in
            var values: [Double] = []
            for j in 0..<side {
                for i in 0..<side {
                    let cu = min(i * step, dimension - 1), cv = min(j * step, dimension - 1)
                    let columns = max(0, cu - window)...min(dimension - 1, cu + window)
                    let rows = max(0, cv - window)...min(dimension - 1, cv + window)
                    var best = -1.0
                    for sy in -steps...steps {
                        for sx in -steps...steps {
                            let ou = Double(sx) * delta, ov = Double(sy) * delta
                            let score = MeshWarp.clarity(px, image, .plane(map), rows: rows, columns: columns, ou, ov, &values)
                                * (1 - MeshWarp.fittedPull * (ou * ou + ov * ov))
                            if score > best { best = score; du[j * side + i] = ou; dv[j * side + i] = ov }
                        }
                    }
                }
            }
        }
        return (MeshWarp.smoothed(du, side), MeshWarp.smoothed(dv, side))
    }

    @Test func theFittedMeshIsTheOneEachPointSearchedAloneFinds() throws {
        let code = try F.image("blurred.jpg")
        let binary = code.adaptiveBinarized(radius: 20)
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: code).first)
        let dimension = triple.candidateDimensions[0]
        let map = try #require(GridSampler.guide(for: triple, dimension: dimension))
        // A flat picture: every offset samples as clearly (not at all), the first one wins.
        let flat = GrayImage(width: code.width, height: code.height, fill: 128)
        for image in [code, flat] {
            let mesh = MeshWarp.fitted(to: image, map: .plane(map), dimension: dimension)
            let plain = Self.plainFit(image, map: map, dimension: dimension)
            #expect(mesh.du == plain.0 && mesh.dv == plain.1)
        }
    }

    /// Sum over the (2r+1)² window round each pixel, edges repeated, of the value or of its
    /// square: the plain separable box sums the one-sweep statistics replaced.
    static func plainBoxSums(_ image: GrayImage, radius r: Int, squared: Bool) -> [Int] {
        let w = image.width, h = image.height
        let value = { (x: Int, y: Int) -> Int in
            let v = Int(image.pixels[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)])
            return squared ? v * v : v
        }
        let across = (0..<h).flatMap { y in (0..<w).map { x in (-r...r).reduce(0) { $0 + value(x + $1, y) } } }
        return (0..<h).flatMap { y in
            (0..<w).map { x in (-r...r).reduce(0) { $0 + across[min(max(y + $1, 0), h - 1) * w + x] } }
        }
    }

    /// Local means and spreads in one sweep are those of the plain box sums (the mean
    /// rounded, the mean of squares truncated, the spread from the two), edges repeated, on
    /// pictures smaller and larger than the window; the mean alone is the same mean.
    @Test(arguments: [(1, 1, 1), (3, 7, 4), (50, 40, 1), (50, 40, 20), (30, 12, 20), (120, 90, 9), (31, 5, 100)])
    func meansAndSpreadsInOneSweepAreTheBoxSums(width: Int, height: Int, radius: Int) {
        var seed = UInt64(width * 1000 + height * 10 + radius)
        let pixels = (0..<width * height).map { _ -> UInt8 in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        let area = (2 * radius + 1) * (2 * radius + 1)
        let mean = Self.plainBoxSums(image, radius: radius, squared: false).map { UInt8(min(255, ($0 + area / 2) / area)) }
        let squares = Self.plainBoxSums(image, radius: radius, squared: true).map { $0 / area }
        let deviation = zip(mean, squares).map { (m: UInt8, q: Int) -> UInt8 in
            let variance: Double = max(0, Double(q) - Double(m) * Double(m))
            return UInt8(min(255, variance.squareRoot()))
        }
        let stats = LocalStats(image, radius: radius)
        #expect(stats.mean == mean)
        #expect(stats.deviation == deviation)
        #expect(LocalStats.boxMean(image, radius: radius) == mean)
        #expect(stats.deviation.contains { $0 > 0 } || width * height == 1)
    }

    /// The adaptive threshold taken straight from the sweep is the one taken from the
    /// picture-sized means and deviations: dark where a pixel is more than the offset below
    /// its window's mean and the window's deviation reaches the least contrast, for least
    /// contrasts and offsets about and beyond the usual ones.
    @Test(arguments: [(50, 40, 1), (120, 90, 9), (31, 5, 100), (200, 150, 28)])
    func theThresholdFromTheSweepIsTheThresholdFromTheStatistics(width: Int, height: Int, radius: Int) {
        var seed = UInt64(width * 7 + height * 3 + radius)
        // Smooth regions, edges and noise: windows of every deviation, flat ones included.
        let pixels = (0..<width * height).map { i -> UInt8 in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let x = i % width, y = i / width
            let noise = Int(seed >> 61)
            return UInt8(max(0, min(255, (x / 9 + y / 7) % 2 == 0 ? 60 + noise : (x < width / 2 ? 200 : 120 + x % 5) + noise)))
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        let stats = LocalStats(image, radius: radius)
        for (offset, least) in [(3, 3), (0, 0), (-2, 1), (10, 20), (3, 300)] {
            let expected = pixels.indices.map { i -> UInt8 in
                Int(stats.deviation[i]) >= least && Int(pixels[i]) < Int(stats.mean[i]) - offset ? 0 : 255
            }
            let binary = image.adaptiveBinarized(radius: radius, offset: offset, minContrast: least)
            #expect(binary.pixels == expected, "offset \(offset), least contrast \(least)")
            #expect(least > 255 || binary.pixels.contains(0), "offset \(offset), least contrast \(least)")
        }
    }

    /// The block binarisation reads and writes whole 8×8 blocks eight pixels at a time: the
    /// same picture as a pixel at a time, on photos and on noise, flat and patchy, whose sides
    /// are and are not multiples of a block, and smaller than one.
    @Test func theBlockBinarisationEightPixelsAtATimeIsThePlainOne() throws {
        var seed: UInt64 = 20_261_127
        func patchy(_ width: Int, _ height: Int) -> GrayImage {
            var image = GrayImage(width: width, height: height, fill: 0)
            for y in 0..<height {
                for x in 0..<width {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    // Flat patches (light and dark) with a little grain, and noisy ones.
                    let patch = (x / 13 + y / 11) % 3
                    let grain = Int(seed >> 61)
                    image[x, y] = patch == 0 ? UInt8(220 + grain) : patch == 1 ? UInt8(20 + grain) : UInt8(truncatingIfNeeded: seed >> 56)
                }
            }
            return image
        }
        let pictures = [try F.image("steep.jpg"), try F.image("tilted.jpg"), try F.image("glowing-rings.jpg"), try F.image("dark-blurred.jpg"),
                        patchy(64, 64), patchy(101, 77), patchy(7, 5), patchy(8, 8), patchy(41, 200),
                        GrayImage(width: 40, height: 40, fill: 200)]
        for picture in pictures {
            #expect(picture.blockBinarized().pixels == Self.plainBlockBinarized(picture).pixels, "\(picture.width)x\(picture.height)")
        }
        // The midrange rule likewise, against its definition read straight off the pixels
        // (the fixtures' middles: the definition takes 1600 reads a block).
        for picture in pictures.map({ $0.width > 200 ? Self.middle(of: $0, side: 200) : $0 }) {
            #expect(picture.blockBinarized(.midrange).pixels == Self.plainMidrangeBinarized(picture).pixels, "\(picture.width)x\(picture.height)")
        }
    }

    /// The `side`×`side` pixels in the middle of `image`.
    static func middle(of image: GrayImage, side: Int) -> GrayImage {
        var out = GrayImage(width: side, height: side, fill: 0)
        let left = (image.width - side) / 2, top = (image.height - side) / 2
        for y in 0..<side { for x in 0..<side { out[x, y] = image[left + x, top + y] } }
        return out
    }

    /// `BlockThreshold.midrange` by its definition: each block's pixels dark where at most
    /// halfway between the darkest and lightest pixel of the 5×5 blocks round it (moved
    /// inwards at the picture's edges, as the mean's), none where those differ by less than
    /// `blockContrast`.
    static func plainMidrangeBinarized(_ image: GrayImage) -> GrayImage {
        let side = GrayImage.blockSide, reach = GrayImage.blockReach
        let columns = (image.width + side - 1) / side, rows = (image.height + side - 1) / side
        var output = GrayImage(width: image.width, height: image.height, fill: 255)
        for by in 0..<rows {
            let cy = min(max(by, reach), max(reach, rows - 1 - reach))
            for bx in 0..<columns {
                let cx = min(max(bx, reach), max(reach, columns - 1 - reach))
                var lo = 255, hi = 0
                for y in max(0, (cy - reach) * side)..<min(image.height, (cy + reach + 1) * side) {
                    for x in max(0, (cx - reach) * side)..<min(image.width, (cx + reach + 1) * side) {
                        lo = min(lo, Int(image[x, y]))
                        hi = max(hi, Int(image[x, y]))
                    }
                }
                guard hi - lo >= GrayImage.blockContrast else { continue }
                for y in (by * side)..<min(image.height, by * side + side) {
                    for x in (bx * side)..<min(image.width, bx * side + side) where Int(image[x, y]) <= (lo + hi) / 2 { output[x, y] = 0 }
                }
            }
        }
        return output
    }

    /// The block binarisation a pixel at a time (`GrayImage.blockBinarized` before it read
    /// eight at a time).
    static func plainBlockBinarized(_ image: GrayImage) -> GrayImage {
        let side = GrayImage.blockSide, width = image.width, height = image.height
        let columns = (width + side - 1) / side, rows = (height + side - 1) / side
        guard columns > 0, rows > 0 else { return image }
        var levels = [Int](repeating: 0, count: columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                var sum = 0, lo = 255, hi = 0, count = 0
                for y in (by * side)..<min(height, by * side + side) {
                    for x in (bx * side)..<min(width, bx * side + side) {
                        let v = Int(image[x, y])
                        sum += v
                        lo = min(lo, v)
                        hi = max(hi, v)
                        count += 1
                    }
                }
                var level = sum / count
                if hi - lo <= GrayImage.blockContrast {
                    level = lo / 2
                    if by > 0 && bx > 0 {
                        let neighbours = (levels[(by - 1) * columns + bx] + 2 * levels[by * columns + bx - 1]
                            + levels[(by - 1) * columns + bx - 1]) / 4
                        if lo < neighbours { level = neighbours }
                    }
                }
                levels[by * columns + bx] = level
            }
        }
        var output = GrayImage(width: width, height: height, fill: 255)
        let reach = GrayImage.blockReach, area = (2 * reach + 1) * (2 * reach + 1)
        for by in 0..<rows {
            let cy = min(max(by, reach), max(reach, rows - 1 - reach))
            for bx in 0..<columns {
                let cx = min(max(bx, reach), max(reach, columns - 1 - reach))
                var sum = 0
                for yy in (cy - reach)...(cy + reach) {
                    for xx in (cx - reach)...(cx + reach) {
                        sum += levels[min(max(yy, 0), rows - 1) * columns + min(max(xx, 0), columns - 1)]
                    }
                }
                let threshold = sum / area
                for y in (by * side)..<min(height, by * side + side) {
                    for x in (bx * side)..<min(width, bx * side + side) where Int(image[x, y]) <= threshold { output[x, y] = 0 }
                }
            }
        }
        return output
    }

    /// The size test samples only the three corners: each corner's module grid, thresholded
    /// against the modules round each, is the whole code's sampled at its modules' centres
    /// wherever the finder agreement looks (the finder and its separator) — on a real code
    /// through its map, and through maps at every size tried, of sides from 21 (whose
    /// corners overlap) up.
    @Test func theCornersAloneSampleAsTheWholeGridWhereTheFindersAre() throws {
        let code = try F.image("blurred.jpg")
        let binary = code.adaptiveBinarized(radius: 20)
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: code).first)
        let block = QRGeometry.finderSide + 1
        var compared = 0, agreeing = 0
        for dimension in [QRGeometry.smallestSide, 25] + triple.candidateDimensions {
            let map = try #require(GridSampler.guide(for: triple, dimension: dimension))
            let whole = GridSampler.localGrid(GridSampler.centres(code, map: map, dimension: dimension))
            let corners = GridSampler.cornerGrids(code, map: map, dimension: dimension)
            let agreement = FixedPatterns.finderAgreement(corners: corners)
            #expect(agreement == FixedPatterns.finderAgreement(whole), "\(dimension)")
            if agreement >= GridPass.leastFinderAgreement { agreeing += 1 }
            let reach = GridSampler.cornerReach, far = dimension - reach
            for (corner, (top, left)) in zip(corners, [(0, 0), (0, far), (far, 0)]) {
                #expect(corner.width == reach && corner.height == reach)
                for row in 0..<reach {
                    for column in 0..<reach {
                        let (r, c) = (top + row, left + column)
                        guard min(r, dimension - 1 - r) < block && min(c, dimension - 1 - c) < block else { continue }
                        #expect(corner.pixels[row * reach + column] == whole.pixels[r * dimension + c], "\(dimension): \(r), \(c)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 0)
        #expect(agreeing > 0, "the code's own size samples as a code")
    }

    /// The size test leaves the last corners unsampled only when they could not lift the
    /// share to the bar: whether a size passes is what the three corners sampled whole say,
    /// and so is the share of a size that passes. Through maps near a real code's (its sizes,
    /// shifted and turned a little) and through three made-up finders in noise.
    @Test func theSizeTestStopsSamplingOnlyWhenTheRestCouldNotLiftItToTheBar() throws {
        let code = try F.image("blurred.jpg")
        let binary = code.adaptiveBinarized(radius: 20)
        let found = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: code).first)
        var noise = GrayImage(width: 400, height: 400, fill: 0)
        var seed: UInt64 = 11
        for i in noise.pixels.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            noise.pixels[i] = (seed >> 63) == 0 ? 30 : 220
        }
        let made = FinderTriple(topLeft: (60, 60), topRight: (340, 60), bottomLeft: (60, 340), moduleAcross: 8, moduleDown: 8)
        var cases: [(FinderTriple, GrayImage)] = [(made, noise)]
        for shift in stride(from: -3.0, through: 3.0, by: 1.5) {
            for turn in [-0.6, 0.0, 0.6] {
                func moved(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) { (p.x + shift + turn * p.y / 40, p.y - turn * p.x / 40) }
                cases.append((FinderTriple(topLeft: moved(found.topLeft), topRight: moved(found.topRight), bottomLeft: moved(found.bottomLeft),
                                           moduleAcross: found.moduleAcross, moduleDown: found.moduleDown), code))
            }
        }
        var passed = 0, stopped = 0
        for (triple, image) in cases {
            for dimension in Set([QRGeometry.smallestSide, 25, 29, 33] + found.candidateDimensions).sorted() {
                let map = try #require(GridSampler.guide(for: triple, dimension: dimension))
                let whole = FixedPatterns.finderAgreement(corners: GridSampler.cornerGrids(image, map: map, dimension: dimension))
                let quick = GridPass.cornerAgreement(triple, in: image, dimension: dimension)
                #expect((quick >= GridPass.leastFinderAgreement) == (whole >= GridPass.leastFinderAgreement), "\(dimension)")
                #expect(quick >= whole, "\(dimension)")
                if whole >= GridPass.leastFinderAgreement {
                    #expect(quick == whole, "\(dimension)")
                    passed += 1
                }
                if quick != whole { stopped += 1 }
            }
        }
        #expect(passed > 0 && stopped > 0, "passed \(passed), stopped early \(stopped)")
    }

    /// A module's grey as a byte is `rounded()`'s, clamped: at halves, next to them, beyond
    /// either end (and for no number at all), and at every hundredth in between.
    @Test func aModulesGreyIsItsMeanRounded() {
        var means: [Double] = [-1, -0.5, -0.0, 0, 255, 255.49, 255.5, 256, 1e9, .infinity, -.infinity, .nan]
        for whole in 0...255 {
            let half = Double(whole) + 0.5
            means += [half, half.nextUp, half.nextDown, Double(whole).nextUp, Double(whole).nextDown]
            means += (0..<100).map { Double(whole) + Double($0) / 100 }
        }
        for mean in means {
            #expect(GridSampler.grey(mean) == UInt8(max(0, min(255, mean.rounded()))), "\(mean)")
        }
    }

    @Test func zbarIsNotAskedAboutCornersThatDoNotSampleAsFinders() throws {
        // Three "finders" in noise: the triple's first guesses sample about half the finder
        // modules right, so no size gets as far as zbar (the trial is never asked whether it
        // is over, which it is before every zbar scan).
        var image = GrayImage(width: 400, height: 400, fill: 0)
        var seed: UInt64 = 7
        for i in image.pixels.indices {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            image.pixels[i] = (seed >> 63) == 0 ? 30 : 220
        }
        let triple = FinderTriple(topLeft: (60, 60), topRight: (340, 60), bottomLeft: (60, 340),
                                  moduleAcross: 8, moduleDown: 8)
        var asked = 0
        let trial = Trial(scanner: ZBarScanner(), pass: .grid, isOver: { asked += 1; return false }, report: { _ in })
        #expect(!GridPass.decode(triple, in: image, trial))
        #expect(asked == 0)
        // A real code's triple gets there.
        let code = try F.image("clean.png")
        let binary = code.otsuBinarized()
        let real = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: code).first)
        #expect(GridPass.decode(real, in: code, trial))
        #expect(asked > 0)
    }
}

/// The size test's reference: the three corners sampled whole, with no early stop
/// (production takes them one at a time, `GridPass.cornerAgreement`).
extension GridSampler {
    static func cornerGrids(_ image: GrayImage, map: Homography, dimension: Int) -> [GrayImage] {
        QRGeometry.FinderCorner.allCases.map { cornerGrid(image, map: map, dimension: dimension, $0) }
    }

    /// The whole code sampled as the size test samples its corners: each module's grey read
    /// at its centre (`sample` takes the mean of nine points for zbar's grid).
    static func centres(_ image: GrayImage, map: Homography, dimension: Int) -> GrayImage {
        var values = [UInt8](repeating: 0, count: dimension * dimension)
        image.pixels.withUnsafeBufferPointer { px in
            for row in 0..<dimension {
                for column in 0..<dimension {
                    let p = map.map(Double(column) + 0.5, Double(row) + 0.5)
                    values[row * dimension + column] = grey(bilinear(px, image.width, image.height, p.x, p.y))
                }
            }
        }
        return GrayImage(width: dimension, height: dimension, pixels: values)
    }
}

extension FixedPatterns {
    /// The share of agreeing modules over the three corner blocks of `GridSampler.cornerGrids`.
    static func finderAgreement(corners: [GrayImage]) -> Double {
        guard corners.count == QRGeometry.finders else { return 0 }
        var agree = 0
        for (block, corner) in zip(corners, QRGeometry.FinderCorner.allCases) {
            guard let count = agreeing(block, at: corner) else { return 0 }
            agree += count
        }
        return Double(agree) / Double(cornerModules * QRGeometry.finders)
    }
}
