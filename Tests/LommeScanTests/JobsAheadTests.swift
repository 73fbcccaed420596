import Dispatch
import Glibc
import LommeImages
import Synchronization
import Testing
@testable import LommeScan

/// A worker about to wait for a version of the picture the other worker is making takes a
/// job ahead instead (`ScanSubject.planAhead`): a version a later pass needs. Only a job
/// whose inputs are made and whose version nobody is making is taken, so a job never waits
/// (a thread waiting inside a version it is making could otherwise wait for itself).
@Suite("Scanner jobs ahead")
struct JobsAheadTests {
    static let tile = GrayImage(width: 2, height: 2, fill: 7)
    /// Long enough for a deadlock to show, far longer than any step here takes on any
    /// machine, however loaded (a guard against a hang, never a measure of speed).
    static var patience: DispatchTime { .now() + .seconds(600) }

    /// How many times a job ran.
    final class Runs: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Decodes handed over from another thread.
    final class Results: Sendable {
        private let found = Mutex<[Decoded]>([])
        func set(_ decoded: [Decoded]) { found.withLock { $0 = decoded } }
        var value: [Decoded] { found.withLock { $0 } }
    }

    /// A job making the picture `key`, counting its runs in `runs`.
    static func job(makes key: String, reads: [String] = [], runs: Runs) -> JobAhead {
        JobAhead(reads: { _ in reads.map { .picture($0) } }, makes: { _ in .picture(key) }) { s in
            runs.add()
            _ = s.memo(key) { tile }
        }
    }

    /// Another thread starts making "slow" and holds it until `release` is signalled; returns
    /// once it has claimed it.
    static func holdSlow(_ subject: ScanSubject, _ group: DispatchGroup, until release: DispatchSemaphore) {
        let claimed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) {
            _ = subject.memo("slow") {
                claimed.signal()
                release.wait()
                return tile
            }
        }
        claimed.wait()
    }

    /// One thread holds "slow" while another asks for it (and so may work ahead); "slow" is
    /// released once the picture `key` is made, or after ten minutes. Whether `key` was made
    /// while "slow" was held, and whether both threads then finished.
    static func waitForSlow(_ subject: ScanSubject, until key: String) -> (made: Bool, finished: Bool) {
        let group = DispatchGroup(), release = DispatchSemaphore(value: 0)
        holdSlow(subject, group, until: release)
        DispatchQueue.global().async(group: group) { _ = subject.memo("slow") { nil } }
        var waited = 0
        while subject.cached(key) == nil && waited < 600_000 {
            usleep(1000)
            waited += 1
        }
        let made = subject.cached(key) != nil
        release.signal()
        return (made, group.wait(timeout: patience) == .success)
    }

    @Test func aThreadWaitingForAnotherMakesTheNextVersionMeanwhile() {
        let subject = ScanSubject(image: Self.tile)
        let runs = Runs()
        subject.planAhead([Self.job(makes: "ahead", runs: runs)])
        let (madeWhileWaiting, finished) = Self.waitForSlow(subject, until: "ahead")
        #expect(finished)
        #expect(madeWhileWaiting)
        #expect(runs.value == 1)
    }

    @Test func aJobWhoseInputsAreNotMadeOrWhoseVersionIsBeingMadeWaits() {
        let subject = ScanSubject(image: Self.tile)
        let unready = Runs(), taken = Runs(), ready = Runs()
        subject.planAhead([
            Self.job(makes: "later", reads: ["missing"], runs: unready),
            Self.job(makes: "slow", runs: taken),
            Self.job(makes: "now", runs: ready),
        ])
        #expect(Self.waitForSlow(subject, until: "now").finished)
        // The one job it could do, it did; the others it left.
        #expect(ready.value == 1)
        #expect(unready.value == 0)
        #expect(taken.value == 0)
    }

    @Test func aJobReadingWhatItsThreadIsMakingIsNotTaken() {
        // The thread waiting for "slow" does so inside "outer", which it is making; a job that
        // reads "outer" taken there would wait for its own thread for ever.
        let subject = ScanSubject(image: Self.tile)
        let runs = Runs()
        subject.planAhead([JobAhead(reads: { _ in [.picture("outer")] }, makes: { _ in .picture("after") }) { s in
            runs.add()
            _ = s.memo("after") { s.memo("outer") { nil } }
        }])
        let group = DispatchGroup(), release = DispatchSemaphore(value: 0)
        Self.holdSlow(subject, group, until: release)
        let inside = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: group) {
            _ = subject.memo("outer") {
                inside.signal()
                return subject.memo("slow") { nil }
            }
        }
        inside.wait()
        usleep(50_000)
        release.signal()
        #expect(group.wait(timeout: Self.patience) == .success)
        #expect(runs.value == 0)
    }

    @Test func theViewsMadeAheadAreTheOnesThePassesScan() throws {
        // Memoised for the jobs ahead, the normalised and the negated sharpened views are the
        // same pixels the passes made for themselves before.
        let image = try ScanFixtures.image("dark-blurred.jpg")
        let subject = ScanSubject(image: image)
        let working = try #require(Pass.working(subject))
        #expect(Pass.normalized(subject) == working.locallyNormalized(radius: Pass.localRadius(working, divisor: Pass.middleWindow)))
        #expect(Pass.sharpenedNegated(subject)
            == Pass.negated(subject, "working", working).sharpened(radius: Pass.screenSharpenRadius, amount: Pass.screenSharpenAmount))
    }

    @Test(arguments: ["unlined-rows.jpg", "dark-blurred.jpg", "steep.jpg"])
    func twoWorkersReadWhatOneReads(fixture: String) throws {
        // With the jobs ahead planned (two workers) and without (one), the same payloads.
        let image = try ScanFixtures.image(fixture)
        let one = Scanner.search(ScanSubject(image: image), options: ScanOptions(deadline: nil, parallel: false),
                                 accept: { _ in false }).results()
        // On a thread of its own, so that a deadlock fails the test rather than hanging it.
        let two = Results(), group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            two.set(Scanner.search(ScanSubject(image: image), options: ScanOptions(deadline: nil, parallel: true),
                                   accept: { _ in false }).results())
        }
        #expect(group.wait(timeout: Self.patience) == .success)
        #expect(!one.isEmpty)
        #expect(Set(two.value.map(\.bytes)) == Set(one.map(\.bytes)))
    }
}
