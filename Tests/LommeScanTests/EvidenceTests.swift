import LommeImages
import Synchronization
import Testing
@testable import LommeScan

/// Giving up early: passes that need finder patterns are skipped when their view shows
/// none, the grid sampler bends maps only for corners that sample as finders, and the
/// full-resolution search finds what the working view cannot.
@Suite("Scanner evidence")
struct EvidenceTests {
    typealias F = ScanFixtures

    @Test func aFlatPictureShowsNoFinderAndAPhotoOfACodeDoes() throws {
        let flat = ScanSubject(image: GrayImage(width: 3000, height: 2000, fill: 120))
        #expect(!Pass.shows(flat, .finders))
        #expect(!Pass.shows(flat, .fineFinders))
        #expect(Pass.shows(flat, .none))
        #expect(Pass.shows(ScanSubject(image: try F.image("clean.png")), .finders))
    }

    /// One finder pattern, dark on light, alone on a `width`×`height` picture, its top-left
    /// corner at `left`, `top`, its modules `across` pixels wide and `down` pixels tall.
    static func finder(width: Int, height: Int, left: Int, top: Int, across: Int, down: Int) -> GrayImage {
        var image = GrayImage(width: width, height: height, fill: 230)
        for y in 0..<(7 * down) {
            for x in 0..<(7 * across) {
                let ring = max(abs(x / across - 3), abs(y / down - 3))
                if ring != 2 { image[left + x, top + y] = 20 }
            }
        }
        return image
    }

    /// One finder pattern, 6 pixels a module, alone on a 200-pixel picture.
    static func loneFinder() -> GrayImage {
        finder(width: 200, height: 200, left: 79, top: 79, across: 6, down: 6)
    }

    /// The lone finder flattened to half its height (6 pixels a module across, 3 down), as
    /// a code seen from low down shows it: only the steep bound admits it, and that is
    /// evidence enough.
    @Test func aFlattenedFinderIsEvidence() throws {
        let subject = ScanSubject(image: Self.finder(width: 200, height: 200, left: 79, top: 89, across: 6, down: 3))
        #expect(Pass.workingPatterns(subject, divisor: Pass.wideWindow, inverted: false).isEmpty)
        #expect(Pass.workingSteepPatterns(subject, divisor: Pass.wideWindow, inverted: false).count == 1)
        #expect(Pass.shows(subject, .finders))
    }

    @Test func negatingPassesLookForLightOnDarkFinders() throws {
        #expect(Pass.shows(ScanSubject(image: Self.loneFinder()), .finders))
        // One light-on-dark finder is what a camera's noise shows; the negating passes need
        // a code's three corners.
        let lone = ScanSubject(image: Self.loneFinder().inverted())
        #expect(Pass.workingPatterns(lone, divisor: Pass.wideWindow, inverted: true).count == 1)
        #expect(!Pass.shows(lone, .lightFinders))
        #expect(Pass.shows(ScanSubject(image: try F.image("inverted.png")), .lightFinders))
        let flat = ScanSubject(image: GrayImage(width: 300, height: 200, fill: 90))
        #expect(!Pass.shows(flat, .finders) && !Pass.shows(flat, .lightFinders))
    }

    /// A camera's frame of a grey screen with no code (noise of a few grey levels): zbar is
    /// slowest on noise, and only the two passes that run whatever (plain and the grid
    /// sampler, whose finder searches find nothing) may run.
    @Test func aNoisyFrameWithoutACodeRunsOnlyTheFirstPasses() throws {
        var image = GrayImage(width: 640, height: 480, fill: 0)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for y in 0..<image.height {
            for x in 0..<image.width {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                image[x, y] = UInt8(110 + Int(seed >> 61) + (y * 40) / image.height)
            }
        }
        let state = Scanner.search(ScanSubject(image: image), options: ScanOptions(deadline: nil, parallel: false),
                                   accept: { _ in false })
        #expect(state.results().isEmpty)
        #expect(Scanner.pipeline.dropFirst(ScanPlan.photo.mandatory).allSatisfy { $0.needs != .none })
        #expect(state.passesRun == Array(ScanPlan.photo.passes.prefix(ScanPlan.photo.mandatory)), "\(state.passesRun)")
        // A caller may make more of the first passes run whatever the evidence says (a
        // camera's frames: three).
        var three = ScanOptions(deadline: nil, parallel: false)
        three.mandatory = 3
        let more = Scanner.search(ScanSubject(image: image), options: three, accept: { _ in false })
        #expect(more.passesRun == Array(ScanPlan.photo.passes.prefix(3)), "\(more.passesRun)")
    }

    @Test func onlyTheFullResolutionSearchSeesASmallSteepCode() throws {
        let subject = ScanSubject(image: try F.image("steep.jpg"))
        #expect(Pass.finePatterns(subject, inverted: false).count >= QRGeometry.finders)
        let light = ScanSubject(image: try F.image("steep.jpg").inverted())
        #expect(Pass.finePatterns(light, inverted: true).count >= QRGeometry.finders)
    }

    @Test func aLightOnDarkSteepCodeIsReadByTheInvertedFineSearch() throws {
        let image = try F.image("steep.jpg").inverted()
        #expect(Scanner.scan(image: image, options: try F.only(.gridFine)).isEmpty)
        let found = Scanner.scan(image: image, options: try F.only(.gridFineInv))
        #expect(found.map(\.text) == [F.payload])
    }

    @Test func theFineSearchLeavesSmallPicturesAlone() throws {
        // The working view shows a small picture whole: nothing finer to search.
        let subject = ScanSubject(image: try F.image("clean.png"))
        #expect(Pass.fineBinary(subject, inverted: false) == nil)
        #expect(!Pass.shows(subject, .fineFinders))
    }

    @Test func aHugePictureIsSearchedAtAPhonesSize() throws {
        // The fine search's copies (binarised, negated) of a 100 MP picture would cost
        // hundreds of MB: its view is shrunk to a 16 MP phone's long side.
        let subject = ScanSubject(image: GrayImage(width: 6000, height: 4000, fill: 120))
        let view = try #require(Pass.fineView(subject, inverted: true))
        #expect(max(view.width, view.height) == GridPass.fineLongestSide)
        #expect(try #require(Pass.fineBinary(subject, inverted: false)).width == view.width)
    }

    @Test func aGatedPipelineSkipsWhatAFlatPictureCannotFeed() throws {
        // A picture with nothing in it: the finder searches look (working view and full
        // resolution), and of the passes that need what they find none runs.
        let flat = GrayImage(width: 2600, height: 1950, fill: 128)
        let subject = ScanSubject(image: flat)
        let gated = Scanner.search(subject, options: ScanOptions(deadline: nil, parallel: false), accept: { _ in false })
        #expect(gated.results().isEmpty)
        #expect(subject.cached("blocks") != nil, "the fine search looked")
        #expect(subject.cached("adaptive12") != nil, "the working search looked")
        let needy = Set(Scanner.pipeline.dropFirst(ScanPlan.photo.mandatory).filter { $0.needs != .none }.map(\.name))
        #expect(!needy.isEmpty)
        #expect(needy.isDisjoint(with: gated.passesRun), "\(gated.passesRun)")
        // Without the gate every pass runs.
        var options = ScanOptions(deadline: nil, parallel: false)
        options.gated = false
        let ungated = Scanner.search(ScanSubject(image: flat), options: options, accept: { _ in false })
        #expect(ungated.passesRun == ScanPlan.photo.passes)
    }

    /// The benchmark's account of where a picture's time goes (`ScanOptions.passTimes`)
    /// names every pass taken, once, in the order taken: those that ran as run, the gated
    /// ones whose evidence was missing as skipped; on two threads as on one. A pass a second
    /// worker joined is named again, as joined.
    @Test(arguments: [false, true])
    func everyPassTakenIsAccountedFor(parallel: Bool) throws {
        let taken = Mutex<[(PassName, PassOutcome)]>([])
        var options = ScanOptions(deadline: nil, parallel: parallel)
        options.passTimes = { pass, outcome, time in
            #expect(time >= .zero)
            taken.withLock { $0.append((pass, outcome)) }
        }
        let flat = GrayImage(width: 900, height: 700, fill: 128)
        let state = Scanner.search(ScanSubject(image: flat), options: options, accept: { _ in false })
        let account = taken.withLock { $0 }.filter { $0.1 != .joined }
        #expect(Set(account.map(\.0)) == Set(ScanPlan.photo.passes) && account.count == ScanPlan.photo.passes.count)
        #expect(Set(account.filter { $0.1 == .ran }.map(\.0)) == Set(state.passesRun))
        #expect(account.filter { $0.1 == .skipped }.count == ScanPlan.photo.passes.count - ScanPlan.photo.mandatory)
        if !parallel { #expect(account.map(\.0) == ScanPlan.photo.passes) }
    }

    @Test func theGridPassesSearchTheViewBinarisedBlockByBlockLast() throws {
        // A light-on-dark screen's glow fills its finders' dark ring under both local windows
        // (photos/07 in bench/out); block by block it stays.
        let light = ScanSubject(image: try F.image("inverted.png"))
        let options = try F.only(.gridInv)
        #expect(Scanner.search(light, options: options, accept: { _ in false }).results().map(\.text) == [F.payload])
        #expect(light.cached("workingBlocks") != nil)
        // That search comes after the windows' own: a code their patterns read costs it nothing.
        let dark = ScanSubject(image: try F.image("clean.png"))
        #expect(Scanner.search(dark, options: try F.only(.grid), accept: { _ in true }).results().map(\.text) == [F.payload])
        #expect(dark.cached("workingBlocks") == nil)
        // A code not accepted (another code may be in the picture): the search goes on to it.
        let other = ScanSubject(image: try F.image("clean.png"))
        #expect(Scanner.search(other, options: try F.only(.grid), accept: { _ in false }).results().map(\.text) == [F.payload])
        #expect(other.cached("workingBlocks") != nil)
    }

    /// How well the best triple of the first `searches` searches samples its corners.
    static func bestCorners(_ subject: ScanSubject, inverted: Bool, searches: Int) -> Double {
        var best = 0.0
        GridPass.forEachCandidate(subject, inverted: inverted, searches: searches, until: { false }) { candidate in
            best = max(best, candidate.triple.candidateDimensions.map(candidate.corners).max() ?? 0)
        }
        return best
    }

    @Test func aBlurredCodesLostFinderIsFoundBlockByBlock() throws {
        // blurred-corner.jpg (the hard set's photo 37): blurred by half a module, the light
        // falling off toward one corner, whose finder both local windows lose. No triple of
        // the windows' patterns samples as a code; with the block binarisation's the grid
        // pass reads it.
        let image = try F.image("blurred-corner.jpg")
        let expected = String(decoding: try ImageLoader.read(path: F.path("blurred-corner.txt")), as: UTF8.self)
        let subject = ScanSubject(image: image)
        // The searches but the block binarisation's two (its usual and its steep bound).
        let windows = GridPass.searches(subject, inverted: false).count - 2
        #expect(Self.bestCorners(subject, inverted: false, searches: windows) < GridPass.leastFinderAgreement)
        #expect(Scanner.scan(image: image, options: try F.only(.grid)).map(\.text) == [expected])
    }

    /// A fixture with its own payload (`NAME.txt` beside `NAME.jpg`).
    static func fixtureText(_ name: String) throws -> String {
        String(decoding: try ImageLoader.read(path: F.path(name + ".txt")), as: UTF8.self)
    }

    @Test func aTallCellsFinderIsFoundBlockByBlockUnderTheSteepBound() throws {
        // tall-cells.jpg (the fresh set `photos-b`'s photo 10, tune half): a terminal
        // rendering on a dark screen, cells twice as tall as wide, blurred. Under both windows
        // the top-right finder's light ring merges with its centre; the block binarisation
        // keeps it, but its module down the column is twice the one along the row, past the
        // usual bound. No triple of the earlier searches samples as a code.
        let image = try F.image("tall-cells.jpg")
        let subject = ScanSubject(image: image)
        // The searches before the block binarisation's steep one (the negated view's blocks
        // come after it).
        let earlier = GridPass.searches(subject, inverted: true).count - 2
        #expect(Self.bestCorners(subject, inverted: true, searches: earlier) < GridPass.leastFinderAgreement)
        #expect(Pass.workingBlockSteepPatterns(subject, inverted: true).count
            > Pass.workingBlockPatterns(subject, inverted: true).count)
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty)
        #expect(Scanner.scan(image: image, options: try F.only(.gridInv)).map(\.text) == [try Self.fixtureText("tall-cells")])
    }

    @Test func aDarkModeScreensGlowingRingsStayInTheNegatedViewsBlocks() throws {
        // glowing-rings.jpg (the fresh set `d-easy`'s photo 34, tune half): a dark-mode screen
        // blurred by 0.4 of a module. The light modules' glow fills each finder's dark ring
        // under both windows and in the block binarisation negated, so no triple of those
        // searches samples as a code; the negated picture binarised block by block keeps the
        // rings, and the negated grid pass reads the code from them.
        let image = try F.image("glowing-rings.jpg")
        let subject = ScanSubject(image: image)
        let searches = GridPass.searches(subject, inverted: true).count
        #expect(!Self.gridReads(subject, inverted: true, searches: searches - 1))
        #expect(Pass.workingNegatedBlockPatterns(subject).count >= QRGeometry.finders)
        #expect(Self.gridReads(subject, inverted: true, searches: searches))
        #expect(Scanner.scan(image: image, options: try F.only(.plain)).isEmpty)
        #expect(Scanner.scan(image: image, options: try F.only(.gridInv)).map(\.text) == [try Self.fixtureText("glowing-rings")])
        // The dark grid pass makes no such search: a dark code's binarisation is the usual one.
        #expect(GridPass.searches(subject, inverted: false).count < searches)
    }

    @Test func aGlowingFindersThinLightRingStaysHalfwayBetweenItsDarkestAndLightest() throws {
        // glowing-finders.jpg (the fresh set `g-dark`'s photo 64, tune half): a dark-mode
        // screen whose light modules glow, so that each finder's one-module dark ring is grey.
        // Negated, the mean of the blocks round a finder is pulled up by its flat surround to
        // nearly the ring's level, and the ring (light there) thins to a pixel or two: no
        // finder passes. Halfway between the darkest and lightest pixel round it (the centre's
        // and the surround's) the ring keeps its width, and the grid pass reads the code.
        let image = try F.image("glowing-finders.jpg")
        let subject = ScanSubject(image: image)
        let negated = try #require(Pass.working(subject)).inverted()
        let byMean = FinderSearch.patterns(in: negated.blockBinarized()).filter { $0.hits >= Pass.negatedBlockSightings }
        let byMidrange = FinderSearch.patterns(in: negated.blockBinarized(.midrange)).filter { $0.hits >= Pass.negatedBlockSightings }
        #expect(byMean.count < QRGeometry.finders)
        #expect(byMidrange.count >= QRGeometry.finders)
        let searches = GridPass.searches(subject, inverted: true).count
        #expect(!Self.gridReads(subject, inverted: true, searches: searches - 1))
        #expect(Self.gridReads(subject, inverted: true, searches: searches))
        #expect(Scanner.scan(image: image, options: try F.only(.gridInv)).map(\.text) == [try Self.fixtureText("glowing-finders")])
        // With the default passes too (before, no pass read it), and no deadline: that the
        // pass comes in time is for the benchmark, not for a test on a loaded machine.
        #expect(Scanner.scan(image: image, options: F.slowBuild).map(\.text) == [try Self.fixtureText("glowing-finders")])
    }

    /// Whether the grid pass reads a code from the triples of its first `searches` searches.
    static func gridReads(_ subject: ScanSubject, inverted: Bool, searches: Int) -> Bool {
        var read = false
        let trial = Trial(scanner: ZBarScanner(), pass: .grid, isOver: { read }, report: { _ in read = true })
        GridPass.forEachCandidate(subject, inverted: inverted, searches: searches, until: { read }) { candidate in
            _ = GridPass.decode(candidate.triple, in: candidate.source, trial, corners: candidate.corners)
        }
        return read
    }

    @Test func theNegatedViewsBlocksKeepOnlyFindersCrossedByManyRows() throws {
        // A grainy photo of a dark code (tilted.jpg): negated, its paper is dark and flat but
        // for the grain, which the block binarisation turns to speckle full of look-alikes,
        // each crossed by a few rows. Too few are kept to make a triple of; a light code's
        // finders are (above).
        let subject = ScanSubject(image: try F.image("tilted.jpg"))
        let binary = try #require(Pass.workingNegatedBlocks(subject))
        let all = FinderSearch.patterns(in: binary)
        #expect(all.count >= 10)
        #expect(all.filter { $0.hits >= Pass.negatedBlockSightings }.count < QRGeometry.finders)
        #expect(Pass.workingNegatedBlockPatterns(subject).count < QRGeometry.finders)
    }

    /// One finder pattern 7 pixels a module across and 14 down, dark on light, in a picture
    /// big enough for the full-resolution search.
    static func tallFinder() -> GrayImage {
        finder(width: 2600, height: 1950, left: 1200, top: 900, across: 7, down: 14)
    }

    @Test func theFineSearchJudgesATallFinderByItsNarrowSide() throws {
        // Its mean module (10.5 pixels) is a working-view module of 5, past the fine search's
        // 4; its narrow side (7 pixels, 3.4 there) is what the working view blurs.
        let subject = ScanSubject(image: Self.tallFinder())
        let limit = GridPass.fineModuleLimit * Double(subject.fullLongSide) / Double(Pass.workingSide)
        let found = try #require(Pass.finePatterns(subject, inverted: false).first)
        #expect(abs(found.x - 1224.5) < 2 && abs(found.y - 949) < 3)
        #expect(found.module > limit && found.narrowest < limit)
        #expect(abs(found.narrowest - 7) < 1)
    }

    /// Only pictures up to 400 pixels long are enlarged: doubling a 640×480 photo without a
    /// code would be half of its scan (corpus/no-qr), and no picture of the tune half needs it
    /// (docs/scanner.md, "Giving up early").
    @Test(arguments: [(PassName.up2, 400, true), (.up2, 401, false), (.up3, 400, true), (.up3, 401, false)])
    func onlySmallPicturesAreEnlarged(pass name: PassName, long: Int, enlarged: Bool) throws {
        let pass = try #require(Pass.catalogue.first { $0.name == name })
        let subject = ScanSubject(image: GrayImage(width: long, height: long * 3 / 4, fill: 200))
        // The views the pass would hand zbar, asked for and refused before they are made.
        let asked = Mutex<[Int]>([])
        var trial = Trial(scanner: ZBarScanner(), pass: name, isOver: { false }, report: { _ in })
        trial.mayStart = { pixels in asked.withLock { $0.append(pixels) }; return false }
        pass.run(subject, trial)
        #expect(asked.withLock { $0.isEmpty } == !enlarged, "\(name) on a picture \(long) px long")
    }

    // MARK: - A code located

    @Test func aCodeIsLocatedInItsOwnPolarityOnly() throws {
        let dark = ScanSubject(image: try F.image("clean.png"))
        #expect(GridPass.locates(dark, inverted: false))
        #expect(!GridPass.locates(dark, inverted: true))
        #expect(!Pass.shows(dark, .lightCode))
        let light = ScanSubject(image: try F.image("inverted.png"))
        #expect(GridPass.locates(light, inverted: true) && Pass.shows(light, .lightCode))
        #expect(!GridPass.locates(light, inverted: false))
        // One finder pattern is evidence of finders, not of a code.
        let lone = ScanSubject(image: Self.loneFinder())
        #expect(Pass.shows(lone, .finders) && !GridPass.locates(lone, inverted: false))
        let flat = ScanSubject(image: GrayImage(width: 900, height: 700, fill: 128))
        #expect(!GridPass.locates(flat, inverted: false) && !Pass.shows(flat, .lightCode))
    }

    /// A dark code no pass reads, drawn with its data modules scrambled: the negating passes
    /// that need a light-on-dark code located are skipped (its data area shows light-on-dark
    /// "finders" enough for the older gate); negated, they run.
    @Test func passesThatNeedACodeLocatedRunOnlyWhereOneIs() throws {
        let clean = try F.image("clean.png").scaled(by: 2)
        var scrambled = clean
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        // The data area only (finders, separators and a 4-module quiet zone kept): 6 px modules.
        let module = 6, quiet = 4, side = clean.width / module - 2 * quiet
        for row in 0..<side {
            for column in 0..<side where !((row < 9 && (column < 9 || column >= side - 8)) || (row >= side - 8 && column < 9)) {
                seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
                let value: UInt8 = seed & 1 == 0 ? 0 : 255
                for y in 0..<module {
                    for x in 0..<module { scrambled[(quiet + column) * module + x, (quiet + row) * module + y] = value }
                }
            }
        }
        let state = Scanner.search(ScanSubject(image: scrambled), options: ScanOptions(deadline: nil, parallel: false),
                                   accept: { _ in false })
        #expect(state.results().isEmpty)
        #expect(Pass.shows(ScanSubject(image: scrambled), .lightFinders))
        #expect(!state.passesRun.contains(.inverted), "\(state.passesRun)")
        #expect(state.passesRun.contains(.gridInv), "\(state.passesRun)")
        // The code's own dark finders are crossed by more rows than any light look-alike of
        // its data area: the sharpened negated view is not scanned either.
        let subject = ScanSubject(image: scrambled)
        #expect(Pass.mostSightings(subject, light: false) > Pass.mostSightings(subject, light: true))
        #expect(!state.passesRun.contains(.sharpenedInv), "\(state.passesRun)")
        // Negated, it is a light code located: the negating passes run.
        let negated = Scanner.search(ScanSubject(image: scrambled.inverted()),
                                     options: ScanOptions(deadline: nil, parallel: false), accept: { _ in false })
        #expect(negated.results().isEmpty)
        #expect(negated.passesRun.contains(.inverted) && negated.passesRun.contains(.sharpenedInv), "\(negated.passesRun)")
    }

    /// The blurred dark-mode screen the sharpened negated view is for (`dark-blurred.jpg`)
    /// shows its light finders most clearly, and the whole pipeline reads it there when the
    /// passes before cannot.
    @Test func aBlurredLightCodeLeadsWithItsLightFinders() throws {
        let subject = ScanSubject(image: try F.image("dark-blurred.jpg"))
        #expect(Pass.mostSightings(subject, light: true) >= Pass.mostSightings(subject, light: false))
        #expect(Pass.shows(subject, .lightFindersLead))
        let options = ScanOptions(deadline: nil, parallel: false, passes: [.plain, .grid, .sharpenedInv])
        let found = Scanner.scan(image: try F.image("dark-blurred.jpg"), options: options)
        #expect(found.map(\.text) == [F.payload])
        #expect(found.first?.pass == .sharpenedInv)
    }

    @Test func theCornersOfACandidateAreSampledOnceAndAsTheyWouldBeAlone() throws {
        let subject = ScanSubject(image: try F.image("tilted.jpg"))
        var sampled: [(candidate: Int, dimension: Int, agreement: Double)] = []
        var count = 0
        GridPass.forEachCandidate(subject, inverted: false, until: { false }) { candidate in
            count += 1
            for dimension in candidate.triple.candidateDimensions {
                let alone = GridPass.cornerAgreement(candidate.triple, in: candidate.source, dimension: dimension)
                #expect(candidate.corners(dimension) == alone)
                sampled.append((count, dimension, alone))
            }
        }
        #expect(!sampled.isEmpty)
        // Kept in the picture's store: another asker (the gate, the other grid pass) gets them
        // from there and samples nothing again.
        for (candidate, dimension, agreement) in sampled {
            #expect(subject.memoValue("corners false \(candidate) \(dimension)") { -1.0 } == agreement)
        }
    }

    @Test func aPictureAndItsPatternsUnderOneNameAreKeptApart() throws {
        // The block-binarised view and the patterns found in it share a name: each is found
        // again under it (one store for both once handed the patterns' asker the picture,
        // and it found no pattern at all).
        let subject = ScanSubject(image: try F.image("clean.png"))
        let picture = try #require(subject.memo("shared") { GrayImage(width: 2, height: 2, fill: 7) })
        let pattern = FinderPattern(x: 1, y: 2, module: 3, hits: 4)
        let patterns = subject.memoPatterns("shared") { ([pattern], []) }
        #expect(patterns.dark.count == 1 && patterns.light.isEmpty)
        #expect(subject.memo("shared") { nil } == picture)
        #expect(subject.memoPatterns("shared") { ([], []) }.dark.count == 1)
        #expect(subject.cached("shared") == picture)
    }

    @Test func aPictureWithACodeFeedsEveryPass() throws {
        // The gate must not starve a picture that holds a code it did not read at once.
        // unlined-rows.jpg is read by the last pass only.
        let subject = ScanSubject(image: try F.image("unlined-rows.jpg"))
        let state = Scanner.search(subject, options: ScanOptions(deadline: nil, parallel: false), accept: { _ in false })
        #expect(state.passesRun.last == .gridUnlinedInv)
        #expect(state.results().map(\.text) == [try Self.fixtureText("unlined-rows")])
    }

    // MARK: - Finder agreement

    @Test func aCleanGridAgreesWithEveryFinderModuleAndNoiseWithAboutHalf() throws {
        // The fixture's code, sampled module by module through its own map.
        let image = try F.image("clean.png")
        let binary = image.adaptiveBinarized(radius: 8)
        let triple = try #require(FinderSearch.triples(from: FinderSearch.patterns(in: binary), in: binary, grey: image).first)
        let dimension = try #require(triple.candidateDimensions.first)
        let guide = try #require(GridSampler.guide(for: triple, dimension: dimension))
        let map = GridSampler.map(guided: guide, for: triple, dimension: dimension, in: image)
        let grid = GridSampler.localGrid(GridSampler.sample(image, map: map, dimension: dimension))
        #expect(FixedPatterns.finderAgreement(grid) == 1)
        var generator = SystemRandomNumberGenerator()
        let noise = GrayImage(width: dimension, height: dimension,
                              pixels: (0..<(dimension * dimension)).map { _ in Bool.random(using: &generator) ? 0 : 255 })
        #expect(FixedPatterns.finderAgreement(noise) < GridPass.leastFinderAgreement)
    }

    // MARK: - Block binarisation and many sightings

    @Test func blockBinarisationKeepsTheFindersOfACleanCode() throws {
        // Blocks are 8 pixels: a code of 9-pixel modules, as in a photo.
        let image = try F.image("clean.png").scaled(by: 3)
        let binary = image.blockBinarized()
        #expect(binary.pixels.allSatisfy { $0 == 0 || $0 == 255 })
        // The three best-sighted patterns are the finders, 3.5 modules in from three corners
        // of the code inside its 4-module quiet zone
        // (look-alikes in the data area are confirmed by a third as many rows).
        let found = FinderSearch.patterns(in: binary).prefix(QRGeometry.finders)
        let near = 7.5 * 9.0, far = Double(image.width) - near
        for (x, y) in [(near, near), (far, near), (near, far)] {
            #expect(found.contains { abs($0.x - x) < 9 && abs($0.y - y) < 9 }, "a finder near \(x), \(y): \(found)")
        }
        #expect(GrayImage(width: 40, height: 40, fill: 200).blockBinarized().pixels.allSatisfy { $0 == 255 })
    }

    @Test func sightingsMergeAtOnePlaceAndScaleOnly() {
        var sightings = Sightings()
        sightings.add(FinderPattern(x: 100, y: 100, module: 4, hits: 1))
        sightings.add(FinderPattern(x: 102, y: 101, module: 4.5, hits: 1))
        sightings.add(FinderPattern(x: 100, y: 100, module: 12, hits: 1))  // another scale
        sightings.add(FinderPattern(x: 140, y: 100, module: 4, hits: 1))  // another place
        #expect(sightings.patterns.count == 3)
        #expect(sightings.patterns[0].hits == 2)
        #expect(abs(sightings.patterns[0].x - 101) < 1e-9)
    }
}
