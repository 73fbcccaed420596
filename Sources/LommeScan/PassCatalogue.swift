import LommeImages

/// The passes the pipeline knows and the numbers they are tuned by.
extension Pass {
    // MARK: Tuning: the views

    /// Long side of the working view most passes use.
    static let workingSide = 1280

    // MARK: Tuning: enlarging small pictures

    /// Pictures up to this long side are doubled (`up2`), up to `tripledUpTo` tripled.
    static let doubledUpTo = 400
    static let tripledUpTo = 400
    /// An enlarged picture gets a light border of 1/`paddingShare` of its width, at least
    /// `smallestPadding` pixels: the quiet zone a code cut tight at the edge of a screenshot lacks.
    static let paddingShare = 10
    static let smallestPadding = 8

    // MARK: Tuning: local windows

    /// Window radius for local thresholds, as a share of the view's long side: 1/40 spans a
    /// few modules of a code filling a third of the view; 1/12 keeps a finder's centre dark.
    static let narrowWindow = 40
    static let wideWindow = 12
    static let middleWindow = 20
    /// Radii outside these are too noisy (a module or less) or too slow and too even.
    static let smallestRadius = 4
    static let largestRadius = 60

    // MARK: Tuning: local normalisation

    /// Local normalisation runs on pictures of at most a 1280×720 camera frame's pixels.
    static let normalizedLargestPixels = 1280 * 720

    /// Whether `s` is small enough for local normalisation.
    static func normalizes(_ s: ScanSubject) -> Bool { s.fullWidth * s.fullHeight <= normalizedLargestPixels }

    // MARK: Tuning: zbar's scan lines

    /// zbar scans every second row and column of a whole picture (or a whole view of it): half the work.
    static let wholePictureSpacing: Int32 = 2

    // MARK: Tuning: filters

    /// Light-on-dark screens: light modules glow into their dark neighbours, so a wider unsharp mask (radius 2).
    static let screenSharpenRadius = 2
    static let screenSharpenAmount = 2

    static func working(_ s: ScanSubject) -> GrayImage? { s.view(longSide: workingSide) }

    /// `image`, the version of `s` called `name`, negated once per picture.
    static func negated(_ s: ScanSubject, _ name: String, _ image: GrayImage) -> GrayImage {
        s.memo(name + "-negated") { image.inverted() } ?? image.inverted()
    }

    /// A window radius for local operations: a few modules of a code filling a third of the view.
    static func localRadius(_ image: GrayImage, divisor: Int) -> Int {
        max(smallestRadius, min(largestRadius, max(image.width, image.height) / divisor))
    }

    /// Memoised binarised working view.
    static func adaptive(_ s: ScanSubject, divisor: Int) -> GrayImage? {
        s.memo("adaptive\(divisor)") {
            guard let image = working(s) else { return nil }
            return image.adaptiveBinarized(radius: localRadius(image, divisor: divisor))
        }
    }

    /// `image` with a light border and scaled up by `factor`.
    static func enlarged(_ image: GrayImage, by factor: Double) -> GrayImage {
        image.padded(max(smallestPadding, image.width / paddingShare)).scaled(by: factor)
    }

    /// The working view's pixels enlarged by `factor`, for a picture at most `limit` long (else nil: no view).
    static func enlargedPixels(_ s: ScanSubject, by factor: Double, upTo limit: Int) -> Int? {
        guard s.fullLongSide <= limit, let image = working(s) else { return nil }
        return enlargedPixels(image, by: factor)
    }

    /// The pixels of `enlarged(image, by: factor)`, not made.
    static func enlargedPixels(_ image: GrayImage, by factor: Double) -> Int {
        let border = 2 * max(smallestPadding, image.width / paddingShare)
        return Int(Double(image.width + border) * factor) * Int(Double(image.height + border) * factor)
    }

    /// A point of the working view enlarged by `factor` (`enlarged`), back in the working view.
    static func fromEnlarged(by factor: Double) -> @Sendable (ScanSubject, SIMD2<Double>) -> SIMD2<Double> {
        { s, point in
            let border = Double(max(smallestPadding, (working(s)?.width ?? 0) / paddingShare))
            return point / factor - SIMD2(repeating: border)
        }
    }

    /// A point of a picture the size of the working view (the view itself, negated or filtered).
    static let sameAsWorking: @Sendable (ScanSubject, SIMD2<Double>) -> SIMD2<Double> = { _, point in point }

    /// Every pass the pipeline knows, by name. The order in which they run is a `ScanPlan`.
    static let catalogue: [Pass] = [
        Pass(.plain, needs: .none, toWorking: sameAsWorking) { s in working(s).map { [$0] } ?? [] },
        // The enlarged views need a finder pattern too.
        Pass(.up2, needs: .finders, lineSpacing: 1, pixels: { s in enlargedPixels(s, by: 2, upTo: doubledUpTo) },
             toWorking: fromEnlarged(by: 2)) { s in
            guard s.fullLongSide <= doubledUpTo, let image = working(s) else { return [] }
            return [enlarged(image, by: 2)]
        },
        Pass(.up3, needs: .finders, lineSpacing: 1, pixels: { s in enlargedPixels(s, by: 3, upTo: tripledUpTo) },
             toWorking: fromEnlarged(by: 3)) { s in
            guard s.fullLongSide <= tripledUpTo, let image = working(s) else { return [] }
            return [enlarged(image, by: 3)]
        },
        Pass(.inverted, needs: .lightCode, toWorking: sameAsWorking) { s in working(s).map { [negated(s, "working", $0)] } ?? [] },
        Pass(.adaptive, needs: .none, toWorking: sameAsWorking) { s in adaptive(s, divisor: narrowWindow).map { [$0] } ?? [] },
        Pass(.adaptiveInv, needs: .lightCode, toWorking: sameAsWorking) { s in
            adaptive(s, divisor: narrowWindow).map { [negated(s, "adaptive\(narrowWindow)", $0)] } ?? []
        },
        // Blurred dark-mode screens: sharpening opens the finders' centres their glow closes.
        Pass(.sharpenedInv, needs: .lightFindersLead, ahead: [fromWorking("sharpened-negated") { _ = sharpenedNegated($0) }],
             toWorking: sameAsWorking) { s in
            sharpenedNegated(s).map { [$0] } ?? []
        },
        // The grid passes share their triples with a worker that has nothing else left (`GridPass.search`).
        Pass(.grid, needs: .finders, ahead: [narrowWindow, wideWindow].map(patternsAhead) + blocksAhead, shared: true) { s, trial in
            GridPass.search(s, trial)
        },
        Pass(.gridInv, needs: .lightFinders, shared: true) { s, trial in GridPass.search(s, trial, inverted: true) },
        Pass(.gridFine, needs: .fineFinders) { s, trial in GridPass.searchFine(s, trial) },
        Pass(.gridFineInv, needs: .fineLightFinders) { s, trial in GridPass.searchFine(s, trial, inverted: true) },
        Pass(.regionsBin, needs: .finders, lineSpacing: 1) { s in regionCrops(s) },
        // A terminal rendering with a light line between text rows (`GrayImage.unlined`).
        Pass(.gridUnlined, needs: .finders, shared: true) { s, trial in
            unlined(s, negated: false).map { GridPass.search($0, trial) }
        },
        Pass(.gridUnlinedInv, needs: .lightFindersLead, shared: true) { s, trial in
            unlined(s, negated: true).map { GridPass.search($0, trial) }
        },
        // Low contrast under a dark gradient: each pixel against its window's spread.
        Pass(.normalized, needs: .finders, ahead: [fromWorking("normalized-view") { s in if normalizes(s) { _ = normalized(s) } }],
             toWorking: sameAsWorking) { s in
            guard normalizes(s) else { return [] }
            return normalized(s).map { [$0] } ?? []
        },
    ]

    /// The memo key of the working view.
    static func workingKey(_ s: ScanSubject) -> String { s.viewKey(longSide: workingSide) }

    /// A job ahead making the picture `key` from the working view.
    static func fromWorking(_ key: String, _ make: @escaping @Sendable (ScanSubject) -> Void) -> JobAhead {
        JobAhead(reads: { [.picture(workingKey($0))] }, makes: { _ in .picture(key) }, make: make)
    }

    /// Jobs ahead making the working view's block binarisation and its finder patterns (the grid passes' last search).
    static let blocksAhead = [
        fromWorking("workingBlocks") { _ = workingBlocks($0) },
        JobAhead(reads: { _ in [.picture("workingBlocks")] }, makes: { _ in .patterns("workingBlocks") }) {
            _ = workingBlockPatterns($0, inverted: false)
        },
    ]

    /// A job ahead finding the finder patterns of the working view binarised at 1/`divisor` (`workingPatterns`).
    static func patternsAhead(divisor: Int) -> JobAhead {
        JobAhead(reads: { _ in [.picture("adaptive\(divisor)")] }, makes: { _ in .patterns("working\(divisor)") }) {
            _ = workingPatterns($0, divisor: divisor, inverted: false)
        }
    }

    /// The working view, negated or not, unlined, as a picture the grid pass searches (made once per picture).
    static func unlined(_ s: ScanSubject, negated flip: Bool) -> ScanSubject? {
        s.memoValue("unlined \(flip)") { () -> ScanSubject? in
            guard let image = working(s) else { return nil }
            return ScanSubject(image: (flip ? negated(s, "working", image) : image).unlined())
        } ?? nil
    }

    /// The working view normalised locally (memoised: a job ahead may make it).
    static func normalized(_ s: ScanSubject) -> GrayImage? {
        s.memo("normalized-view") { working(s).map { $0.locallyNormalized(radius: localRadius($0, divisor: middleWindow)) } }
    }

    /// The working view negated and sharpened for light-on-dark screens (memoised; negated
    /// here rather than through `negated`, so that a job ahead reads the working view alone).
    static func sharpenedNegated(_ s: ScanSubject) -> GrayImage? {
        s.memo("sharpened-negated") {
            working(s).map { $0.inverted().sharpened(radius: screenSharpenRadius, amount: screenSharpenAmount) }
        }
    }
}
