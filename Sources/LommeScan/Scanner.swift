import Dispatch
import LommeCore
import LommeImages
import Synchronization

/// How hard to look.
package struct ScanOptions: Sendable {
    /// Overall time budget for one picture (`Scanner.defaultDeadline` unless told); nil for none.
    package var deadline: Duration?
    /// The clock the deadline is measured on: the machine's own unless a test gives its own.
    package var clock = ScanClock.continuous
    /// Run passes on two threads, each with its own zbar scanner, for a picture over `Scanner.oneWorkerUpTo`.
    package var parallel: Bool
    /// Skip the passes whose view shows no finder pattern (`Evidence`).
    package var gated = true
    /// End the search, accepted or not, once every finder pattern the picture shows lies on a
    /// code read (`Settle`): a picture of one foreign code is answered after the pass that read it.
    package var settles = true
    /// Only these passes, in this order (diagnostics and benchmarks); nil for the pipeline's order.
    private(set) var selected: [Pass]?
    /// zbar scans every row and column of every image, whole views too (`Pass.wholePictureSpacing`).
    package var everyLine = false
    /// How many passes, the first in order, run whatever the deadline and the evidence say.
    package var mandatory = ScanPlan.photo.mandatory
    /// Told each pass taken, its `PassOutcome` and its time on its thread, evidence search included (benchmarks).
    package var passTimes: (@Sendable (_ pass: PassName, _ outcome: PassOutcome, _ time: Duration) -> Void)? = nil

    /// The names of the passes chosen, nil for the pipeline's order.
    package var passes: [PassName]? { selected?.map(\.name) }

    package init(deadline: Duration? = Scanner.defaultDeadline, parallel: Bool = true) {
        self.deadline = deadline
        self.parallel = parallel
        self.selected = nil
    }

    /// Only `passes`, in this order (`PassName.parse` reads them from `--passes`).
    package init(deadline: Duration? = Scanner.defaultDeadline, parallel: Bool = true, passes: [PassName]) {
        self.init(deadline: deadline, parallel: parallel)
        selected = passes.compactMap(Pass.named)
    }

    /// The passes of `plan`, its first `mandatory` whatever the deadline and the evidence say.
    package init(deadline: Duration? = Scanner.defaultDeadline, parallel: Bool = true, plan: ScanPlan) {
        self.init(deadline: deadline, parallel: parallel, passes: plan.passes)
        mandatory = plan.mandatory
    }
}

/// The clock a scan's deadline is measured on (`ScanOptions.clock`).
package struct ScanClock: Sendable {
    /// The time since an origin of the clock's own.
    package let now: @Sendable () -> Duration

    package init(now: @escaping @Sendable () -> Duration) { self.now = now }

    /// The machine's monotonic clock (`ContinuousClock`).
    package static let continuous: ScanClock = {
        let origin = ContinuousClock.now
        return ScanClock { ContinuousClock.now - origin }
    }()
}

/// What became of a pass a worker took (`ScanOptions.passTimes`).
package enum PassOutcome: String, Sendable {
    case ran
    /// It was skipped: its view shows no finder pattern (`Evidence`).
    case skipped
    /// A worker with no pass left joined it while the other ran it, sharing its work (`Pass.shared`).
    case joined
}

/// One QR payload found in a picture, with what it is: its text decoded and its kind decided
/// once, here (`ClassifiedPayload`), and handed as it is to the caller's `accept` and on to
/// the service.
package struct Decoded: Sendable, Equatable {
    /// The payload: its bytes, its text (`QRText.decode`), its kind and its value parsed.
    package let code: ClassifiedPayload
    /// Which pass found it, for diagnostics and the benchmark.
    package let pass: PassName

    package init(bytes: [UInt8], pass: PassName) {
        code = ClassifiedPayload(bytes)
        self.pass = pass
    }

    package var bytes: [UInt8] { code.bytes }
    package var text: String { code.text }
    package var kind: CodeKind { code.kind }

    package static func == (a: Decoded, b: Decoded) -> Bool { a.bytes == b.bytes && a.pass == b.pass }
}

/// The multi-pass QR decoder around zbar.
package enum Scanner {
    /// The default budget for one picture.
    package static let defaultDeadline: Duration = .milliseconds(2500)

    /// Worker threads, each with its own zbar scanner: two keep a dual-core machine busy.
    static let workers = 2

    /// The passes of a photo's plan, as the catalogue has them.
    static let pipeline: [Pass] = ScanPlan.photo.passes.compactMap(Pass.named)

    /// Pictures up to this long side get one worker: plain or the grid pass reads most small photos in a
    /// few milliseconds, and a second worker's work is thrown away (docs/scanner.md, "Small pictures").
    static let oneWorkerUpTo = Pass.tripledUpTo

    /// Decodes every distinct QR payload in `image`; may return [].
    package static func scan(image: GrayImage, options: ScanOptions = .init(),
                            accept: (Decoded) -> Bool = { _ in false }) -> [Decoded] {
        run(ScanSubject(image: image), options: options, accept: accept)
    }

    /// Decodes every distinct QR payload in the picture at `path` (PNG, JPEG, WebP, PGM/PPM, HEIC).
    package static func scan(path: String, options: ScanOptions = .init(),
                            accept: (Decoded) -> Bool = { _ in false }) throws(LommeError) -> [Decoded] {
        let bytes = try ImageLoader.read(path: path)
        let size = try ImageLoader.size(bytes: bytes, name: path)
        let long = max(size.width, size.height)
        // Only a codec that scales while decoding (JPEG) gives a reduced size.
        let scalable = (try? ImageLoader.codec(of: bytes, name: path))?.scalesWhileDecoding == true
        let firstReduce = ScanSubject.reduction(long: long, wanted: Pass.workingSide)
        // A photo big enough for the fine passes is decoded at the fine view's size on the other core.
        let early = EarlyDecode()
        let fineReduce = Pass.fineSide(long: long).map { ScanSubject.reduction(long: long, wanted: $0) }
        if scalable, let reduce = fineReduce, reduce != firstReduce {
            DispatchQueue.global().async(group: early.group) {
                early.image = try? ImageLoader.load(bytes: bytes, reduce: reduce, name: path)
            }
        }
        // Nothing is left running when the scan ends.
        defer { early.group.wait() }
        // The first view most passes use, loaded now so that a damaged file fails here.
        let first = try ImageLoader.load(bytes: bytes, reduce: firstReduce, name: path)
        let subject = ScanSubject(fullWidth: size.width, fullHeight: size.height) { wanted in
            if wanted == firstReduce || !scalable { return first }
            if wanted == fineReduce {
                early.group.wait()
                if let image = early.image { return image }
            }
            return try? ImageLoader.load(bytes: bytes, reduce: wanted, name: path)
        }
        let found = run(subject, options: options, accept: accept)
        if found.isEmpty {
            throw .image(.noCodeFound, "no QR code found in \(ImageLimits.display(path)) — take the photo again with the code "
                + "filling about a third of the picture, sharp, evenly lit and without glare")
        }
        return found
    }

    static func run(_ subject: ScanSubject, options: ScanOptions, accept: (Decoded) -> Bool) -> [Decoded] {
        search(subject, options: options, accept: accept).results()
    }

    /// The search itself; its state tells the decodes found and the passes that ran.
    static func search(_ subject: ScanSubject, options: ScanOptions, accept: (Decoded) -> Bool) -> SearchState {
        let passes = options.selected ?? pipeline
        let clock = options.clock
        let end = options.deadline.map { clock.now() + $0 }
        let state = SearchState()
        if options.parallel && passes.count > 1 && subject.fullLongSide > oneWorkerUpTo {
            // `accept` is not Sendable: only this thread judges; workers signal `news` per report and when done.
            let news = DispatchSemaphore(value: 0)
            // What the passes will ask for, for a worker to make while it would wait for the other (none once stopped).
            subject.planAhead(passes.flatMap { pass in
                pass.ahead.map { job in JobAhead(reads: job.reads, makes: job.makes) { s in if !state.stopped { job.make(s) } } }
            })
            let judge: @Sendable ([Sighting]) -> Void = { read in
                state.report(read)
                news.signal()
            }
            for _ in 0..<workers {
                DispatchQueue.global().async {
                    worker(subject, passes, options: options, state: state, end: end, clock: clock, report: judge)
                    state.workerDone()
                    news.signal()
                }
            }
            // Judge decodes as they come in: an accepted one ends the scan at once, the other worker
            // finishing its pass alone (a zbar scan cannot be interrupted).
            repeat {
                news.wait()
                if state.judge(accept) || settled(subject, options, state) {
                    state.stop()
                    return state
                }
            } while state.workersDone < workers
        } else {
            worker(subject, passes, options: options, state: state, end: end, clock: clock) { read in
                state.report(read)
                if state.judge(accept) || settled(subject, options, state) { state.stop() }
            }
        }
        return state
    }

    /// Whether the search may end with what it found (`ScanOptions.settles`): asked each time a
    /// code is seen where its outline is known, before the next pass.
    static func settled(_ subject: ScanSubject, _ options: ScanOptions, _ state: SearchState) -> Bool {
        guard options.settles, let codes = state.freshOutlines() else { return false }
        return Settle.searchedEnough(subject, codes: codes)
    }

    /// Takes passes off the shared list in order until none is left, time is up or an accepted decode stops it.
    static func worker(_ subject: ScanSubject, _ passes: [Pass], options: ScanOptions, state: SearchState,
                       end: Duration?, clock: ScanClock, report: ([Sighting]) -> Void) {
        let scanner = ZBarScanner()
        // Whether the deadline has passed (never, with none).
        let past = { end.map { clock.now() >= $0 } ?? false }
        // A gated pass whose evidence the other worker is still finding is put off until that search is done.
        let waits = { (index: Int) in options.gated && index >= options.mandatory && Pass.wouldWait(subject, passes[index].needs) }
        while !state.stopped, let next = state.nextPass(below: passes.count, ready: { !waits($0) }) {
            let index = next.index
            if next.fresh && waits(index) && state.putOff(index, below: passes.count) { continue }
            // The first passes always run, however loaded the machine.
            let mandatory = index < options.mandatory
            if !mandatory && past() { break }
            let pass = passes[index]
            let started = clock.now()
            // A pass that cannot see a finder pattern cannot read a code.
            if options.gated && !mandatory && !Pass.shows(subject, pass.needs) {
                options.passTimes?(pass.name, .skipped, clock.now() - started)
                continue
            }
            state.ran(pass.name)
            if pass.shared { state.share(index) }
            run(pass, index: index)
            if pass.shared { state.stopSharing(index) }
            options.passTimes?(pass.name, .ran, clock.now() - started)
        }
        // No pass left: rather than idle, join the other worker's pass that shares its work (the grid sampler,
        // often the last running on a photo nobody reads), each thread taking the next triple in turn.
        while !state.stopped, let index = state.joinable() {
            if index >= options.mandatory && past() { break }
            let started = clock.now()
            run(passes[index], index: index)
            options.passTimes?(passes[index].name, .joined, clock.now() - started)
        }

        func run(_ pass: Pass, index: Int) {
            let mandatory = index < options.mandatory
            withoutActuallyEscaping(report) { report in
                var trial = Trial(scanner: scanner, pass: pass.name, lineSpacing: options.everyLine ? 1 : pass.lineSpacing,
                                  isOver: { state.stopped || (!mandatory && past()) }, report: report)
                // zbar cannot be stopped once it scans: past the mandatory passes, a whole view is
                // scanned only if zbar's pace so far says the scan ends inside the budget.
                trial.scanned = { state.pace.record(pixels: $0, took: $1) }
                trial.clock = clock
                trial.toWorking = pass.toWorking.map { map in { map(subject, $0) } }
                if !mandatory, let end { trial.mayStart = { state.pace.fits(pixels: $0, from: clock.now(), before: end) } }
                pass.run(subject, trial)
            }
        }
    }
}

/// A decode started on another thread before the scan needs it.
final class EarlyDecode: Sendable {
    let group = DispatchGroup()
    private let made = Mutex<GrayImage?>(nil)
    var image: GrayImage? {
        get { made.withLock { $0 } }
        set { made.withLock { $0 = newValue } }
    }
}

/// What the workers share: the next pass to take, the decodes found, whether to stop.
final class SearchState: Sendable {
    private struct Inner {
        var next = 0
        var putOff: [Int] = []
        var found: [Decoded] = []
        /// The outlines, in the working view, of the codes read where a pass knows them.
        var outlines: [[SIMD2<Double>]] = []
        /// An outline came since `freshOutlines` was last asked.
        var newOutline = false
        var judged = 0
        var accepted = false
        var stopped = false
        var ran: [PassName] = []
        var workersDone = 0
        /// Passes running now that a worker may join (`Pass.shared`), each until one does.
        var sharing: [Int] = []
    }
    private let inner = Mutex(Inner())
    /// What zbar's scans of whole views take in this search.
    let pace = ZBarPace()
    /// Makes a payload's `Decoded` (a test slows it, to look in while it runs).
    private let classify: @Sendable (_ bytes: [UInt8], _ pass: PassName) -> Decoded

    init(classify: @escaping @Sendable (_ bytes: [UInt8], _ pass: PassName) -> Decoded = { Decoded(bytes: $0, pass: $1) }) {
        self.classify = classify
    }

    var stopped: Bool { inner.withLock { $0.stopped } }
    func stop() { inner.withLock { $0.stopped = true } }

    /// The next pass to take, and whether it was never taken before.
    func nextPass(below count: Int, ready: (Int) -> Bool) -> (index: Int, fresh: Bool)? {
        inner.withLock { state in
            if let n = state.putOff.firstIndex(where: ready) { return (state.putOff.remove(at: n), false) }
            if state.next < count {
                defer { state.next += 1 }
                return (state.next, true)
            }
            return state.putOff.isEmpty ? nil : (state.putOff.removeFirst(), false)
        }
    }

    /// Puts pass `index` off for later, unless no pass after it is left to take meanwhile.
    func putOff(_ index: Int, below count: Int) -> Bool {
        inner.withLock { state in
            guard state.next < count else { return false }
            state.putOff.append(index)
            return true
        }
    }

    /// Pass `index`, which shares its work, is running: a worker with nothing left may join it.
    func share(_ index: Int) { inner.withLock { $0.sharing.append(index) } }
    /// Pass `index` has ended (on the thread that took it).
    func stopSharing(_ index: Int) { inner.withLock { $0.sharing.removeAll { $0 == index } } }
    /// A running pass to join, each once; nil when none shares its work.
    func joinable() -> Int? { inner.withLock { $0.sharing.isEmpty ? nil : $0.sharing.removeFirst() } }

    /// Records the codes read, each unless the same payload was found before: a payload is
    /// classified (`Decoded`) the first time it is seen, outside the lock. A code's outline and
    /// its payload are recorded together, under one lock: the judging thread never sees the one
    /// without the other (`settled` would end the search before the payload it read is found).
    func report(_ read: [Sighting]) {
        let fresh = inner.withLock { state in read.filter { one in !state.found.contains { $0.bytes == one.bytes } } }
        let decoded = fresh.map { classify($0.bytes, $0.pass) }
        inner.withLock { state in
            for one in decoded where !state.found.contains(where: { $0.bytes == one.bytes }) { state.found.append(one) }
            for one in read where one.corners.count >= 3 && !state.outlines.contains(one.corners) {
                state.outlines.append(one.corners)
                state.newOutline = true
            }
        }
    }

    /// Runs `accept` over decodes not judged yet; true once one is accepted.
    func judge(_ accept: (Decoded) -> Bool) -> Bool {
        let (fresh, done) = inner.withLock { state -> ([Decoded], Bool) in
            defer { state.judged = state.found.count }
            return (Array(state.found[state.judged...]), state.accepted)
        }
        if done { return true }
        if let winner = fresh.first(where: accept) {
            // The accepted payload first, any others found so far after it.
            inner.withLock { state in
                state.accepted = true
                state.found.removeAll { $0.bytes == winner.bytes }
                state.found.insert(winner, at: 0)
            }
            return true
        }
        return false
    }

    func results() -> [Decoded] { inner.withLock { $0.found } }

    /// The outlines of the codes read, when one came since last asked; else nil.
    func freshOutlines() -> [[SIMD2<Double>]]? {
        inner.withLock { state in
            defer { state.newOutline = false }
            return state.newOutline ? state.outlines : nil
        }
    }

    func workerDone() { inner.withLock { $0.workersDone += 1 } }
    var workersDone: Int { inner.withLock { $0.workersDone } }

    /// Notes that a pass ran (was not skipped for want of evidence).
    func ran(_ pass: PassName) { inner.withLock { $0.ran.append(pass) } }
    /// The passes that ran, in the order they started.
    var passesRun: [PassName] { inner.withLock { $0.ran } }
}

/// What zbar took on the biggest whole view it scanned so far in one search, to foretell scans not started.
final class ZBarPace: Sendable {
    private let biggest = Mutex<(pixels: Int, took: Duration)?>(nil)

    /// How far past the budget a scan may end: what the biggest view's scan took.
    var allowance: Duration { biggest.withLock { $0?.took ?? .zero } }

    func record(pixels: Int, took: Duration) {
        biggest.withLock { if $0 == nil || pixels >= $0!.pixels { $0 = (pixels, took) } }
    }

    /// How long a scan of `pixels` will take, from the biggest view scanned so far (nil before any).
    func foretold(pixels: Int) -> Duration? {
        biggest.withLock { known in known.map { $0.took * (Double(pixels) / Double(max(1, $0.pixels))) } }
    }

    /// Whether a scan of `pixels` started `now` ends before `end`, give or take `allowance`.
    func fits(pixels: Int, from now: Duration, before end: Duration) -> Bool {
        guard let time = foretold(pixels: pixels) else { return true }
        return now + time <= end + allowance
    }
}
