import Dispatch
import LommeImages
import Synchronization

/// A version a thread waiting for another may make ahead of its turn (`ScanSubject.planAhead`).
struct JobAhead: Sendable {
    /// The versions it reads (all must be made before it is taken) and the one it makes.
    let reads: @Sendable (ScanSubject) -> [ScanSubject.Version]
    let makes: @Sendable (ScanSubject) -> ScanSubject.Version
    let make: @Sendable (ScanSubject) -> Void
}

/// One picture being scanned and the versions of it the passes ask for, made once and shared.
final class ScanSubject: Sendable {
    /// Width and height of the picture at full resolution.
    let fullWidth: Int
    let fullHeight: Int
    /// Makes the picture at 1/`reduce` of full size or larger (1, 2, 4 or 8), as cheaply as
    /// the format allows: JPEGs through libjpeg's DCT scaling.
    private let loader: @Sendable (Int) -> GrayImage?
    private let made = Mutex<[String: Made]>([:])
    /// Versions a thread may make while it waits for one another thread is making (`planAhead`), each once, in order.
    private let ahead = Mutex<[JobAhead]>([])

    /// One version: made once, then read by any thread.
    private final class Made: @unchecked Sendable {
        let ready = DispatchSemaphore(value: 0)
        var value: Any?
        var finished = false
    }

    init(image: GrayImage) {
        fullWidth = image.width
        fullHeight = image.height
        loader = { _ in image }
    }

    init(fullWidth: Int, fullHeight: Int, loader: @escaping @Sendable (Int) -> GrayImage?) {
        self.fullWidth = fullWidth
        self.fullHeight = fullHeight
        self.loader = loader
    }

    var fullLongSide: Int { max(fullWidth, fullHeight) }

    /// libjpeg decodes at 1/1, 1/2, 1/4 or 1/8 of full size (other formats at full size).
    static let largestReduction = 8
    /// A decode down to this share of the size wanted is taken rather than shrinking a larger one.
    static let smallestShare = (numerator: 3, denominator: 4)

    /// The reduction at which a picture `long` pixels long decodes closest to `wanted`.
    static func reduction(long: Int, wanted: Int) -> Int {
        var reduce = 1
        while reduce < largestReduction
            && long * smallestShare.denominator / (reduce * 2) >= wanted * smallestShare.numerator { reduce *= 2 }
        return reduce
    }

    /// A version made by `make` once, under `key`.
    func memo(_ key: String, _ make: () -> GrayImage?) -> GrayImage? {
        once(Self.pictureKey(key), make) as? GrayImage
    }

    /// Pictures and finder patterns are stored under keys of their own kind.
    private static func pictureKey(_ key: String) -> String { "picture " + key }
    private static func patternsKey(_ key: String) -> String { "patterns " + key }

    /// Several sets of finder patterns found together by `find` once, under `key`.
    func memoPatternSets(_ key: String, _ find: () -> [(dark: [FinderPattern], light: [FinderPattern])])
        -> [(dark: [FinderPattern], light: [FinderPattern])] {
        once(Self.patternsKey(key), find) as? [(dark: [FinderPattern], light: [FinderPattern])] ?? []
    }

    /// Finder patterns found by `find` once, under `key` (a set of one).
    func memoPatterns(_ key: String, _ find: () -> (dark: [FinderPattern], light: [FinderPattern]))
        -> (dark: [FinderPattern], light: [FinderPattern]) {
        memoPatternSets(key) { [find()] }.first ?? ([], [])
    }

    /// Any other value made by `make` once, under `key` (a search's triples, whether a code was located).
    func memoValue<V>(_ key: String, _ make: () -> V) -> V? {
        once("value " + key, make) as? V
    }

    /// The version stored under `key`, if one was made (for tests).
    func cached(_ key: String) -> GrayImage? {
        guard let entry = made.withLock({ $0[Self.pictureKey(key)] }) else { return nil }
        entry.ready.wait()
        defer { entry.ready.signal() }
        return entry.value as? GrayImage
    }

    /// `make`'s result under `key`: made by the first thread to ask.
    private func once<V>(_ key: String, _ make: () -> V?) -> Any? {
        let (entry, mine) = made.withLock { store -> (Made, Bool) in
            if let entry = store[key] { return (entry, false) }
            let entry = Made()
            store[key] = entry
            return (entry, true)
        }
        if mine {
            entry.value = make()
            made.withLock { _ in entry.finished = true }
            entry.ready.signal()
            return entry.value
        }
        // Rather than idle, make versions needed later while the other thread finishes this one.
        while !made.withLock({ _ in entry.finished }), let job = nextJobAhead() { job.make(self) }
        entry.ready.wait()
        entry.ready.signal()  // for the next reader
        return entry.value
    }

    /// Versions to make ahead of their turn.
    func planAhead(_ jobs: [JobAhead]) {
        ahead.withLock { $0 = jobs }
    }

    /// A version, for the jobs ahead: a picture (`memo`) or finder patterns (`memoPatternSets`).
    enum Version: Sendable {
        case picture(String)
        case patterns(String)

        var key: String {
            switch self {
            case .picture(let key): return ScanSubject.pictureKey(key)
            case .patterns(let key): return ScanSubject.patternsKey(key)
            }
        }
    }

    private func nextJobAhead() -> JobAhead? {
        ahead.withLock { jobs in
            made.withLock { store in
                guard let n = jobs.firstIndex(where: { job in
                    store[job.makes(self).key] == nil && job.reads(self).allSatisfy { store[$0.key]?.finished == true }
                }) else { return nil }
                return jobs.remove(at: n)
            }
        }
    }

    /// Whether another thread is finding the finder patterns under `key` now (asking would wait).
    func patternsBeingFound(_ key: String) -> Bool {
        made.withLock { store in store[Self.patternsKey(key)].map { !$0.finished } ?? false }
    }

    /// The picture at the largest resolution whose long side is at most `side` (the full picture if smaller).
    func view(longSide side: Int) -> GrayImage? {
        let target = min(side, fullLongSide)
        return memo(viewKey(longSide: side)) {
            let reduce = Self.reduction(long: fullLongSide, wanted: target)
            guard let source = memo("load\(reduce)", { loader(reduce) }) else { return nil }
            return source.fitting(longSide: target)
        }
    }

    /// The memo key of `view(longSide:)`.
    func viewKey(longSide side: Int) -> String { "view\(min(side, fullLongSide))" }

    /// The picture at the largest resolution at which a module of `module` full-size pixels
    /// is still at least `minimum` pixels wide, with the factor from full-size coordinates.
    func view(forModule module: Double, minimum: Double) -> (GrayImage, Double)? {
        var reduce = 1
        while reduce < Self.largestReduction && module / Double(reduce * 2) >= minimum { reduce *= 2 }
        guard let source = memo("load\(reduce)", { loader(reduce) }) else { return nil }
        return (source, Double(source.width) / Double(fullWidth))
    }
}
