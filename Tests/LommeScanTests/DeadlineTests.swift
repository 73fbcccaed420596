import LommeImages
import Testing
@testable import LommeScan

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

    @Test(arguments: Pass.catalogue.map(\.name))
    func aPassHandsZbarNothingOnceTheDeadlineHasPassed(name: String) throws {
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
        for name in ["plain", "adaptive", "regions-bin", "normalized"] {
            let run = Self.run(try #require(Pass.named(name)), on: Self.finders, overAt: nil)
            #expect(run.scansBefore >= 1, "\(name) scanned nothing")
        }
        let grid = Self.run(try #require(Pass.named("grid")), on: Self.finders, overAt: 60)
        #expect(grid.scansBefore >= 10, "the grid pass tried only \(grid.scansBefore) candidates")
        let inverted = Self.run(try #require(Pass.named("grid-inv")), on: Self.finders.inverted(), overAt: 60)
        #expect(inverted.scansBefore >= 10, "the negated grid pass tried only \(inverted.scansBefore) candidates")
    }
}
