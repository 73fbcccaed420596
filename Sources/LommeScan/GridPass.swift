import LommeImages
import Synchronization

/// The grid-sampler passes: finder patterns in the binarised working view (or, for the
/// fine passes, the whole full-resolution picture), grouped into triples; for each, the
/// code re-drawn clean at the likeliest sizes through the likeliest maps (a perspective map
/// through the finders and the alignment pattern, a map per cell of the alignment-pattern
/// grid, meshes bent to fit), each handed to zbar until one decodes.
enum GridPass {
    /// Pixels a module should have in the picture sampled from (a finer view when the
    /// working view is coarser than this).
    static let minimumModule = 3.0
    /// A triple's corners must sample at least this share of the finder patterns' modules
    /// right (`FixedPatterns.finderAgreement`) through the first guess at a size before zbar
    /// is asked to read it at that size: every code read on the corpus and the first
    /// generator's sets through the first map sampled 0.9 or more (one at 0.5, which the
    /// plain pass reads), 95 % of the sizes tried there and 99 % of those in 12 MP photos
    /// without a code under 0.7 (most 0.4–0.65, about chance).
    static let leastFinderAgreement = 0.7
    /// The bent maps (`MeshWarp`) are tried at a size only when its map samples the corners
    /// this well: every code they read there sampled 0.94 or more, and they are the grid
    /// sampler's costliest step.
    static let leastBendableAgreement = 0.9
    /// The alignment-pattern grid (`AlignmentGrid`, versions 7 up) is tried at a size whose
    /// map samples the corners this well: a bent screen in the `hard` set that only the grid
    /// reads sampled 0.87 through the flat map; at 0.8 and 0.85 the same codes read, at 0.9
    /// three fewer. It costs a few milliseconds and one or two zbar calls.
    static let leastGriddedAgreement = 0.8
    /// …and only at the first this many sizes whose corners sample as finder patterns (in
    /// the order tried, the likeliest first): on the bench every code the grid read, and
    /// every code a flat map read but one (`hard/19`, at the second), was read at the first
    /// such size. At the sizes after it the grid read nothing, and locating it there cost
    /// `tilted` 4-6 % of its time (`hard` and `tilted-b` 1-3 %, the other sets level).
    static let griddedSizes = 1
    /// The bent maps in the order tried, each the costliest step of a triple that does not
    /// read: the grown mesh first. On the tune halves it read four photos and the first
    /// readable frames of a dark-mode screen clip, the fitted one a photo and a later frame;
    /// the fitted one first made the negated grid pass on those frames 49 ms against 36
    /// (`screen-18`'s frame 10, alone), the same codes read.
    static let meshes: [MeshWarp.Fit] = [.grown, .fitted]

    /// The grid pass on the working view. Its triples are handed out by a cursor kept with
    /// the picture, so that a worker with no pass left to take can join the one running it
    /// (`Pass.shared`): the two decode the triples in turn, each once, in the searches' order.
    static func search(_ s: ScanSubject, _ trial: Trial, inverted: Bool = false) {
        let cursor = s.memoValue("cursor \(inverted)") { CandidateCursor() } ?? CandidateCursor()
        forEachCandidate(s, inverted: inverted, cursor: cursor, until: { trial.over }) { candidate in
            _ = decode(candidate.triple, in: candidate.source, trial, corners: candidate.corners)
        }
    }

    /// `locates` asks the first searches only, the two windows' own patterns: on the bench
    /// every picture and clip frame a pass gated by it reads, they locate; asking the merged,
    /// steep and block searches too read nothing more and cost 1-11 % more on every set
    /// (`tilted`'s halves 0.39 and 0.95 s against 0.35 and 0.92 s).
    static let locatingSearches = 2

    /// Whether the working view shows a code, dark on light or light on dark: three finder
    /// patterns whose corners sample as a code's (`leastFinderAgreement`) through the first
    /// guess at one of their candidate sizes — what the grid pass asks before it samples a
    /// code whole. Made once per picture and polarity, and the triples and corner samples it
    /// makes are the grid pass's own (`forEachCandidate`), so a picture the grid pass searches
    /// anyway pays for them once.
    static func locates(_ s: ScanSubject, inverted: Bool) -> Bool {
        s.memoValue("located \(inverted)") {
            var located = false
            forEachCandidate(s, inverted: inverted, searches: locatingSearches, until: { located }) { candidate in
                located = candidate.triple.candidateDimensions.contains { candidate.corners($0) >= leastFinderAgreement }
            }
            return located
        } ?? false
    }

    /// The finder-pattern searches of the working view the grid pass takes its triples from,
    /// in order, each a binarised view and the patterns found in it; a search is made when it
    /// is called.
    static func searches(_ s: ScanSubject, inverted: Bool) -> [() -> (GrayImage, [FinderPattern])] {
        guard let image = Pass.working(s) else { return [] }
        let grey = inverted ? Pass.negated(s, "working", image) : image
        // A wide window keeps a finder's 3-module centre dark; a narrow one copes with more
        // uneven light. Triples from both, the wide one's first, each place tried once; then
        // from each with the patterns only the other found added: blur and glare can hide
        // one finder from one window and another from the other.
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
        // Each window's patterns under the steep bound, when it admits more: a big code seen
        // from low down has finders half as tall as wide.
        for (n, divisor) in windows.enumerated() {
            let steep = Pass.workingSteepPatterns(s, divisor: divisor, inverted: inverted)
            if steep.count > found[n].count { searches.append { [binary = binaries[n]] in (binary, steep) } }
        }
        // Last, the view binarised block by block (zxing's HybridBinarizer): a blurred
        // screen's light-on-dark glow fills the finders' dark ring under both windows, not
        // block by block; and a heavily blurred dark code's finder in a corner the light
        // falls off from (`hard/37`, blur σ 3.2) is lost to both windows and kept here. The
        // negated pass makes the same search (both polarities are found at once).
        searches.append {
            guard let blocks = Pass.workingBlocks(s) else { return (grey, []) }
            return (inverted ? Pass.negated(s, "workingBlocks", blocks) : blocks, Pass.workingBlockPatterns(s, inverted: inverted))
        }
        // And its patterns under the steep bound, when it admits more: a terminal rendering
        // on a dark screen with cells twice as tall as wide, blurred, keeps a finder's rings
        // only block by block (`tall-cells.jpg`, from the tune half of `photos-b`; it also
        // reads `tilted/19` (tune) and `tilted/13` (check, not tuned on), dark codes seen steeply).
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

    /// A triple as the grid pass tries it: scaled to the picture it is sampled from, and how
    /// well its corners sample as finder patterns at a size (`cornerAgreement`), found once
    /// per picture: the passes asking whether a code is located (`locates`) and the grid pass
    /// itself share them.
    struct Candidate {
        let triple: FinderTriple
        let source: GrayImage
        let corners: (Int) -> Double
    }

    /// How well the corners of a `dimension`-module code at `triple` sample as finder
    /// patterns (`FixedPatterns.finderAgreement`) through the first guess at its map — or,
    /// when that is under `leastFinderAgreement`, possibly only the most it could be, still
    /// under it: the corners are sampled one at a time, and once those sampled agree too
    /// little for the rest to lift the share to the bar, the rest are left. On a photo
    /// nobody reads (`tilted`) that was three sizes in four, after two corners.
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

    /// Hands `body` each triple of the searches in turn, a place once (a triple whose corners
    /// are all near those of one handed over before is left out), with the picture to sample
    /// it from: the working view, or a finer view where its modules are narrower than
    /// `minimumModule` (the triple's coordinates scaled to it), from the first `limit`
    /// searches, until `over` says to stop. A later search is made only when the earlier
    /// ones' triples did not end it: the block binarisation costs nothing on a picture the
    /// windows' patterns read. The triples come from `cursor`: a cursor shared by two threads
    /// hands each triple to one of them.
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
            body(Candidate(triple: scaled, source: source) { dimension in
                s.memoValue("\(key) \(dimension)") { cornerAgreement(scaled, in: source, dimension: dimension) } ?? 0
            })
        }
    }

    /// The fine search keeps the finder patterns whose modules would be under this many
    /// pixels in the working view: codes small in a big photo, which the working view blurs
    /// into a few pixels (larger ones the working view's own search finds). A finder is
    /// judged by its narrow side (`FinderPattern.narrowest`): terminal cells twice as tall as
    /// wide blur across at the width of the cell (`photos-b/20`, a 12 MP photo whose mean
    /// module in the working view is 4.2 pixels and narrow one 2.9).
    static let fineModuleLimit = 4.0
    /// The fine search runs on pictures at least this many times the working view's size…
    static let fineFrom = 2.0
    /// …on a view of at most this long side (a 16 MP phone photo whole; a 48 or 100 MP one
    /// decoded at half or a quarter of its size, as libjpeg does cheaply).
    static let fineLongestSide = 4608

    /// The grid sampler on the whole picture at full resolution, binarised block by block:
    /// for codes a fraction of a 12 MP photo's size, steeply tilted, whose modules are a
    /// pixel or two in the working view.
    static func searchFine(_ s: ScanSubject, _ trial: Trial, inverted: Bool = false) {
        let patterns = Pass.finePatterns(s, inverted: inverted)
        guard patterns.count >= QRGeometry.finders, let binary = Pass.fineBinary(s, inverted: inverted),
              let image = Pass.fineView(s, inverted: inverted) else { return }
        for triple in FinderSearch.triples(from: patterns, in: binary, grey: image) {
            if trial.over { return }
            if decode(triple, in: image, trial) { continue }
        }
    }

    /// Tries the candidate sizes and maps for one triple; true once zbar decodes one.
    /// `corners` tells how well its corners sample at a size (`cornerAgreement`).
    static func decode(_ triple: FinderTriple, in source: GrayImage, _ trial: Trial,
                       corners: ((Int) -> Double)? = nil) -> Bool {
        let corners = corners ?? { cornerAgreement(triple, in: source, dimension: $0) }
        // Every size through its best map first, and for a code of version 7 up whose corners
        // sample as finder patterns, through a map per cell of its alignment-pattern grid; then,
        // for the first size whose maps sample the corners well (`bent`), those maps bent to
        // fit the picture locally (on a bent or steeply tilted code the timing-pattern count and
        // the finder distances often both miss), each as a mesh grown outward from the finders
        // and as one smoothed fit.
        var bendable: [(ModuleMap, Int)] = []
        // A code of version 7 up says its side itself; read first, it is tried first (when the
        // corners sample as finder patterns at a size estimated: else the triple is no code's).
        var dimensions = triple.candidateDimensions
        if dimensions.contains(where: { corners($0) >= leastFinderAgreement }),
           let said = VersionInfo.dimension(for: triple, near: dimensions, in: source) {
            dimensions.removeAll { $0 == said }
            dimensions.insert(said, at: 0)
        }
        var sampled = 0
        for dimension in dimensions {
            guard let guide = GridSampler.guide(for: triple, dimension: dimension) else { continue }
            // Corners that do not sample as finder patterns: no code of this size is there
            // (or none at all). Judged through the first guess, before the alignment search.
            guard corners(dimension) >= leastFinderAgreement else { continue }
            // Past the deadline nothing more is sampled, aligned or scanned (the corners'
            // first guess above is a few dozen samples).
            if trial.over { return false }
            sampled += 1
            let map = GridSampler.map(guided: guide, for: triple, dimension: dimension, in: source)
            let grids = GridSampler.binarizations(GridSampler.sample(source, map: map, dimension: dimension))
            if attempt(grids, trial) { return true }
            if trial.over { return false }
            let agreement = FixedPatterns.finderAgreement(grids[0])
            // A code of version 7 up: through its grid of alignment patterns, a map per cell.
            if griddable(size: sampled, agreement: agreement), let grid = AlignmentGrid.located(in: source, map: map, dimension: dimension) {
                let cells = GridSampler.binarizations(GridSampler.sample(source, dimension: dimension, point: grid.point))
                if attempt(cells, trial) { return true }
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

    /// Whether the alignment-pattern grid is located at the `size`-th size tried whose corners
    /// sampled as finder patterns (from 1), whose flat map samples them `agreement` right.
    static func griddable(size: Int, agreement: Double) -> Bool {
        size <= griddedSizes && agreement >= leastGriddedAgreement
    }

    /// The maps of `bendable` (in the order their sizes were tried) that the bent maps start
    /// from: the first size's, the likeliest that sampled well enough to bend (the size the
    /// version information says, else the timing pattern's count, else the finders'
    /// distances). On the bench every code a bent map read was read at that size, mostly
    /// through the first map; the sizes after it are a module or two off, with corners that
    /// sample nearly as well. Bending them read nothing, and at several milliseconds a mesh
    /// they were much of what a steeply seen code nobody reads costs (`tilted` 0.96, `hard`
    /// 0.97, `tilted-b` 0.91 of the time, every picture read as before).
    static func bent(_ bendable: [(ModuleMap, Int)]) -> [(ModuleMap, Int)] {
        bendable.filter { $0.1 == bendable.first?.1 }
    }

    /// Hands each module grid to zbar, redrawn clean; true once one decodes.
    static func attempt(_ grids: [GrayImage], _ trial: Trial) -> Bool {
        for grid in grids {
            if trial.over { return false }
            if trial.scan(GridSampler.render(grid)) { return true }
        }
        return false
    }
}

/// Where the grid pass is in its searches' triples (`GridPass.forEachCandidate`): the next
/// search and triple, and the places handed out so far. Shared by the threads running one
/// grid pass, it hands each triple to one of them, in order; the triples of a search are
/// made outside its lock (memoised in the picture: a thread asking while the other makes
/// them waits for them, or makes a version ahead meanwhile).
final class CandidateCursor: Sendable {
    private struct Place {
        var search = 0
        var triple = 0
        var handed: [FinderTriple] = []
    }
    private let place = Mutex(Place())

    /// The next triple of a place not handed out before, and how many were handed out with it
    /// (its number, from 1: the key its corner samples are kept under); nil once the first
    /// `count` searches are done, or `over` says to stop before a search is made.
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
