import Foundation
import LommeImages
import LommeTestSupport
import Testing
@testable import LommeScan

private typealias F = ScanFixtures

/// Thin light lines taken out (`GrayImage.unlined`), and the grid pass on the picture so made.
@Suite("Scanner thin lines")
struct UnlineTests {
    /// The definition read straight off the pixels: each direction's opening (the darkest of
    /// each pixel's `lineSpan` neighbours, then the lightest of those, neighbours outside the
    /// picture left out), and the darker of the two.
    static func plainUnlined(_ image: GrayImage) -> GrayImage {
        let reach = GrayImage.lineSpan / 2
        func opened(_ image: GrayImage, down: Bool) -> GrayImage {
            func pass(_ source: GrayImage, darkest: Bool) -> GrayImage {
                var out = source
                for y in 0..<source.height {
                    for x in 0..<source.width {
                        var values: [UInt8] = []
                        for d in -reach...reach {
                            let (nx, ny) = down ? (x, y + d) : (x + d, y)
                            if (0..<source.width).contains(nx) && (0..<source.height).contains(ny) { values.append(source[nx, ny]) }
                        }
                        out[x, y] = darkest ? values.min()! : values.max()!
                    }
                }
                return out
            }
            return pass(pass(image, darkest: true), darkest: false)
        }
        let a = opened(image, down: true), b = opened(image, down: false)
        return GrayImage(width: image.width, height: image.height, pixels: zip(a.pixels, b.pixels).map { min($0, $1) })
    }

    @Test(arguments: [(1, 1), (1, 7), (7, 1), (2, 2), (37, 23)])
    func unlinedIsBothOpeningsDarkerOfTheTwo(width: Int, height: Int) {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(width * 31 + height)
        let pixels = (0..<width * height).map { _ -> UInt8 in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        #expect(image.unlined() == Self.plainUnlined(image))
    }

    @Test func imageMagicksOpeningsAgreePixelForPixel() throws {
        // The same filter by a tool no one here wrote: ImageMagick's grey-level openings by a
        // 1×3 and a 3×1 rectangle (edge pixels repeated), the darker of the two, on the
        // fixture's photo.
        let image = try F.image("unlined-rows.jpg")
        let folder = TemporaryFolder("lomme-unline-test")
        let input = folder.path + "/in.pgm", output = folder.path + "/out.pgm"
        var pgm = Data("P5\n\(image.width) \(image.height)\n255\n".utf8)
        pgm.append(contentsOf: image.pixels)
        try pgm.write(to: URL(fileURLWithPath: input))
        try ImageMagick.convert([input, "-virtual-pixel", "edge",
                                 "(", "+clone", "-morphology", "Open", "rectangle:1x3", ")",
                                 "(", "-clone", "0", "-morphology", "Open", "rectangle:3x1", ")",
                                 "-delete", "0", "-compose", "darken", "-composite", output])
        let theirs = try ImageLoader.load(path: output)
        #expect(theirs.width == image.width && theirs.height == image.height)
        let ours = image.unlined()
        #expect(zip(ours.pixels, theirs.pixels).filter { $0 != $1 }.count == 0)
        #expect(ours != image, "the filter changed something")
    }

    @Test func aThinLightLineGoesAndALightModuleStays() {
        // Dark ground; a one-pixel light line across, a two-pixel one down (apart: where two
        // lines cross, each keeps the other's pixels), and a light module of `lineSpan`
        // pixels square.
        var image = GrayImage(width: 24, height: 20, fill: 20)
        for x in 0..<24 { image[x, 4] = 230 }
        for y in 7..<20 { for x in 18...19 { image[x, y] = 220 } }
        for y in 10..<13 { for x in 5..<8 { image[x, y] = 240 } }
        let out = image.unlined()
        #expect((0..<24).allSatisfy { out[$0, 4] == 20 }, "the line across is gone")
        #expect((7..<20).allSatisfy { out[18, $0] == 20 && out[19, $0] == 20 }, "the line down is gone")
        for y in 0..<20 {
            for x in 0..<24 {
                let inModule = (10..<13).contains(y) && (5..<8).contains(x)
                #expect(out[x, y] == (inModule ? 240 : 20), "(\(x), \(y))")
            }
        }
    }

    @Test func aTerminalsLinesBetweenTextRowsAreTakenOutForTheGridPass() throws {
        // unlined-rows.jpg (the fresh set `g-term`'s photo 27, tune half): a terminal printing
        // the code in half blocks, two module rows a text row, with a light line between text
        // rows, photographed at 1 MP. The line crosses every second module row and the
        // finders: the grid pass on the working view does not read it, on the working view
        // with its thin light lines taken out it does.
        let image = try F.image("unlined-rows.jpg")
        let expected = try EvidenceTests.fixtureText("unlined-rows")
        for name in [PassName.grid, .gridInv] {
            #expect(Scanner.scan(image: image, options: try F.only(name)).isEmpty, "\(name)")
        }
        let unlined = try [PassName.gridUnlined, .gridUnlinedInv].filter {
            Scanner.scan(image: image, options: try F.only($0)).map(\.text) == [expected]
        }
        #expect(!unlined.isEmpty)
        #expect(Scanner.scan(image: image, options: F.slowBuild).map(\.text) == [expected])
    }

    @Test func theUnlinedPictureIsMadeOncePerPictureAndPolarity() throws {
        let subject = ScanSubject(image: try F.image("unlined-rows.jpg"))
        let dark = try #require(Pass.unlined(subject, negated: false))
        #expect(Pass.unlined(subject, negated: false) === dark)
        let light = try #require(Pass.unlined(subject, negated: true))
        #expect(light !== dark)
        let working = try #require(Pass.working(subject))
        #expect(dark.view(longSide: Pass.workingSide) == working.unlined())
        #expect(light.view(longSide: Pass.workingSide) == working.inverted().unlined())
    }
}
