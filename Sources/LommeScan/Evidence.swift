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
    /// The same in the full-resolution picture: for the passes that look at a 12 MP photo
    /// closer than the working view.
    case fineFinders
    case fineLightFinders
}

extension Pass {
    // MARK: Tuning: how much must have been seen

    /// Finder patterns (in any one search of the view) a gated pass needs. One: a code whose
    /// finders blur or low contrast hides from our search may still be read by zbar through
    /// another filter (the `uneven` fixture: asking for three corners of one code lost it),
    /// and asking for more saved no measurable time on photos without a code.
    static let leastFinders = 1

    /// Finder patterns in the working view binarised with a window of 1/`divisor` of its
    /// side, dark or light (made once per picture and shared with the grid pass).
    static func workingPatterns(_ s: ScanSubject, divisor: Int, inverted: Bool) -> [FinderPattern] {
        s.memoPatterns("working\(divisor)\(inverted)") {
            guard let binary = adaptive(s, divisor: divisor) else { return [] }
            return FinderSearch.patterns(in: inverted ? binary.inverted() : binary)
        }
    }

    /// Finder patterns in the full-resolution picture binarised block by block, dark or
    /// light, smaller than the working view shows well (see `GridPass.fineModuleLimit`).
    static func finePatterns(_ s: ScanSubject, inverted: Bool) -> [FinderPattern] {
        s.memoPatterns("fine\(inverted)") {
            guard let binary = fineBinary(s, inverted: inverted) else { return [] }
            let limit = GridPass.fineModuleLimit * Double(max(binary.width, binary.height)) / Double(workingSide)
            return FinderSearch.patterns(in: binary, scale: FinderSearch.steepCrossCheckScale)
                .filter { $0.module < limit }
        }
    }

    /// The full-resolution picture (negated for light on dark), for pictures big enough
    /// for the fine search (nil for smaller ones); a bigger one shrunk to `fineLongestSide`,
    /// which bounds the memory a 100 MP picture costs.
    static func fineView(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard Double(s.fullLongSide) >= GridPass.fineFrom * Double(workingSide),
              let image = s.view(longSide: min(s.fullLongSide, GridPass.fineLongestSide)) else { return nil }
        return inverted ? s.memo("full-inv") { image.inverted() } : image
    }

    /// The same binarised block by block.
    static func fineBinary(_ s: ScanSubject, inverted: Bool) -> GrayImage? {
        guard let image = fineView(s, inverted: false) else { return nil }
        let binary = s.memo("blocks") { image.blockBinarized() }
        return inverted ? binary.flatMap { b in s.memo("blocks-inv") { b.inverted() } } : binary
    }

    /// Whether `s` shows what `evidence` asks for.
    static func shows(_ s: ScanSubject, _ evidence: Evidence) -> Bool {
        switch evidence {
        case .none:
            return true
        case .finders, .lightFinders:
            return [wideWindow, narrowWindow].contains { divisor in
                workingPatterns(s, divisor: divisor, inverted: evidence == .lightFinders).count >= leastFinders
            }
        case .fineFinders, .fineLightFinders:
            return finePatterns(s, inverted: evidence == .fineLightFinders).count >= leastFinders
        }
    }
}
