import Foundation
import LommeCore
import LommeImages
@testable import LommeScan
import LommeTestSupport
import Testing

/// A picture whose codes were read has been searched enough once every finder pattern it
/// shows lies on a code read (`Settle`, docs/scanner.md "Searched enough"): a phone photo of
/// another application's code is answered after the pass that read it, and a lomme-vault
/// code beside a foreign one is still found. No deadline: what runs does not depend on time.
@Suite("Searched enough")
struct SearchedEnoughTests {
    typealias F = ScanFixtures

    static let link = "https://example.invalid/menu?table=12"

    /// `text` as `qrencode` draws it, 4 px a module, into `folder`.
    static func code(_ text: String, in folder: String, name: String) throws -> String {
        let path = folder + "/" + name + ".png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        process.arguments = ["-l", "M", "-s", "4", "-m", "4", "-o", path, text]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "qrencode failed")
        return path
    }

    /// A small phone-like photo (ImageMagick): `pictures` side by side on grey-white paper
    /// (at most 400 px long: a small picture), a little blur and noise, JPEG quality 85.
    static func photo(_ pictures: [String], in folder: String) throws -> String {
        let path = folder + "/photo.jpg"
        try ImageMagick.convert(pictures + ["-background", "#f0f0f0", "-gravity", "east", "-splice", "16x0",
                                            "+append", "-bordercolor", "#f0f0f0", "-border", "16", "-resize", "400x400>",
                                            "-blur", "0x0.4", "-seed", "7", "-attenuate", "0.3", "+noise", "Gaussian",
                                            "-quality", "85", path])
        return path
    }

    /// What `scan` asks: stop at any code of lomme-vault's.
    static func search(_ path: String, accept: (Decoded) -> Bool) throws -> SearchState {
        let bytes = try ImageLoader.read(path: path)
        let image = try ImageLoader.load(bytes: bytes, name: path)
        return Scanner.search(ScanSubject(image: image), options: ScanOptions(deadline: nil), accept: accept)
    }

    @Test func aPhotoOfAnotherApplicationsCodeIsAnsweredAfterThePassThatReadIt() throws {
        let folder = TemporaryFolder("searched-enough")
        let photo = try Self.photo([try Self.code(Self.link, in: folder.path, name: "link")], in: folder.path)
        let state = try Self.search(photo) { $0.kind.isOurs }
        #expect(state.results().map(\.text) == [Self.link])
        #expect(state.results().map(\.kind) == [.other])
        #expect(state.passesRun == [.plain], "every finder pattern lies on the link's code: nothing is left to find")
        // Without the rule, every pass whose view shows a finder pattern runs (as before).
        var everything = ScanOptions(deadline: nil)
        everything.settles = false
        let image = try ImageLoader.load(path: photo)
        let all = Scanner.search(ScanSubject(image: image), options: everything) { $0.kind.isOurs }
        #expect(all.results().map(\.text) == [Self.link] && all.passesRun.count > 1)
    }

    /// The light-on-dark fixture only the negated passes read, beside a link `plain` reads at
    /// once: the fixture's finders lie on no code read, so the search goes on and finds it.
    @Test func aLommePayloadBesideAForeignCodeIsStillFound() throws {
        let folder = TemporaryFolder("searched-enough")
        let photo = try Self.photo([try Self.code(Self.link, in: folder.path, name: "link"), F.path("inverted.png")], in: folder.path)
        let imported = try Self.search(photo) { $0.kind.isImportable }
        #expect(imported.results().first?.text == F.payload, "import: \(imported.results().map(\.text)), passes \(imported.passesRun)")
        #expect(imported.results().first?.kind == .plain)
        // `scan` prints both: the link, and the config it did not stop at.
        let scanned = try Self.search(photo) { _ in false }
        #expect(Set(scanned.results().map(\.text)) == [Self.link, F.payload])
    }

    /// The grid sampler outlines what it reads from its map: a picture of two codes it reads
    /// both of is searched enough, and `plain` after it does not run.
    @Test func codesTheGridSamplerReadsAreOutlinedToo() throws {
        let image = try ImageLoader.load(path: F.path("two.png"))
        var options = ScanOptions(deadline: nil, parallel: false, passes: [.grid, .plain])
        options.mandatory = 0
        let state = Scanner.search(ScanSubject(image: image), options: options) { _ in false }
        #expect(Set(state.results().map(\.text)) == [F.payload, "second code"])
        #expect(state.passesRun == [.grid], "\(state.passesRun)")
    }

    @Test func anOutlineHoldsWhatLiesInsideItOrNearItsEdge() {
        // zbar's order: top-left, top-right, bottom-left, bottom-right.
        let outline = Settle.hull([SIMD2(10, 10), SIMD2(110, 10), SIMD2(10, 110), SIMD2(110, 110)])
        #expect(Settle.contains(outline, SIMD2(60, 60), margin: 0))
        #expect(Settle.contains(outline, SIMD2(14, 14), margin: 0))
        #expect(Settle.contains(outline, SIMD2(7, 60), margin: 4))
        #expect(!Settle.contains(outline, SIMD2(7, 60), margin: 2))
        #expect(!Settle.contains(outline, SIMD2(200, 60), margin: 10))
        #expect(!Settle.contains(Array(outline.prefix(2)), SIMD2(60, 10), margin: 10), "two points outline nothing")
    }
}
