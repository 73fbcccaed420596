import LommeCore
import LommeImages

/// One way of preparing the picture for zbar. A pass makes one or more images from a
/// `ScanSubject` (nothing when it does not apply, say enlarging a picture that is big
/// already). A light-on-dark code is read from a negated image: zbar's own
/// `ZBAR_CFG_TEST_INVERTED` would first scan the picture as it is again, doubling the cost
/// of a pass whose dark-on-light twin has run already. A searching pass
/// (the grid sampler) hands zbar one image at a time and uses what it finds to decide what
/// to try next.
struct Pass: Sendable {
    let name: String
    let run: @Sendable (ScanSubject, Trial) -> Void

    init(_ name: String, images: @escaping @Sendable (ScanSubject) -> [GrayImage]) {
        self.name = name
        self.run = { subject, trial in
            for image in images(subject) where !trial.over { _ = trial.scan(image) }
        }
    }

    init(_ name: String, search: @escaping @Sendable (ScanSubject, Trial) -> Void) {
        self.name = name
        self.run = search
    }
}

/// What a pass hands its images to: zbar, reporting what it decodes, and whether the
/// search is over (time is up, or a decode was accepted).
struct Trial {
    let scanner: ZBarScanner
    let pass: String
    let isOver: () -> Bool
    let report: (Decoded) -> Void

    var over: Bool { isOver() }

    /// Scans `image`; true when zbar decoded something in it.
    @discardableResult
    func scan(_ image: GrayImage) -> Bool {
        var decoded = false
        for symbol in scanner.scan(image) where !symbol.bytes.isEmpty {
            report(Decoded(bytes: symbol.bytes, pass: pass))
            decoded = true
        }
        return decoded
    }
}

extension Pass {
    /// Long side of the working view most passes use: zbar is fast and reliable there for
    /// codes that fill a fair part of the photo.
    static let workingSide = 1280

    static func working(_ s: ScanSubject) -> GrayImage? { s.view(longSide: workingSide) }

    /// A window radius for local operations: a few modules of a code filling a third of the view.
    static func localRadius(_ image: GrayImage, divisor: Int) -> Int {
        max(4, min(60, max(image.width, image.height) / divisor))
    }

    /// Memoised binarised working view.
    static func adaptive(_ s: ScanSubject, divisor: Int) -> GrayImage? {
        s.memo("adaptive\(divisor)") {
            guard let image = working(s) else { return nil }
            return image.adaptiveBinarized(radius: localRadius(image, divisor: divisor))
        }
    }

    /// The catalogue's pass called `name`.
    static func named(_ name: String) -> Pass? { catalogue.first { $0.name == name } }

    /// The catalogue's passes called `names`, in that order.
    static func named(_ names: [String]) throws(LommeError) -> [Pass] {
        let known = catalogue.map(\.name).joined(separator: ", ")
        guard !names.isEmpty else { throw .usage("no scanner pass named — name one or more of: \(known)") }
        return try names.map { name throws(LommeError) in
            guard let pass = named(name) else {
                throw .usage("unknown scanner pass \"\(name)\" — the passes are: \(known)")
            }
            return pass
        }
    }

    /// Every pass the pipeline knows, by name. The order in which they run is `Scanner.order`.
    static let catalogue: [Pass] = [
        Pass("plain") { s in working(s).map { [$0] } ?? [] },
        Pass("small") { s in
            guard s.fullLongSide > 700, let image = s.view(longSide: 640) else { return [] }
            return [image]
        },
        Pass("large") { s in
            guard s.fullLongSide > workingSide, let image = s.view(longSide: 2 * workingSide) else { return [] }
            return [image]
        },
        Pass("full") { s in
            guard s.fullLongSide > 2 * workingSide, let image = s.view(longSide: s.fullLongSide) else { return [] }
            return [image]
        },
        Pass("up2") { s in
            guard s.fullLongSide <= 800, let image = working(s) else { return [] }
            return [image.padded(max(8, image.width / 10)).scaled(by: 2)]
        },
        Pass("up3") { s in
            guard s.fullLongSide <= 400, let image = working(s) else { return [] }
            return [image.padded(max(8, image.width / 10)).scaled(by: 3)]
        },
        Pass("inverted") { s in working(s).map { [$0.inverted()] } ?? [] },
        Pass("otsu") { s in working(s).map { [$0.otsuBinarized()] } ?? [] },
        Pass("adaptive") { s in adaptive(s, divisor: 40).map { [$0] } ?? [] },
        Pass("adaptive-wide") { s in adaptive(s, divisor: 12).map { [$0] } ?? [] },
        Pass("adaptive-inv") { s in adaptive(s, divisor: 40).map { [$0.inverted()] } ?? [] },
        Pass("sauvola") { s in
            working(s).map { [$0.sauvolaBinarized(radius: localRadius($0, divisor: 20))] } ?? []
        },
        Pass("normalized") { s in
            working(s).map { [$0.locallyNormalized(radius: localRadius($0, divisor: 20))] } ?? []
        },
        Pass("stretched") { s in working(s).map { [$0.stretched()] } ?? [] },
        Pass("sharpened") { s in working(s).map { [$0.sharpened()] } ?? [] },
        Pass("sharpened-up2") { s in
            guard s.fullLongSide <= 800, let image = working(s) else { return [] }
            return [image.padded(max(8, image.width / 10)).scaled(by: 2).sharpened(radius: 2, amount: 1)]
        },
        Pass("adaptive-up2") { s in
            guard s.fullLongSide <= 800, let image = working(s) else { return [] }
            let big = image.padded(max(8, image.width / 10)).scaled(by: 2)
            return [big.adaptiveBinarized(radius: localRadius(big, divisor: 40))]
        },
        // Dark-mode screens photographed at 1 MP: light modules glow into their dark
        // neighbours, and blur closes the finders' centres. Sharpening, or doubling the
        // picture before a local threshold, opens them again.
        Pass("sharpened-inv") { s in working(s).map { [$0.inverted().sharpened(radius: 2, amount: 2)] } ?? [] },
        Pass("adaptive-up2-inv") { s in
            guard s.fullLongSide <= 1600, let image = working(s) else { return [] }
            let big = image.inverted().padded(max(8, image.width / 10)).scaled(by: 2)
            return [big.adaptiveBinarized(radius: localRadius(big, divisor: 40))]
        },
        Pass("denoised") { s in
            // Sensor noise and JPEG speckle break the binarisation; a small mean first.
            guard let image = working(s) else { return [] }
            let smooth = GrayImage(width: image.width, height: image.height,
                                   pixels: LocalStats.boxMean(image, radius: 1))
            return [smooth.adaptiveBinarized(radius: localRadius(smooth, divisor: 40), offset: 2)]
        },
        Pass("grid") { s, trial in GridPass.search(s, trial) },
        Pass("grid-inv") { s, trial in GridPass.search(s, trial, inverted: true) },
        Pass("regions") { s in regionCrops(s, binarize: false) },
        Pass("regions-bin") { s in regionCrops(s, binarize: true) },
    ]

    /// Crops around groups of finder patterns found in the binarised working view, each cut
    /// from the best resolution available and scaled so a module is about four pixels.
    static func regionCrops(_ s: ScanSubject, binarize: Bool) -> [GrayImage] {
        guard let image = working(s), let binary = adaptive(s, divisor: 40) else { return [] }
        let patterns = FinderSearch.patterns(in: binary)
        let regions = FinderSearch.regions(from: patterns, width: image.width, height: image.height)
        let toFull = Double(s.fullWidth) / Double(image.width)
        var crops: [GrayImage] = []
        for region in regions {
            let fullModule = region.module * toFull
            guard let (source, factor) = s.view(forModule: fullModule, minimum: 4) else { continue }
            let scale = factor * toFull
            let box = Region(x: Int(Double(region.x) * scale), y: Int(Double(region.y) * scale),
                             width: Int(Double(region.width) * scale), height: Int(Double(region.height) * scale),
                             module: fullModule * factor, finders: region.finders)
            var crop = source.cropped(to: box)
            guard crop.width > 0 else { continue }
            let resize = min(3, 4 / box.module)
            crop = crop.scaled(by: resize)
            crop = crop.padded(Int(4 * min(box.module * resize, 8)), fill: 255)
            if binarize { crop = crop.adaptiveBinarized(radius: max(4, Int(box.module * resize * 3))) }
            crops.append(crop)
        }
        return crops
    }
}
