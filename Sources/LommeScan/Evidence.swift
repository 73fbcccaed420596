import LommeImages

/// What a pass needs to have seen in the picture to have a chance: zbar reads a QR code
/// only through its finder patterns, so a pass whose view shows none is skipped. A picture
/// with no code then ends after the passes that run whatever (the first two) and the
/// finder searches, instead of running every pass to the deadline.
enum Evidence: Sendable {
    /// Runs whatever was seen.
    case none
    /// Finder patterns in the working view, in either binarisation the grid pass uses:
    /// dark on light, or light on dark for the passes that negate the picture.
    case finders
    case lightFinders
    /// Light-on-dark finder patterns as `lightFinders`, and the one crossed by the most rows
    /// crossed by at least as many as any dark-on-light one (`Pass.mostSightings`): a
    /// light code's own finders are what a picture of it shows most clearly, while a dark
    /// code's data area shows light look-alikes a row or two each beside its own dark finders.
    /// For the sharpened negated view, which reads blurred dark-mode screens and cost an
    /// unread photo of a dark code a sixth of its thread time.
    case lightFindersLead
    /// The same in the full-resolution picture: for the passes that look at a 12 MP photo
    /// closer than the working view.
    case fineFinders
    case fineLightFinders
    /// A light-on-dark code located in the working view: three light-on-dark finder patterns
    /// whose corners sample as a code's (`GridPass.locates`). For the negating passes that
    /// read nothing on the bench the negated grid pass did not locate, and on a photo of a
    /// dark code (whose data area shows hundreds of light "finders") nobody reads cost a
    /// fifth of its time. (The same for dark codes, asked of local normalisation, lost
    /// frames of screens it reads and our search does not locate.)
    case lightCode
}

extension Pass {
    // MARK: Tuning: how much must have been seen

    /// Finder patterns (in any one search of the view) a gated pass needs. One: a code whose
    /// finders blur or low contrast hides from our search may still be read by zbar through
    /// another filter (the `uneven` fixture: asking for three corners of one code lost it),
    /// and asking for more saved no measurable time on photos without a code.
    static let leastFinders = 1
    /// Light-on-dark finder patterns the negating passes need: a code's three corners. A
    /// camera's noise shows a light "finder" or two (0-2 in the blank frames of bench/camera's
    /// screen clips), and the four negating passes were most of the work such a frame took;
    /// with three, the corpus, the photo sets and the fixtures read every code they read with one.
    static let leastLightFinders = QRGeometry.finders
    /// Rows that must cross a finder pattern of the negated view's block binarisation
    /// (`workingNegatedBlockPatterns`). There the paper round a dark code, negated, is dark
    /// and flat but for its grain, which the binarisation turns to speckle: a 1 MP photo of
    /// one shows up to a hundred look-alikes in every second row, each crossed by 2-4 rows
    /// (tune halves of `tilted` and `tilted-b`), whose triples cost an unread photo 5-20 ms.
    /// A light code's own finders there are crossed by 7 and more (`d-easy/34`: 7, 7 and 9;
    /// `g-dark/58`: 9, 10 and 10).
    static let negatedBlockSightings = 6
    /// The rows of the negated view's block binarisation searched: every second one (half
    /// the search's time; a finder crossed by six rows is still seen three times).
    static let negatedBlockRowStep = 2

    /// Finder patterns in the working view binarised with a window of 1/`divisor` of its
    /// side, dark or light (made once per picture and shared with the grid pass).
    static func workingPatterns(_ s: ScanSubject, divisor: Int, inverted: Bool) -> [FinderPattern] {
        let both = workingPatternSets(s, divisor: divisor).first ?? ([], [])
        return inverted ? both.light : both.dark
    }

    /// The same admitting finders up to `FinderSearch.steepCrossCheckScale` times wider than
    /// tall (a big code seen from low down), for the grid pass and as evidence: for the crops
    /// they let in look-alikes that crowd out the code's own (two corpus pictures lost).
    static func workingSteepPatterns(_ s: ScanSubject, divisor: Int, inverted: Bool) -> [FinderPattern] {
        let sets = workingPatternSets(s, divisor: divisor)
        guard sets.count > 1 else { return [] }
        return inverted ? sets[1].light : sets[1].dark
    }

    /// Both, found in one search.
    private static func workingPatternSets(_ s: ScanSubject, divisor: Int) -> [(dark: [FinderPattern], light: [FinderPattern])] {
        s.memoPatternSets("working\(divisor)") {
            guard let binary = adaptive(s, divisor: divisor) else { return [] }
            return FinderSearch.patternsByPolarity(in: binary, scales: [FinderSearch.crossCheckScale, FinderSearch.steepCrossCheckScale])
        }
    }

    /// The working view binarised block by block (zxing's HybridBinarizer), for the negated
    /// grid pass: a blurred light-on-dark code whose glow fills the finders' dark ring under
    /// both windows keeps its finders here.
    static func workingBlocks(_ s: ScanSubject) -> GrayImage? {
        s.memo("workingBlocks") { working(s)?.blockBinarized() }
    }

    /// Finder patterns in `workingBlocks`, dark or light.
    static func workingBlockPatterns(_ s: ScanSubject, inverted: Bool) -> [FinderPattern] {
        let both = workingBlockPatternSets(s).first ?? ([], [])
        return inverted ? both.light : both.dark
    }

    /// The same admitting finders up to `FinderSearch.steepCrossCheckScale` times taller or
    /// wider than their module along the row (found in the same pass over the rows), for the
    /// grid passes' last search: cells twice as tall as wide, blurred.
    static func workingBlockSteepPatterns(_ s: ScanSubject, inverted: Bool) -> [FinderPattern] {
        let sets = workingBlockPatternSets(s)
        guard sets.count > 1 else { return [] }
        return inverted ? sets[1].light : sets[1].dark
    }

    private static func workingBlockPatternSets(_ s: ScanSubject) -> [(dark: [FinderPattern], light: [FinderPattern])] {
        s.memoPatternSets("workingBlocks") {
            guard let binary = workingBlocks(s) else { return [] }
            return FinderSearch.patternsByPolarity(in: binary, scales: [FinderSearch.crossCheckScale, FinderSearch.steepCrossCheckScale])
        }
    }

    /// The negated working view binarised block by block, halfway between the darkest and
    /// lightest pixel round each block (`BlockThreshold.midrange`), for the negated grid
    /// pass's last search: light-on-dark codes dark. A dark-mode screen's light modules glow,
    /// and a finder's one-module dark ring, blurred and lit by the modules round it, is grey:
    /// under both windows and `workingBlocks` negated each finder is one blob (`d-easy/34`,
    /// tune half), and by the blocks' mean, which the flat surround pulls up towards the
    /// ring's level, the ring thins to a pixel (`g-dark/64`, tune half). Halfway between the
    /// finder's centre and its surround it stays a module wide.
    static func workingNegatedBlocks(_ s: ScanSubject) -> GrayImage? {
        s.memo("workingNegatedBlocks") { working(s).map { negated(s, "working", $0).blockBinarized(.midrange) } }
    }

    /// Dark-on-light finder patterns in `workingNegatedBlocks` (light on dark in the picture)
    /// crossed by at least `negatedBlockSightings` rows.
    static func workingNegatedBlockPatterns(_ s: ScanSubject) -> [FinderPattern] {
        s.memoPatterns("workingNegatedBlocks") {
            guard let binary = workingNegatedBlocks(s) else { return ([], []) }
            // Every second row: a finder crossed by `negatedBlockSightings` rows or more is
            // seen by half as many.
            let step = negatedBlockRowStep
            let found = FinderSearch.patternsByPolarity(in: binary, scales: [FinderSearch.crossCheckScale], rowStep: step)
            return (found.first?.dark.filter { $0.hits * step >= negatedBlockSightings } ?? [], [])
        }.dark
    }

    /// Finder patterns in the full-resolution picture binarised block by block, dark or
    /// light, smaller than the working view shows well (see `GridPass.fineModuleLimit`).
    static func finePatterns(_ s: ScanSubject, inverted: Bool) -> [FinderPattern] {
        let (dark, light) = s.memoPatterns("fine") {
            guard let binary = fineBinary(s, inverted: false) else { return ([], []) }
            let limit = GridPass.fineModuleLimit * Double(max(binary.width, binary.height)) / Double(workingSide)
            let found = FinderSearch.patternsByPolarity(in: binary, scale: FinderSearch.steepCrossCheckScale)
            return (found.dark.filter { $0.narrowest < limit }, found.light.filter { $0.narrowest < limit })
        }
        return inverted ? light : dark
    }

    /// The full-resolution picture (negated for light on dark), for pictures big enough
    /// for the fine search (nil for smaller ones); a bigger one shrunk to `fineLongestSide`,
    /// which bounds the memory a 100 MP picture costs.
    static func fineView(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard let side = fineSide(long: s.fullLongSide), let image = s.view(longSide: side) else { return nil }
        return inverted ? negated(s, "fine", image) : image
    }

    /// The long side of the fine view of a picture `long` pixels long; nil when the picture
    /// is too small for the fine search.
    static func fineSide(long: Int) -> Int? {
        Double(long) >= GridPass.fineFrom * Double(workingSide) ? min(long, GridPass.fineLongestSide) : nil
    }

    /// The same binarised block by block.
    static func fineBinary(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard let image = fineView(s, inverted: false) else { return nil }
        let binary = s.memo("blocks") { image.blockBinarized() }
        return inverted ? binary.map { negated(s, "blocks", $0) } : binary
    }

    /// Whether judging `evidence` would wait long for another thread still searching for
    /// it: the fine search (a 12 MP photo's block binarisation and finder search, a quarter
    /// of a second). The working view's takes a few hundredths, less than running another
    /// pass out of turn would cost.
    static func wouldWait(_ s: ScanSubject, _ evidence: Evidence) -> Bool {
        switch evidence {
        case .none, .finders, .lightFinders, .lightFindersLead, .lightCode: return false
        case .fineFinders, .fineLightFinders: return s.patternsBeingFound("fine")
        }
    }

    /// Whether `s` shows what `evidence` asks for.
    static func shows(_ s: ScanSubject, _ evidence: Evidence) -> Bool {
        switch evidence {
        case .none:
            return true
        case .finders, .lightFinders:
            let light = evidence == .lightFinders
            let least = light ? leastLightFinders : leastFinders
            return [wideWindow, narrowWindow].contains { divisor in
                workingPatterns(s, divisor: divisor, inverted: light).count >= least
                    || workingSteepPatterns(s, divisor: divisor, inverted: light).count >= least
            }
        case .fineFinders, .fineLightFinders:
            return finePatterns(s, inverted: evidence == .fineLightFinders).count >= leastFinders
        case .lightCode:
            return GridPass.locates(s, inverted: true)
        case .lightFindersLead:
            return shows(s, .lightFinders) && mostSightings(s, light: true) >= mostSightings(s, light: false)
        }
    }

    /// The most rows any one finder pattern of the working view was crossed by, in either
    /// window's search (usual and steep bound), light on dark or dark on light.
    static func mostSightings(_ s: ScanSubject, light: Bool) -> Int {
        [wideWindow, narrowWindow].flatMap {
            workingPatterns(s, divisor: $0, inverted: light) + workingSteepPatterns(s, divisor: $0, inverted: light)
        }.map(\.hits).max() ?? 0
    }
}
