import Glibc
import LommeCore
import LommeImages
@testable import LommeScan
import LommeTestSupport
import Testing

/// The fixtures under fixtures/scan/ are made by `bench/make-photos --fixtures`; each is
/// built so that one kind of pass is needed (and the plain pass is not enough).
enum ScanFixtures {
    static let root: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/LommeScanTests/ScannerTests.swift
        return parts.joined(separator: "/")
    }()

    static func path(_ name: String) -> String { root + "/fixtures/scan/" + name }

    static let payload: String = {
        let bytes = (try? ImageLoader.read(path: path("payload.txt"))) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }()

    static func image(_ name: String) throws -> GrayImage {
        try ImageLoader.load(path: path(name))
    }

    /// The shared no-QR photos (never copied into the project): ../shared/corpus/no-qr.
    static let noQR: String? = {
        for candidate in [root + "/../shared/corpus/no-qr", "/work/shared/corpus/no-qr"] where access(candidate, R_OK) == 0 {
            return candidate
        }
        return nil
    }()

    /// The whole pipeline with no deadline: every pass runs, however slow the build or the
    /// machine (a test's verdict must not depend on its speed).
    static let slowBuild = ScanOptions(deadline: nil)

    static func only(_ pass: PassName) throws -> ScanOptions {
        ScanOptions(deadline: nil, parallel: false, passes: [pass])
    }
}

@Suite("Scanner")
struct ScannerTests {
    typealias F = ScanFixtures

    // MARK: - Each pass on the fixture made for it

    @Test func plainPassReadsACleanCode() throws {
        let found = Scanner.scan(image: try F.image("clean.png"), options: try F.only(.plain))
        #expect(found.map(\.text) == [F.payload])
        #expect(found.first?.pass == .plain)
    }

    @Test(arguments: [
        ("inverted.png", PassName.inverted),
        ("tiny.png", PassName.up2),
        ("uneven.png", PassName.normalized),
        ("blurred.jpg", PassName.adaptive),
        ("region.png", PassName.regionsBin),
        ("dark-blurred.jpg", PassName.sharpenedInv),
        ("steep.jpg", PassName.gridFine),
        ("tilted.jpg", PassName.grid),
    ])
    func passReadsWhatThePlainPassCannot(fixture: String, pass: PassName) throws {
        let image = try F.image(fixture)
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty, "plain pass should fail on \(fixture)")
        let found = Scanner.scan(image: image, options: try F.only(pass))
        #expect(found.map(\.text) == [F.payload], "\(pass) on \(fixture)")
        #expect(found.first?.pass == pass)
    }

    /// A big code seen from low down: its finders are about 2.5 times wider than tall, more
    /// than the working view's usual search admits; the grid pass also searches with the
    /// steep bound, and no other pass (zbar in any view) reads it.
    @Test func theGridPassReadsACodeSeenFromLowDown() throws {
        let image = try F.image("tilted.jpg")
        for pass in ScanPlan.photo.passes where pass != .grid {
            #expect(Scanner.scan(image: image, options: try F.only(pass)).isEmpty, "\(pass) should fail on tilted.jpg")
        }
        let subject = ScanSubject(image: image)
        let usual = Pass.workingPatterns(subject, divisor: Pass.wideWindow, inverted: false)
        let steep = Pass.workingSteepPatterns(subject, divisor: Pass.wideWindow, inverted: false)
        #expect(steep.count > usual.count, "the steep bound admits the flattened finders")
    }

    /// The grid sampler runs beside `plain`, whatever the budget: a code only it reads is
    /// read even when the budget is spent before the first pass ends (a loaded machine), on
    /// two threads as on one. Third in the order, it was skipped then.
    @Test(arguments: [false, true])
    func aCodeOnlyTheGridSamplerReadsIsReadWhenTheBudgetIsSpent(parallel: Bool) throws {
        let spent = ScanOptions(deadline: .zero, parallel: parallel)
        let found = Scanner.scan(image: try F.image("tilted.jpg"), options: spent, accept: { $0.text == F.payload })
        #expect(found.map(\.text) == [F.payload])
        #expect(found.first?.pass == .grid)
    }

    @Test func blurredLightOnDarkNeedsMoreThanInversion() throws {
        let image = try F.image("dark-blurred.jpg")
        #expect(Scanner.scan(image: image, options: try F.only(.inverted)).isEmpty)
    }

    @Test(arguments: ["clean.png", "inverted.png", "tiny.png", "uneven.png", "blurred.jpg", "region.png", "dark-blurred.jpg",
                      "steep.jpg", "tilted.jpg"])
    func wholePipelineReadsEveryFixture(fixture: String) throws {
        // A generous budget: a debug build on a busy machine is many times slower than release.
        let found = try Scanner.scan(path: F.path(fixture), options: F.slowBuild, accept: { $0.text == F.payload })
        #expect(found.first?.text == F.payload)
    }

    /// Local normalisation runs on pictures up to a 1280×720 frame's pixels: the clean code
    /// enlarged to 900 pixels square it reads, to 1000 (over 921 600 pixels) it leaves.
    @Test func normalisationIsForPicturesNoBiggerThanAFrame() throws {
        let clean = try F.image("clean.png")
        for (side, runs) in [(900, true), (1000, false)] {
            let image = clean.scaled(by: Double(side) / Double(clean.width))
            #expect(Pass.normalizes(ScanSubject(image: image)) == runs, "\(side)")
            let found = Scanner.scan(image: image, options: try F.only(.normalized)).map(\.text)
            #expect(found == (runs ? [F.payload] : []), "\(side)")
        }
        #expect(Pass.normalizes(ScanSubject(image: GrayImage(width: 1280, height: 720))))
        #expect(!Pass.normalizes(ScanSubject(image: GrayImage(width: 1152, height: 864))), "a 1 MP photo")
    }

    @Test func everyFixtureReadsAtEveryQuarterTurn() throws {
        for name in ["clean.png", "inverted.png", "tiny.png", "blurred.jpg"] {
            let image = try F.image(name)
            for turns in 1...3 {
                let found = Scanner.scan(image: image.rotated(by: turns), options: F.slowBuild, accept: { $0.text == F.payload })
                #expect(found.first?.text == F.payload, "\(name) turned \(turns * 90)°")
            }
        }
    }

    // MARK: - Accepting, several codes, no code

    @Test func twoDifferentCodesAreBothReported() throws {
        let found = try Scanner.scan(path: F.path("two.png"), options: F.slowBuild)
        #expect(Set(found.map(\.text)) == [F.payload, "second code"])
    }

    @Test func anAcceptedDecodeComesFirstAndEndsTheSearch() throws {
        let found = try Scanner.scan(path: F.path("two.png"), options: F.slowBuild, accept: { $0.text == "second code" })
        #expect(found.first?.text == "second code")
        // Both codes are plain; which worker reports first is not fixed, so only the text is.
    }

    @Test func decodedCarriesRawBytesAndText() {
        let decoded = Decoded(bytes: Array("blåbær".utf8), pass: .plain)
        #expect(decoded.text == "blåbær")
        #expect(decoded.bytes.count == 8)
        #expect(decoded.kind == .other)
    }

    /// A code's text is decoded and its kind decided once, by the scanner: `accept` and the
    /// caller get the classified payload (a plain config, parsed), not bytes to look at again.
    @Test func theScannerHandsOnTheClassifiedPayload() throws {
        var judged: [CodeKind] = []
        let found = try Scanner.scan(path: F.path("clean.png"), options: try F.only(.plain)) { decoded in
            judged.append(decoded.kind)
            return decoded.kind.isImportable
        }
        #expect(judged == [.plain])
        guard case .plain(let config?, _) = found.first?.code.payload else {
            Issue.record("the fixture's config is not handed on parsed: \(found.map(\.kind))")
            return
        }
        #expect(config.clientId == "fixture")
    }

    @Test func blankPictureHasNoCode() {
        #expect(Scanner.scan(image: GrayImage(width: 200, height: 150, fill: 200), options: F.slowBuild).isEmpty)
        #expect(Scanner.scan(image: GrayImage(width: 0, height: 0), options: F.slowBuild).isEmpty)
    }

    @Test(.enabled(if: ScanFixtures.noQR != nil, "needs ../shared/corpus/no-qr"))
    func noFalseDecodeOnPhotosWithoutACode() throws {
        let folder = F.noQR!
        guard let directory = opendir(folder) else { Issue.record("cannot list \(folder)"); return }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".png") || name.hasSuffix(".jpg") { names.append(name) }
        }
        #expect(!names.isEmpty)
        for name in names.sorted() {
            // Every pass, with no deadline: what a pass finds must not depend on how many
            // passes a machine gets through (the benchmark runs every pass at every rotation).
            let found = Scanner.scan(image: try ImageLoader.load(path: folder + "/" + name), options: F.slowBuild)
            #expect(found.isEmpty, "false decode in no-qr/\(name): \(found.map(\.text))")
        }
    }

    @Test(.enabled(if: ScanFixtures.noQR != nil, "needs ../shared/corpus/no-qr"))
    func pathWithoutACodeThrowsExitCodeTwo() throws {
        let path = F.noQR! + "/01.png"
        #expect(throws: LommeError.self) { try Scanner.scan(path: path, options: F.slowBuild) }
        do {
            _ = try Scanner.scan(path: path, options: F.slowBuild)
        } catch {
            #expect(error.code == .unreadableImage)
            #expect(error.message.hasPrefix("no QR code found in "))
        }
    }

    @Test func unreadableFileThrowsExitCodeTwo() {
        do {
            _ = try Scanner.scan(path: F.path("payload.txt"))
            Issue.record("a text file should not scan")
        } catch {
            #expect(error.code == .unreadableImage)
        }
    }

    /// The deadline bounds the search, on the scan's own clock: here a test's, which jumps an
    /// hour ahead once the scan has read it to set its deadline, so the deadline has passed
    /// before any pass starts however fast or slow the machine is. Only the first two passes
    /// run (they always do); with no deadline the others the picture feeds run too (the code
    /// is never accepted, and the search is not let end when its code is read, `settles`, so
    /// nothing ends it early).
    @Test(arguments: [false, true])
    func deadlineBoundsTheSearch(parallel: Bool) throws {
        let image = try F.image("clean.png")
        var options = ScanOptions(deadline: .milliseconds(50), parallel: parallel)
        options.settles = false
        options.clock = TestClock.jumping(to: .seconds(3600)).scanClock
        let bounded = Scanner.search(ScanSubject(image: image), options: options, accept: { _ in false })
        #expect(Set(bounded.passesRun) == [.grid, .plain], "\(bounded.passesRun)")
        options.deadline = nil
        let unbounded = Scanner.search(ScanSubject(image: image), options: options, accept: { _ in false })
        #expect(unbounded.passesRun.count > 4, "\(unbounded.passesRun)")
    }

    // MARK: - Image operations

    @Test func shrinkingAveragesBlocks() {
        let image = GrayImage(width: 4, height: 2, pixels: [0, 100, 200, 200, 100, 200, 200, 200])
        let small = image.shrunk(by: 2)
        #expect(small == GrayImage(width: 2, height: 1, pixels: [100, 200]))
    }

    @Test func scalingAndPaddingGiveTheExpectedSizes() {
        let image = GrayImage(width: 100, height: 50, fill: 10)
        #expect(image.scaled(by: 2).width == 200)
        #expect(image.scaled(by: 0.25).height == 12 || image.scaled(by: 0.25).height == 13)
        #expect(image.fitting(longSide: 40).width == 40)
        let padded = image.padded(5)
        #expect(padded.width == 110 && padded.height == 60 && padded[0, 0] == 255 && padded[5, 5] == 10)
        #expect(image.scaled(by: 3).pixels.allSatisfy { $0 == 10 })
    }

    @Test func otsuSplitsTwoLevels() {
        let image = GrayImage(width: 10, height: 1, pixels: [20, 22, 25, 21, 24, 200, 210, 205, 199, 202])
        let t = image.otsuThreshold()
        #expect(t > 25 && t <= 199)
        #expect(image.otsuBinarized().pixels == [0, 0, 0, 0, 0, 255, 255, 255, 255, 255])
    }

    @Test func binarisationsGiveTwoLevels() throws {
        let image = try F.image("uneven.png")
        for binary in [image.adaptiveBinarized(radius: 8), image.otsuBinarized()] {
            #expect(binary.pixels.allSatisfy { $0 == 0 || $0 == 255 })
            #expect(binary.pixels.contains(0) && binary.pixels.contains(255))
        }
    }

    @Test func contrastOperations() {
        let image = GrayImage(width: 4, height: 1, pixels: [100, 110, 120, 130])
        #expect(image.inverted().pixels == [155, 145, 135, 125])
        let flat = GrayImage(width: 20, height: 20, fill: 90)
        #expect(flat.locallyNormalized(radius: 3).pixels.allSatisfy { $0 == 128 })
        #expect(flat.sharpened().pixels.allSatisfy { $0 == 90 })
    }

    @Test func finderPatternsOfACleanCodeAreFound() throws {
        let image = try F.image("clean.png")
        let patterns = FinderSearch.patterns(in: image.otsuBinarized())
        #expect(patterns.count >= 3)
        let regions = FinderSearch.regions(from: patterns, width: image.width, height: image.height)
        #expect(regions.first?.finders == 3)
        if let module = regions.first?.module { #expect(abs(module - 3) < 0.6) }
    }
}

/// The grid sampler: perspective maps, module sampling, and the pass that redraws a code.
@Suite("Scanner grid sampler")
struct GridSamplerTests {
    typealias F = ScanFixtures

    /// Three finders of a big code seen from low down (where `tilted/04` has them) meet at
    /// 131°: still a triple. At 145° they are not.
    @Test func finderLegsMeetingFarFromSquareStillMakeATriple() throws {
        let blank = GrayImage(width: 1152, height: 864, fill: 255)
        func triples(_ corners: [(Double, Double)]) -> [FinderTriple] {
            FinderSearch.triples(from: corners.map { FinderPattern(x: $0.0, y: $0.1, module: 6, hits: 10) }, in: blank)
        }
        let found = try #require(triples([(660, 409), (837, 123), (776, 780)]).first)
        #expect(abs(found.topLeft.x - 660) < 1e-9 && abs(found.topLeft.y - 409) < 1e-9)
        // The same legs opened to 145° about the top-left corner.
        let turn = 14.0 * Double.pi / 180, dx = 837.0 - 660, dy = 123.0 - 409
        let opened = (660 + dx * cos(-turn) - dy * sin(-turn), 409 + dx * sin(-turn) + dy * cos(-turn))
        #expect(triples([(660, 409), opened, (776, 780)]).isEmpty)
    }

    /// A code seen so steeply (foreshortened.jpg, the fresh set `tilted-b`'s photo 05, tune
    /// half) that its near leg (523 pixels) is longer than the diagonal between the other two
    /// finders (509): the corner opposite the longest side is the far finder. The corner
    /// opposite the next longest is tried too, right after it, and reads.
    @Test func aLegLongerThanTheDiagonalStillMakesTheRightCorner() throws {
        let far = FinderPattern(x: 531.8, y: 774.8, module: 6.07, hits: 14)
        let near = [FinderPattern(x: 694.8, y: 292.6, module: 11.16, hits: 33),
                    FinderPattern(x: 286.2, y: 618.9, module: 11.8, hits: 20)]
        let choices = FinderSearch.cornerChoices(near[0], near[1], far)
        #expect(choices.map(\.corner) == [far, near[1]])
        let blank = GrayImage(width: 1152, height: 864, fill: 255)
        let triples = FinderSearch.triples(from: [near[0], near[1], far], in: blank)
        #expect(triples.map(\.topLeft.x) == [far.x, near[1].x])
        // A square corner has one choice.
        let square = [(100.0, 100.0), (400.0, 100.0), (100.0, 400.0)].map { FinderPattern(x: $0.0, y: $0.1, module: 6, hits: 10) }
        #expect(FinderSearch.cornerChoices(square[0], square[1], square[2]).map(\.corner) == [square[0]])

        let image = try F.image("foreshortened.jpg")
        let expected = String(decoding: try ImageLoader.read(path: F.path("foreshortened.txt")), as: UTF8.self)
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty)
        #expect(Scanner.scan(image: image, options: try F.only(.gridInv)).map(\.text) == [expected])
    }

    /// A terminal rendering whose cells are twice as tall as wide, seen a little from the side
    /// (long-legged.jpg, the fresh set `e-easy`'s photo 108, tune half): the leg down is 2.35
    /// times the leg across. Such legs still make a triple; legs three times apart do not.
    @Test func legsTwiceAndAThirdApartStillMakeATriple() throws {
        let blank = GrayImage(width: 1008, height: 756, fill: 255)
        func triples(down: Double) -> [FinderTriple] {
            let corners = [(704.0, 324.0, 2.3), (793.0, 318.0, 2.2), (706.0, 324.0 + down, 3.1)]
            return FinderSearch.triples(from: corners.map { FinderPattern(x: $0.0, y: $0.1, module: $0.2, hits: 6) }, in: blank)
        }
        #expect(triples(down: 209).map(\.topLeft.x).contains(704))
        #expect(triples(down: 270).isEmpty)

        let image = try F.image("long-legged.jpg")
        let expected = String(decoding: try ImageLoader.read(path: F.path("long-legged.txt")), as: UTF8.self)
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty)
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [expected])
    }

    @Test func homographyMapsTheFourPointsItWasMadeFrom() throws {
        let from = [(x: 0.0, y: 0.0), (x: 10.0, y: 0.0), (x: 10.0, y: 10.0), (x: 0.0, y: 10.0)]
        let to = [(x: 5.0, y: 7.0), (x: 40.0, y: 2.0), (x: 52.0, y: 61.0), (x: 1.0, y: 33.0)]
        let h = try #require(Homography(from: from, to: to))
        for (a, b) in zip(from, to) {
            let p = h.map(a.x, a.y)
            #expect(abs(p.x - b.x) < 1e-9 && abs(p.y - b.y) < 1e-9)
        }
        // Straight lines stay straight: the middle of the top edge lies on the mapped top edge.
        let mid = h.map(5, 0)
        let cross = (to[1].x - to[0].x) * (mid.y - to[0].y) - (to[1].y - to[0].y) * (mid.x - to[0].x)
        #expect(abs(cross) < 1e-6)
        // Three points on a line have no perspective map.
        #expect(Homography(from: [(0, 0), (1, 1), (2, 2), (0, 5)], to: to) == nil)
    }

    @Test func affineMapCompletesTheParallelogram() throws {
        let h = try #require(Homography(affineFrom: [(0, 0), (1, 0), (0, 1)], to: [(10, 10), (30, 14), (6, 40)]))
        let corner = h.map(1, 1)
        #expect(abs(corner.x - 26) < 1e-9 && abs(corner.y - 44) < 1e-9)
    }

    /// `clean.png` seen steeply from one side, bent and squeezed: the code in a 300×300 view,
    /// rows displaced by `wave`·sin(x / `period`) pixels.
    static func warped(wave: Double = 2, period: Double = 23) throws -> GrayImage {
        let code = try F.image("clean.png")
        let w = Double(code.width), h = Double(code.height)
        // Where the code's corners land: seen at an angle, the right side nearer.
        let quad = [(x: 40.0, y: 50.0), (x: 262.0, y: 30.0), (x: 250.0, y: 275.0), (x: 55.0, y: 240.0)]
        let map = try #require(Homography(from: quad, to: [(0, 0), (w, 0), (w, h), (0, h)]))
        var pixels = [UInt8](repeating: 90, count: 300 * 300)
        for y in 0..<300 {
            for x in 0..<300 {
                // A gentle wave across the code, as on a shirt.
                let bent = Double(y) + wave * sin(Double(x) / period)
                let p = map.map(Double(x), bent)
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { continue }
                pixels[y * 300 + x] = code[Int(p.x), Int(p.y)] < 128 ? 40 : 215
            }
        }
        return GrayImage(width: 300, height: 300, pixels: pixels)
    }

    @Test func samplerReadsAWarpedCodePlainZbarCannot() throws {
        let image = try Self.warped()
        #expect(ZBarScanner().scan(image).isEmpty, "plain zbar should fail on the warped code")
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty)
        let found = Scanner.scan(image: image, options: try F.only(.grid))
        #expect(found.map(\.text) == [F.payload])
        #expect(found.first?.pass == .grid)
    }

    /// Whether zbar reads the payload from a module grid sampled by the grid pass.
    static func gridReads(_ values: GrayImage) -> Bool {
        GridSampler.binarizations(values).contains { grid in
            ZBarScanner().scan(GridSampler.render(grid)).contains { String(decoding: $0.bytes, as: UTF8.self) == F.payload }
        }
    }

    @Test func grownMeshFollowsABendTheSmoothedFitLoses() throws {
        // A deep wave (rows moved up to 6 px, about a module): the flat map and a fit that
        // searches every control point around it both lose the code; a mesh grown outward
        // from the finders follows it. (Waves of 6 and 7 px at periods 50 to 80 all behave so.)
        let image = try Self.warped(wave: 6, period: 70)
        let binary = image.adaptiveBinarized(radius: 20)
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: image).first)
        let dimension = (try F.image("clean.png").width / 3) - 8
        let guide = try #require(GridSampler.guide(for: triple, dimension: dimension))
        let map = GridSampler.map(guided: guide, for: triple, dimension: dimension, in: image)
        let flat = GridSampler.sample(image, map: map, dimension: dimension)
        let fitted = MeshWarp.fitted(to: image, map: .plane(map), dimension: dimension)
        let grown = MeshWarp.grown(to: image, map: .plane(map), dimension: dimension)
        let readsFlat = Self.gridReads(flat)
        let readsFitted = Self.gridReads(GridSampler.sample(image, dimension: dimension, point: fitted.point))
        let readsGrown = Self.gridReads(GridSampler.sample(image, dimension: dimension, point: grown.point))
        #expect(!readsFlat && !readsFitted && readsGrown, "flat \(readsFlat), fitted \(readsFitted), grown \(readsGrown)")
        // The grid pass tries the mesh that follows such a bend first.
        let first = try #require(GridPass.meshes.first).mesh(to: image, map: .plane(map), dimension: dimension)
        #expect(Self.gridReads(GridSampler.sample(image, dimension: dimension, point: first.point)))
        // The grid pass as a whole gets there.
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [F.payload])
    }

    @Test func onlyTheFirstSizeThatSamplesWellIsBent() throws {
        // Sizes in the order tried, each through its alignment grid and its plane map: the
        // first size's maps are bent, in that order; the sizes after it are not.
        let map = try #require(Homography(affineFrom: [(0, 0), (1, 0), (0, 1)], to: [(10, 10), (20, 10), (10, 20)]))
        let bendable: [(ModuleMap, Int)] = [(.plane(map), 65), (.plane(map), 65), (.plane(map), 69), (.plane(map), 61)]
        #expect(GridPass.bent(bendable).map(\.1) == [65, 65])
        #expect(GridPass.bent([(.plane(map), 49)]).map(\.1) == [49])
        #expect(GridPass.bent([]).isEmpty)
    }

    @Test func onlyTheFirstSizeThatSamplesAsACodeIsGridded() {
        // The alignment-pattern grid is located at the first size whose corners sample as
        // finder patterns, when its flat map samples them well enough; not at later sizes.
        #expect(GridPass.griddable(size: 1, agreement: GridPass.leastGriddedAgreement))
        #expect(GridPass.griddable(size: 1, agreement: 1))
        #expect(!GridPass.griddable(size: 1, agreement: GridPass.leastGriddedAgreement - 0.01))
        #expect(!GridPass.griddable(size: 2, agreement: 1))
        #expect(!GridPass.griddable(size: 3, agreement: 1))
    }

    @Test func finderPatternsOfABlurredCodeTurned35DegreesAreFound() throws {
        // clean.png at 6 px a module, turned 35° about the middle of a 400×400 view.
        let code = try F.image("clean.png")
        let angle = 35 * Double.pi / 180, c = cos(angle), s = sin(angle)
        let half = Double(code.width) / 2
        var pixels = [UInt8](repeating: 255, count: 400 * 400)
        for y in 0..<400 {
            for x in 0..<400 {
                let dx = (Double(x) - 200) / 2, dy = (Double(y) - 200) / 2
                let u = c * dx + s * dy + half, v = -s * dx + c * dy + half
                guard u >= 0, v >= 0, u < Double(code.width), v < Double(code.height) else { continue }
                pixels[y * 400 + x] = code[Int(u), Int(v)]
            }
        }
        // Blurred and grainy, as a phone photo: the finders' edges turn ragged and only 9-11
        // rows confirm each (the filter once asked for 1.5 · 7.5 module px = 11).
        var seed: UInt32 = 12345
        let blurred = LocalStats.boxMean(GrayImage(width: 400, height: 400, pixels: pixels), radius: 3)
        let noisy = blurred.map { value -> UInt8 in
            seed = seed &* 1_103_515_245 &+ 12345
            return UInt8(max(0, min(255, Int(value) + Int(seed >> 16) % 81 - 40)))
        }
        let image = GrayImage(width: 400, height: 400, pixels: noisy)
        let binary = image.adaptiveBinarized(radius: 20)
        let patterns = FinderSearch.patterns(in: binary)
        let triple = try #require(FinderSearch.triples(from: patterns, in: binary).first)
        // The top-left finder's centre, 3.5 modules in from the corner of the code (4 quiet
        // modules at 3 px in clean.png), turned with the rest.
        let u = 7.5 * 3 - half, v = 7.5 * 3 - half
        let expected = (x: 200 + 2 * (c * u - s * v), y: 200 + 2 * (s * u + c * v))
        #expect(distance(triple.topLeft, expected) < 4, "top-left at \(triple.topLeft), expected \(expected)")
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [F.payload])
    }

    @Test func finderModuleWidthsPredictTheFourthCornerUnderPerspective() throws {
        // clean.png seen from the left: its right edge two thirds as tall as its left.
        let code = try F.image("clean.png")
        let w = Double(code.width), h = Double(code.height)
        let quad = [(x: 20.0, y: 20.0), (x: 280.0, y: 65.0), (x: 280.0, y: 235.0), (x: 20.0, y: 280.0)]
        let toCode = try #require(Homography(from: quad, to: [(0, 0), (w, 0), (w, h), (0, h)]))
        let toPicture = try #require(Homography(from: [(0, 0), (w, 0), (w, h), (0, h)], to: quad))
        var pixels = [UInt8](repeating: 255, count: 300 * 300)
        for y in 0..<300 {
            for x in 0..<300 {
                let p = toCode.map(Double(x), Double(y))
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { continue }
                pixels[y * 300 + x] = code[Int(p.x), Int(p.y)]
            }
        }
        let image = GrayImage(width: 300, height: 300, pixels: pixels)
        let binary = image.otsuBinarized()
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary).first)
        let dimension = code.width / 3 - 8
        let d = Double(dimension)
        // Where the bottom-right finder's centre would be (4 quiet modules, 3 px a module).
        let truth = toPicture.map((4 + d - 3.5) * 3, (4 + d - 3.5) * 3)
        let perspective = try #require(triple.perspectiveMap(dimension: dimension)).map(d - 3.5, d - 3.5)
        let affine = try #require(Homography(affineFrom: [(3.5, 3.5), (d - 3.5, 3.5), (3.5, d - 3.5)],
                                             to: [triple.topLeft, triple.topRight, triple.bottomLeft])).map(d - 3.5, d - 3.5)
        let module = triple.moduleDown
        #expect(distance(affine, truth) > 5 * module, "the parallelogram is far off: \(distance(affine, truth) / module) modules")
        #expect(distance(perspective, truth) < distance(affine, truth) / 3,
                "perspective \(distance(perspective, truth) / module) modules off, parallelogram \(distance(affine, truth) / module)")
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [F.payload])
    }

    @Test func candidateSizesIncludeTheFinderWidthsEstimate() {
        // A 65-module code, finder centres 58 modules apart at 4 px: the widths measured along
        // the legs came out 5.6 px (blur), the finders' own runs 4 px.
        var triple = FinderTriple(topLeft: (100, 100), topRight: (332, 100), bottomLeft: (100, 332),
                                  moduleAcross: 5.6, moduleDown: 5.6)
        #expect(triple.estimatedDimension == 49)
        #expect(!triple.candidateDimensions.contains(65))
        triple.finderModules = [4, 4.1, 3.9]
        #expect(triple.finderEstimatedDimension == 65)
        #expect(Array(triple.candidateDimensions.prefix(3)) == [49, 53, 45])
        #expect(triple.candidateDimensions.contains(65))
        // The two estimates agreeing add nothing.
        triple.moduleAcross = 4; triple.moduleDown = 4
        #expect(triple.candidateDimensions == [65, 69, 61])
    }

    @Test func finderTripleKnowsTheCorners() throws {
        let image = try F.image("clean.png").rotated(by: 1)
        let binary = image.otsuBinarized()
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary).first)
        // Turned a quarter clockwise, the top-left finder is at the top right of the picture.
        #expect(triple.topLeft.x > Double(image.width) / 2 && triple.topLeft.y < Double(image.height) / 2)
        #expect(triple.topRight.y > Double(image.height) / 2)
        #expect(abs(triple.moduleAcross - 3) < 0.6)
        let modules = (image.width / 3) - 8
        #expect(triple.estimatedDimension == modules)
    }

    @Test func renderDrawsModulesWithAQuietZone() {
        let grid = GrayImage(width: 2, height: 2, pixels: [0, 255, 255, 0])
        let drawn = GridSampler.render(grid, scale: 2)
        #expect(drawn.width == 20 && drawn.height == 20)
        #expect(drawn[8, 8] == 0 && drawn[9, 9] == 0 && drawn[10, 8] == 255 && drawn[10, 10] == 0)
        #expect(drawn[0, 0] == 255 && drawn[7, 7] == 255)
    }
}
