import LommeImages

/// What a pass needs to have seen in the picture to have a chance.
enum Evidence: Sendable {
    /// Runs whatever was seen.
    case none
    /// Finder patterns in the working view, in either binarisation the grid pass uses.
    case finders
    case lightFinders
    /// `lightFinders`, and a light finder crossed by at least as many rows as any dark one (`Pass.mostSightings`).
    case lightFindersLead
    /// The same in the full-resolution picture.
    case fineFinders
    case fineLightFinders
    /// A light-on-dark code located in the working view.
    case lightCode
}

extension Pass {
    // MARK: Tuning: how much must have been seen

    /// Finder patterns (in any one search of the view) a gated pass needs.
    static let leastFinders = 1
    /// Light-on-dark finder patterns the negating passes need: a code's three corners.
    static let leastLightFinders = QRGeometry.finders
    /// Rows that must cross a finder of the negated view's block binarisation (`workingNegatedBlockPatterns`).
    static let negatedBlockSightings = 6
    /// The rows of the negated view's block binarisation searched.
    static let negatedBlockRowStep = 2

    /// Finder patterns, dark or light, in the working view binarised with a 1/`divisor` window (memoised).
    static func workingPatterns(_ s: ScanSubject, divisor: Int, inverted: Bool) -> [FinderPattern] {
        let both = workingPatternSets(s, divisor: divisor).first ?? ([], [])
        return inverted ? both.light : both.dark
    }

    /// The same admitting finders up to `FinderSearch.steepCrossCheckScale` times wider than tall
    /// (a big code seen from low down), for the grid pass and as evidence.
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

    /// The working view binarised block by block (zxing's HybridBinarizer), for the negated grid pass.
    static func workingBlocks(_ s: ScanSubject) -> GrayImage? {
        s.memo("workingBlocks") { working(s)?.blockBinarized() }
    }

    /// Finder patterns in `workingBlocks`, dark or light.
    static func workingBlockPatterns(_ s: ScanSubject, inverted: Bool) -> [FinderPattern] {
        let both = workingBlockPatternSets(s).first ?? ([], [])
        return inverted ? both.light : both.dark
    }

    /// The same admitting finders up to `FinderSearch.steepCrossCheckScale` times taller or wider than their
    /// module along the row, for the grid passes' last search: cells twice as tall as wide, blurred.
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

    /// The negated working view binarised block by block at the blocks' midrange (`BlockThreshold.midrange`),
    /// for the negated grid pass's last search: a glowing finder's grey ring stays a module wide there.
    static func workingNegatedBlocks(_ s: ScanSubject) -> GrayImage? {
        s.memo("workingNegatedBlocks") { working(s).map { negated(s, "working", $0).blockBinarized(.midrange) } }
    }

    /// Finders dark in `workingNegatedBlocks` (light in the picture) crossed by `negatedBlockSightings` rows or more.
    static func workingNegatedBlockPatterns(_ s: ScanSubject) -> [FinderPattern] {
        s.memoPatterns("workingNegatedBlocks") {
            guard let binary = workingNegatedBlocks(s) else { return ([], []) }
            // Every second row: a finder crossed by `negatedBlockSightings` rows or more is seen by half as many.
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

    /// The full-resolution view (negated for light on dark), nil for pictures too small for the fine search.
    static func fineView(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard let side = fineSide(long: s.fullLongSide), let image = s.view(longSide: side) else { return nil }
        return inverted ? negated(s, "fine", image) : image
    }

    /// The long side of the fine view of a picture `long` pixels long.
    static func fineSide(long: Int) -> Int? {
        Double(long) >= GridPass.fineFrom * Double(workingSide) ? min(long, GridPass.fineLongestSide) : nil
    }

    /// The same binarised block by block.
    static func fineBinary(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard let image = fineView(s, inverted: false) else { return nil }
        let binary = s.memo("blocks") { image.blockBinarized() }
        return inverted ? binary.map { negated(s, "blocks", $0) } : binary
    }

    /// Whether judging `evidence` would wait long for another thread still searching for it.
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

    /// The most rows crossing one finder of the working view, in either window's search and bound, light or dark.
    static func mostSightings(_ s: ScanSubject, light: Bool) -> Int {
        [wideWindow, narrowWindow].flatMap {
            workingPatterns(s, divisor: $0, inverted: light) + workingSteepPatterns(s, divisor: $0, inverted: light)
        }.map(\.hits).max() ?? 0
    }
}
