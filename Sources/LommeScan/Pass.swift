import LommeCore
import LommeImages

/// One way of preparing the picture for zbar: images made from a `ScanSubject`, or a search
/// (the grid sampler) that hands zbar one image at a time. Light-on-dark codes are negated here.
struct Pass: Sendable {
    let name: PassName
    /// What the picture must show for this pass to run.
    let needs: Evidence
    /// zbar scans every `lineSpacing`-th row and column of this pass's images.
    let lineSpacing: Int32
    let run: @Sendable (ScanSubject, Trial) -> Void
    /// What a waiting thread may make ahead of this pass's turn (`ScanSubject.planAhead`): its evidence, its view.
    let ahead: [JobAhead]
    /// Whether a worker with no pass left may join this one while it runs (`Scanner.worker`), sharing its work.
    let shared: Bool
    /// How a point of the images this pass hands zbar maps to the working view; nil when it
    /// does not (crops, the grid sampler's drawings): where a code it reads lies (`Settle`).
    let toWorking: (@Sendable (ScanSubject, SIMD2<Double>) -> SIMD2<Double>)?

    /// A pass of whole views. `pixels` foretells the pixels of a view that costs as much to make
    /// as to scan (an enlarged one), which is then not made when its scan would not fit the budget.
    init(_ name: PassName, needs: Evidence, lineSpacing: Int32 = wholePictureSpacing,
         ahead: [JobAhead] = [], pixels: (@Sendable (ScanSubject) -> Int?)? = nil,
         toWorking: (@Sendable (ScanSubject, SIMD2<Double>) -> SIMD2<Double>)? = nil,
         images: @escaping @Sendable (ScanSubject) -> [GrayImage]) {
        self.name = name
        self.needs = needs
        self.ahead = ahead
        self.shared = false
        self.toWorking = toWorking
        self.lineSpacing = lineSpacing
        self.run = { subject, trial in
            if let foretold = pixels?(subject), !trial.mayStart(foretold / Int(max(1, trial.lineSpacing))) { return }
            for image in images(subject) {
                if trial.over { return }
                // zbar cannot be stopped once it scans: a view whose scan would end past the
                // budget is not started (`Trial.mayStart`).
                let pixels = image.width * image.height / Int(max(1, trial.lineSpacing))
                guard trial.mayStart(pixels) else { return }
                let started = trial.clock.now()
                _ = trial.scan(image)
                trial.scanned(pixels, trial.clock.now() - started)
            }
        }
    }

    init(_ name: PassName, needs: Evidence, ahead: [JobAhead] = [], shared: Bool = false,
         search: @escaping @Sendable (ScanSubject, Trial) -> Void) {
        self.name = name
        self.needs = needs
        self.ahead = ahead
        self.shared = shared
        self.lineSpacing = 1
        self.toWorking = nil
        self.run = search
    }
}

/// What a pass hands its images to.
struct Trial {
    let scanner: ZBarScanner
    let pass: PassName
    /// zbar's scan-line spacing for this pass's images.
    var lineSpacing: Int32 = 1
    let isOver: () -> Bool
    /// Takes the codes of one zbar scan together (a picture can hold several codes).
    let report: ([Sighting]) -> Void
    /// Whether zbar may start on a whole view of this many pixels (on the lines it scans).
    var mayStart: (_ pixels: Int) -> Bool = { _ in true }
    /// Told what zbar's scan of a whole view took.
    var scanned: (_ pixels: Int, _ took: Duration) -> Void = { _, _ in }
    /// The clock those scans are timed by: the scan's own (`ScanOptions.clock`).
    var clock = ScanClock.continuous
    /// Maps a point of the images scanned to the working view (`Pass.toWorking`), when it can.
    var toWorking: ((SIMD2<Double>) -> SIMD2<Double>)? = nil

    var over: Bool { isOver() }

    /// Scans `image`; true when zbar decoded something in it. `outline`: where the code drawn
    /// in `image` lies in the working view, when the pass knows (the grid sampler's map);
    /// otherwise zbar's outline through `toWorking`.
    @discardableResult
    func scan(_ image: GrayImage, outline: [SIMD2<Double>]? = nil) -> Bool {
        let read = scanner.scan(image, lineSpacing: lineSpacing).filter { !$0.bytes.isEmpty }.map { symbol in
            Sighting(bytes: symbol.bytes, pass: pass, corners: outline ?? toWorking.map { symbol.corners.map($0) } ?? [])
        }
        if !read.isEmpty { report(read) }
        return !read.isEmpty
    }
}

/// A code's bytes as one pass read them, before the search takes them in: each payload is
/// classified once, the first time it is seen (`SearchState.report`, `Decoded`).
struct Sighting: Sendable {
    let bytes: [UInt8]
    let pass: PassName
    /// Its outline in the working view; empty when the pass's pictures do not map to it.
    var corners: [SIMD2<Double>] = []
}

extension Pass {
    /// The catalogue's pass called `name` (every name has one: `PassNameTests`).
    static func named(_ name: PassName) -> Pass? { catalogue.first { $0.name == name } }
}
