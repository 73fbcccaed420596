import LommeImages
import Synchronization

/// The grid-sampler passes: finder patterns in the binarised working view (or, for the fine passes,
/// the whole full-resolution picture), grouped into triples.
enum GridPass {
    /// Pixels a module should have in the picture sampled from (else a finer view is sampled).
    static let minimumModule = 3.0
    /// The share of finder modules a triple's corners must sample right at a size before zbar tries it (chance: ½).
    static let leastFinderAgreement = 0.7
    /// The bent maps (`MeshWarp`) are tried at a size only when its map samples the corners this well.
    static let leastBendableAgreement = 0.9
    /// The alignment-pattern grid (`AlignmentGrid`) is tried at a size whose map samples the corners this well…
    static let leastGriddedAgreement = 0.8
    /// …and only at the first this many sizes whose corners sample as finders (the likeliest first).
    static let griddedSizes = 1
    /// The bent maps in the order tried, each the costliest step of a triple that does not read.
    static let meshes: [MeshWarp.Fit] = [.grown, .fitted]

    /// The grid pass on the working view.
    static func search(_ s: ScanSubject, _ trial: Trial, inverted: Bool = false) {
        let cursor = s.memoValue("cursor \(inverted)") { CandidateCursor() } ?? CandidateCursor()
        forEachCandidate(s, inverted: inverted, cursor: cursor, until: { trial.over }) { candidate in
            _ = decode(candidate.triple, in: candidate.source, trial, corners: candidate.corners, toWorking: 1 / candidate.factor)
        }
    }

    /// `locates` asks the first searches only, the two windows' own patterns.
    static let locatingSearches = 2

    /// Whether the working view shows a code, dark on light or light on dark.
    static func locates(_ s: ScanSubject, inverted: Bool) -> Bool {
        s.memoValue("located \(inverted)") {
            var located = false
            forEachCandidate(s, inverted: inverted, searches: locatingSearches, until: { located }) { candidate in
                located = candidate.triple.candidateDimensions.contains { candidate.corners($0) >= leastFinderAgreement }
            }
            return located
        } ?? false
    }

    /// The grid pass's finder-pattern searches, in order, each a binarised working view and its patterns.
    static func searches(_ s: ScanSubject, inverted: Bool) -> [() -> (GrayImage, [FinderPattern])] {
        guard let image = Pass.working(s) else { return [] }
        let grey = inverted ? Pass.negated(s, "working", image) : image
        // A wide window keeps a finder's 3-module centre dark.
        var windows: [Int] = [], binaries: [GrayImage] = [], found: [[FinderPattern]] = []
        for divisor in [Pass.wideWindow, Pass.narrowWindow] {
            guard let binary = Pass.adaptive(s, divisor: divisor) else { continue }
            windows.append(divisor)
            binaries.append(inverted ? Pass.negated(s, "adaptive\(divisor)", binary) : binary)
            found.append(Pass.workingPatterns(s, divisor: divisor, inverted: inverted))
        }
        var searches: [() -> (GrayImage, [FinderPattern])] = zip(binaries, found).map { pair in { pair } }
        for n in found.indices {
            var patterns = found[n]
            for other in found.indices where other != n {
                patterns += found[other].filter { p in
                    !patterns.contains {
                        abs($0.x - p.x) <= $0.module * FinderSearch.samePlace && abs($0.y - p.y) <= $0.module * FinderSearch.samePlace
                    }
                }
            }
            if patterns.count > found[n].count { searches.append { [binary = binaries[n]] in (binary, patterns) } }
        }
        // Each window's patterns under the steep bound, when it admits more.
        for (n, divisor) in windows.enumerated() {
            let steep = Pass.workingSteepPatterns(s, divisor: divisor, inverted: inverted)
            if steep.count > found[n].count { searches.append { [binary = binaries[n]] in (binary, steep) } }
        }
        // Last, the view binarised block by block (zxing's HybridBinarizer).
        searches.append {
            guard let blocks = Pass.workingBlocks(s) else { return (grey, []) }
            return (inverted ? Pass.negated(s, "workingBlocks", blocks) : blocks, Pass.workingBlockPatterns(s, inverted: inverted))
        }
        // And its patterns under the steep bound, when it admits more.
        searches.append {
            let steep = Pass.workingBlockSteepPatterns(s, inverted: inverted)
            guard steep.count > Pass.workingBlockPatterns(s, inverted: inverted).count,
                  let blocks = Pass.workingBlocks(s) else { return (grey, []) }
            return (inverted ? Pass.negated(s, "workingBlocks", blocks) : blocks, steep)
        }
        // For light-on-dark codes, last of all the negated view binarised block by block
        // (`Pass.workingNegatedBlocks`: not the same as the block binarisation negated).
        if inverted {
            searches.append {
                guard let blocks = Pass.workingNegatedBlocks(s) else { return (grey, []) }
                return (blocks, Pass.workingNegatedBlockPatterns(s))
            }
        }
        return searches
    }

    /// The triples of search number `index` (`searches`), made once per picture.
    static func triples(_ s: ScanSubject, inverted: Bool, search index: Int,
                        _ search: () -> (GrayImage, [FinderPattern])) -> [FinderTriple] {
        s.memoValue("triples \(inverted) \(index)") {
            let (binary, patterns) = search()
            guard patterns.count >= QRGeometry.finders, let image = Pass.working(s) else { return [] }
            let grey = inverted ? Pass.negated(s, "working", image) : image
            return FinderSearch.triples(from: patterns, in: binary, grey: grey)
        } ?? []
    }

    /// A triple as the grid pass tries it.
    struct Candidate {
        let triple: FinderTriple
        let source: GrayImage
        /// The source's pixels per working view pixel.
        var factor = 1.0
        let corners: (Int) -> Double
    }

    /// How well the corners of a `dimension`-module code at `triple` sample as finder patterns
    /// (`FixedPatterns.finderAgreement`) through the first guess at its map.
    static func cornerAgreement(_ triple: FinderTriple, in source: GrayImage, dimension: Int) -> Double {
        guard let guide = GridSampler.guide(for: triple, dimension: dimension) else { return 0 }
        let all = Double(FixedPatterns.cornerModules * QRGeometry.finders)
        var agreeing = 0, left = QRGeometry.finders
        for corner in QRGeometry.FinderCorner.allCases {
            let block = GridSampler.cornerGrid(source, map: guide, dimension: dimension, corner)
            guard let agree = FixedPatterns.agreeing(block, at: corner) else { return 0 }
            agreeing += agree
            left -= 1
            let most = Double(agreeing + left * FixedPatterns.cornerModules) / all
            if most < leastFinderAgreement { return most }
        }
        return Double(agreeing) / all
    }

    /// Hands `body` each triple of the searches, each place once, with the picture to sample it from.
    static func forEachCandidate(_ s: ScanSubject, inverted: Bool, searches limit: Int = .max,
                                 cursor: CandidateCursor = CandidateCursor(), until over: () -> Bool,
                                 _ body: (Candidate) -> Void) {
        guard let image = Pass.working(s) else { return }
        let grey = inverted ? Pass.negated(s, "working", image) : image
        let toFull = Double(s.fullWidth) / Double(image.width)
        let searches = searches(s, inverted: inverted)
        while let (triple, number) = cursor.next(searches: min(limit, searches.count), until: over, triples: { index in
            triples(s, inverted: inverted, search: index, searches[index])
        }) {
            // Sample from the coarsest view where a module is still wide enough.
            let module = min(triple.moduleAcross, triple.moduleDown)
            var source = grey, factor = 1.0
            if module < minimumModule, s.fullLongSide > max(image.width, image.height),
               let (view, toView) = s.view(forModule: module * toFull, minimum: minimumModule) {
                source = inverted ? Pass.negated(s, "view\(view.width)x\(view.height)", view) : view
                factor = toView * toFull
            }
            let scaled = FinderTriple(
                topLeft: (triple.topLeft.x * factor, triple.topLeft.y * factor),
                topRight: (triple.topRight.x * factor, triple.topRight.y * factor),
                bottomLeft: (triple.bottomLeft.x * factor, triple.bottomLeft.y * factor),
                moduleAcross: triple.moduleAcross * factor, moduleDown: triple.moduleDown * factor,
                timingDimension: triple.timingDimension, finderModules: triple.finderModules?.map { $0 * factor })
            let key = "corners \(inverted) \(number)"
            body(Candidate(triple: scaled, source: source, factor: factor) { dimension in
                s.memoValue("\(key) \(dimension)") { cornerAgreement(scaled, in: source, dimension: dimension) } ?? 0
            })
        }
    }

    /// The fine search keeps finder patterns whose modules would be under this many pixels in the working view.
    static let fineModuleLimit = 4.0
    /// The fine search runs on pictures at least this many times the working view's size…
    static let fineFrom = 2.0
    /// …on a view of at most this long side (a 16 MP phone photo whole; a 48 or 100 MP one
    /// decoded at half or a quarter of its size, as libjpeg does cheaply).
    static let fineLongestSide = 4608

    /// The grid sampler on the whole picture at full resolution, binarised block by block.
    static func searchFine(_ s: ScanSubject, _ trial: Trial, inverted: Bool = false) {
        let patterns = Pass.finePatterns(s, inverted: inverted)
        guard patterns.count >= QRGeometry.finders, let binary = Pass.fineBinary(s, inverted: inverted),
              let image = Pass.fineView(s, inverted: inverted) else { return }
        for triple in FinderSearch.triples(from: patterns, in: binary, grey: image) {
            if trial.over { return }
            if decode(triple, in: image, trial) { continue }
        }
    }

    /// Tries the candidate sizes and maps for one triple; true once zbar decodes one. With
    /// `toWorking` (the working view's pixels per source pixel), a code read is outlined there
    /// (`Settle`).
    static func decode(_ triple: FinderTriple, in source: GrayImage, _ trial: Trial,
                       corners: ((Int) -> Double)? = nil, toWorking: Double? = nil) -> Bool {
        let corners = corners ?? { cornerAgreement(triple, in: source, dimension: $0) }
        // Every size through its best map first, and for a code of version 7 up whose corners
        // sample as finder patterns, through a map per cell of its alignment-pattern grid.
        var bendable: [(ModuleMap, Int)] = []
        // A code of version 7 up says its side itself.
        var dimensions = triple.candidateDimensions
        if dimensions.contains(where: { corners($0) >= leastFinderAgreement }),
           let said = VersionInfo.dimension(for: triple, near: dimensions, in: source) {
            dimensions.removeAll { $0 == said }
            dimensions.insert(said, at: 0)
        }
        var sampled = 0
        for dimension in dimensions {
            guard let guide = GridSampler.guide(for: triple, dimension: dimension) else { continue }
            // Corners that do not sample as finder patterns.
            guard corners(dimension) >= leastFinderAgreement else { continue }
            // Past the deadline nothing more is sampled, aligned or scanned (the corners'
            // first guess above is a few dozen samples).
            if trial.over { return false }
            sampled += 1
            let map = GridSampler.map(guided: guide, for: triple, dimension: dimension, in: source)
            let grids = GridSampler.binarizations(GridSampler.sample(source, map: map, dimension: dimension))
            // The code's four corners, in module coordinates the code's outer edge.
            let outline = toWorking.map { scale in
                [(0, 0), (dimension, 0), (0, dimension), (dimension, dimension)].map { corner in
                    let point = map.map(Double(corner.0), Double(corner.1))
                    return SIMD2(point.x, point.y) * scale
                }
            }
            if attempt(grids, trial, outline: outline) { return true }
            if trial.over { return false }
            let agreement = FixedPatterns.finderAgreement(grids[0])
            // A code of version 7 up: through its grid of alignment patterns, a map per cell.
            if griddable(size: sampled, agreement: agreement), let grid = AlignmentGrid.located(in: source, map: map, dimension: dimension) {
                let cells = GridSampler.binarizations(GridSampler.sample(source, dimension: dimension, point: grid.point))
                if attempt(cells, trial, outline: outline) { return true }
                if FixedPatterns.finderAgreement(cells[0]) >= leastBendableAgreement { bendable.append((.grid(grid), dimension)) }
            }
            if agreement >= leastBendableAgreement { bendable.append((.plane(map), dimension)) }
        }
        for (map, dimension) in bent(bendable) {
            for fit in meshes {
                if trial.over { return false }
                let mesh = fit.mesh(to: source, map: map, dimension: dimension)
                if attempt(GridSampler.binarizations(GridSampler.sample(source, dimension: dimension, point: mesh.point)), trial) { return true }
            }
        }
        return false
    }

    /// Whether to locate the alignment grid at the `size`-th size whose corners passed (from 1), its map `agreement` right.
    static func griddable(size: Int, agreement: Double) -> Bool {
        size <= griddedSizes && agreement >= leastGriddedAgreement
    }

    /// The maps of `bendable` (in the order their sizes were tried) that the bent maps start from.
    static func bent(_ bendable: [(ModuleMap, Int)]) -> [(ModuleMap, Int)] {
        bendable.filter { $0.1 == bendable.first?.1 }
    }

    /// Hands each module grid to zbar, redrawn clean; true once one decodes.
    static func attempt(_ grids: [GrayImage], _ trial: Trial, outline: [SIMD2<Double>]? = nil) -> Bool {
        for grid in grids {
            if trial.over { return false }
            if trial.scan(GridSampler.render(grid), outline: outline) { return true }
        }
        return false
    }
}

/// Where the grid pass is in its searches' triples (`GridPass.forEachCandidate`).
final class CandidateCursor: Sendable {
    private struct Place {
        var search = 0
        var triple = 0
        var handed: [FinderTriple] = []
    }
    private let place = Mutex(Place())

    /// The next triple of a place not handed out before, and its number from 1 (the key of its corner samples).
    func next(searches count: Int, until over: () -> Bool, triples: (Int) -> [FinderTriple]) -> (FinderTriple, Int)? {
        var search = place.withLock { $0.search }
        while search < count {
            if over() { return nil }
            let made = triples(search)
            let taken = place.withLock { place -> (FinderTriple, Int)? in
                // Another thread may have finished this search meanwhile: go on from where it is.
                guard place.search == search else { return nil }
                while place.triple < made.count {
                    let triple = made[place.triple]
                    place.triple += 1
                    if place.handed.contains(where: { $0.samePlace(as: triple) }) { continue }
                    place.handed.append(triple)
                    return (triple, place.handed.count)
                }
                place.search += 1
                place.triple = 0
                return nil
            }
            if let taken { return taken }
            search = place.withLock { $0.search }
        }
        return nil
    }
}

extension FinderTriple {
    /// Whether every corner of `other` is near the same corner of this one (within
    /// `FinderSearch.samePlace` of `other`'s modules): one place, tried once.
    func samePlace(as other: FinderTriple) -> Bool {
        distance(topLeft, other.topLeft) < other.moduleAcross * FinderSearch.samePlace
            && distance(topRight, other.topRight) < other.moduleAcross * FinderSearch.samePlace
            && distance(bottomLeft, other.bottomLeft) < other.moduleDown * FinderSearch.samePlace
    }
}
