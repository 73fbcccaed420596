import LommeImages
import Synchronization
import Testing
@testable import LommeScan

/// A clock for the scanner's deadline that the test sets: time passes when the test says,
/// never because the machine is slow.
final class TestClock: Sendable {
    private let time: Mutex<Duration>
    private let reads = Mutex(0)
    /// Once read this many times, the clock shows `then` (nil: never by itself).
    private let jump: (after: Int, then: Duration)?

    init(_ start: Duration = .zero, jump: (after: Int, then: Duration)? = nil) {
        time = Mutex(start)
        self.jump = jump
    }

    /// A clock at zero for its first reading (the one a scan sets its deadline by), at `then` after.
    static func jumping(to then: Duration) -> TestClock { TestClock(jump: (1, then)) }

    var now: Duration {
        let count = reads.withLock { $0 += 1; return $0 }
        if let jump, count > jump.after { set(jump.then) }
        return time.withLock { $0 }
    }

    func set(_ value: Duration) { time.withLock { $0 = value } }

    var scanClock: ScanClock { ScanClock { [self] in now } }
}

/// Every pass stops at the scan's deadline: once `Trial.isOver` answers true, a pass hands
/// zbar nothing more and returns, whatever the picture holds. The picture here is made to
/// keep the searching passes busy: nine finder patterns and no code, so every triple of
/// them is a candidate that samples, binarises and scans without ever decoding.
@Suite("Scanner deadline")
struct DeadlineTests {
    /// Nine finder patterns (6 px a module) on a 3 × 3 grid, light ground, no code.
    static let finders: GrayImage = {
        var image = GrayImage(width: 640, height: 640, fill: 225)
        for row in 0..<3 {
            for column in 0..<3 {
                let left = 50 + column * 230, top = 50 + row * 230
                for y in 0..<42 {
                    for x in 0..<42 where max(abs(x / 6 - 3), abs(y / 6 - 3)) != 2 {
                        image[left + x, top + y] = 25
                    }
                }
            }
        }
        return image
    }()

    static let pictures: [(String, GrayImage)] = [
        ("nine finders", finders),
        ("nine light finders", finders.inverted()),
        ("two codes", (try? ImageLoader.load(path: ScanFixtures.path("two.png"))) ?? GrayImage(width: 1, height: 1, fill: 0)),
    ]

    /// What one pass did: zbar scans before and after the deadline, polls after it.
    struct Run {
        var scansBefore = 0
        var scansAfter = 0
        var pollsAfter = 0
    }

    /// Runs `pass` alone on `image`; the deadline comes at the `overAt`-th poll (nil: never).
    static func run(_ pass: Pass, on image: GrayImage, overAt: Int?) -> Run {
        let scanner = ZBarScanner()
        let subject = ScanSubject(image: image)
        var polls = 0
        var result = Run()
        // Over at poll 0: the deadline has passed before the pass starts, asked or not.
        var overSince: Int? = overAt == 0 ? 0 : nil
        let trial = Trial(scanner: scanner, pass: pass.name, lineSpacing: pass.lineSpacing, isOver: {
            defer { polls += 1 }
            guard let overAt, polls >= overAt else { return false }
            if overSince == nil {
                overSince = polls
                result.scansBefore = scanner.scans
            }
            result.pollsAfter += 1
            return true
        }, report: { _ in })
        pass.run(subject, trial)
        if overSince == nil { result.scansBefore = scanner.scans } else { result.scansAfter = scanner.scans - result.scansBefore }
        return result
    }

    @Test(arguments: PassName.allCases)
    func aPassHandsZbarNothingOnceTheDeadlineHasPassed(name: PassName) throws {
        let pass = try #require(Pass.named(name))
        for (label, image) in Self.pictures {
            // Over from the first poll, and over part-way: nothing more reaches zbar, and the
            // pass returns at once (a nested search may ask once per level on its way out).
            for overAt in [0, 1, 3, 12] {
                let bounded = Self.run(pass, on: image, overAt: overAt)
                #expect(bounded.scansAfter == 0, "\(name) on \(label): \(bounded.scansAfter) scans after the deadline (over at poll \(overAt))")
                #expect(bounded.pollsAfter <= 3, "\(name) on \(label): went on asking \(bounded.pollsAfter) times after the deadline")
            }
        }
    }

    /// The test above is not vacuous: before the deadline the whole-picture passes scan
    /// their pictures, and the searching passes go on scanning candidates on the
    /// finders-only picture (here until the 60th poll).
    @Test func beforeTheDeadlineThePassesDoScan() throws {
        for name in [PassName.plain, .adaptive, .regionsBin, .normalized] {
            let run = Self.run(try #require(Pass.named(name)), on: Self.finders, overAt: nil)
            #expect(run.scansBefore >= 1, "\(name) scanned nothing")
        }
        let grid = Self.run(try #require(Pass.named(.grid)), on: Self.finders, overAt: 60)
        #expect(grid.scansBefore >= 10, "the grid pass tried only \(grid.scansBefore) candidates")
        let inverted = Self.run(try #require(Pass.named(.gridInv)), on: Self.finders.inverted(), overAt: 60)
        #expect(inverted.scansBefore >= 10, "the negated grid pass tried only \(inverted.scansBefore) candidates")
    }

    /// A pass running when the deadline passes stops there, and no pass starts after it: the
    /// deadline passes (on the test's clock) as the grid sampler reports the first of the two
    /// codes it reads, one candidate after the other, in a picture of two codes. It reports
    /// no second code, and `plain` after it never runs; with no deadline both codes are read
    /// and both passes run (the search is not let end when both are read, `settles`). Neither is
    /// a pass the scanner runs whatever the deadline says (`mandatory` 0), and one thread takes
    /// them in order.
    @Test func aPassRunningWhenTheDeadlinePassesStopsThere() throws {
        let image = try ImageLoader.load(path: ScanFixtures.path("two.png"))
        let clock = TestClock()
        var options = ScanOptions(deadline: .seconds(1), parallel: false, passes: [.grid, .plain])
        options.mandatory = 0
        options.settles = false
        options.clock = clock.scanClock
        let stopped = Scanner.search(ScanSubject(image: image), options: options, accept: { _ in
            clock.set(.seconds(3600))
            return false
        })
        #expect(stopped.results().map(\.text) == [ScanFixtures.payload] || stopped.results().map(\.text) == ["second code"],
                "the grid pass went on past the deadline: \(stopped.results().map(\.text))")
        #expect(stopped.passesRun == [.grid], "\(stopped.passesRun)")
        clock.set(.zero)
        options.deadline = nil
        let unbounded = Scanner.search(ScanSubject(image: image), options: options, accept: { _ in
            clock.set(.seconds(3600))
            return false
        })
        #expect(Set(unbounded.results().map(\.text)) == [ScanFixtures.payload, "second code"])
        #expect(unbounded.passesRun == [.grid, .plain])
        #expect(unbounded.results().allSatisfy { $0.pass == .grid }, "the test needs the grid pass to read both codes")
    }

    /// zbar cannot be stopped once it scans: a pass past the first ones does not start a
    /// whole view's scan that what zbar took so far says would end past the budget, and an
    /// enlarged view is not even made (`Trial.mayStart`, `ZBarPace`).
    @Test func zbarIsNotStartedOnAViewThatWouldEndPastTheBudget() throws {
        let clean = try ImageLoader.load(path: ScanFixtures.path("clean.png"))
        for name in [PassName.plain, .up2, .up3, .adaptive] {
            let pass = try #require(Pass.named(name))
            for allowed in [false, true] {
                let scanner = ZBarScanner()
                var asked: [Int] = [], told: [Int] = []
                var trial = Trial(scanner: scanner, pass: name, lineSpacing: 1, isOver: { false }, report: { _ in })
                trial.mayStart = { asked.append($0); return allowed }
                trial.scanned = { pixels, _ in told.append(pixels) }
                pass.run(ScanSubject(image: clean), trial)
                #expect(scanner.scans == told.count && told.count == (allowed ? 1 : 0), "\(name): \(scanner.scans) scans, allowed \(allowed)")
                // Refused, it asked once: an enlarged view asks before it is made.
                if !allowed { #expect(asked.count == 1, "\(name) asked \(asked.count) times") }
                // Allowed, it scanned what it asked for (an enlarged view foretold to the pixel).
                if allowed { #expect(!asked.isEmpty && Set(asked) == Set(told), "\(name): asked \(asked), scanned \(told)") }
            }
        }
        // The enlarged views are foretold to the pixel.
        for (width, height) in [(147, 147), (41, 97), (640, 480), (333, 201)] {
            let image = GrayImage(width: width, height: height, fill: 200)
            for factor in [2.0, 3.0] {
                #expect(Pass.enlargedPixels(image, by: factor) == Pass.enlarged(image, by: factor).pixels.count, "\(width)×\(height) ×\(factor)")
            }
        }
    }

    /// The pace foretells a scan from the biggest view scanned so far (a small crop's scan is
    /// mostly zbar's fixed cost), lets anything start before it knows, and lets a scan end
    /// past the budget by what that biggest scan took: a view no bigger starts while there is
    /// time left, a bigger one must fit.
    @Test func zbarsPaceForetellsFromTheBiggestViewScanned() {
        let pace = ZBarPace(), now = Duration.seconds(100)
        #expect(pace.fits(pixels: 10_000_000, from: now, before: now))
        pace.record(pixels: 100_000, took: .milliseconds(5))
        pace.record(pixels: 1_000, took: .milliseconds(2))
        let foretold = pace.foretold(pixels: 400_000) ?? .zero
        #expect(foretold > .milliseconds(19) && foretold < .milliseconds(21))
        #expect(pace.allowance == .milliseconds(5))
        #expect(pace.fits(pixels: 100_000, from: now, before: now))
        #expect(pace.fits(pixels: 400_000, from: now, before: now + .milliseconds(16)))
        #expect(!pace.fits(pixels: 400_000, from: now, before: now + .milliseconds(14)))
        pace.record(pixels: 200_000, took: .milliseconds(20))
        #expect(pace.fits(pixels: 400_000, from: now, before: now + .milliseconds(21)))
        #expect(!pace.fits(pixels: 400_000, from: now, before: now + .milliseconds(19)))
    }
}
