import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A vouch's version is the time it was signed, so a machine whose clock lags signs one the
/// children refuse. Through the built binary under faketime (a clock set back, nothing else
/// changed): a restore on a clock before the kit's day, or before this release with a typed
/// key, and a new kit or a parent added on a clock behind what the vault has seen, are each
/// refused in one line that says to set the clock, with nothing written; on the right clock
/// the same commands succeed. docs/threat-model-household.md, "Clocks".
@Suite("A clock behind the household's (through the built binary)")
struct ClockBehindTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// `arguments` on `machine` with its clock set by faketime (`-2d`, or `@2020-01-01 12:00:00`).
    static func run(_ machine: Machine, _ arguments: [String], clock: String) -> CLI.Result {
        CLI.run(arguments + ["--passphrase-file", machine.folder + "/pw"], environment: ["LOMME_VAULT": machine.vault],
                shell: "faketime -f '\(clock)' \"$LV\" \"$@\"")
    }

    /// One line on stderr, saying the clock is behind what, and to set it.
    static func expectClockRefusal(_ result: CLI.Result, saying what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && result.stderr.contains(what) && result.reason == .clockBehind && result.stderr.contains("set the clock") && result.reason == .clockBehind,
                "\(result.stderr)", sourceLocation: sourceLocation)
    }

    /// A parent with a kit (its QR text, with its day, in kit.txt) and the config.
    static func parent(in box: CLI.Sandbox) throws -> (Machine, kit: String) {
        let parent = Machine(box, "parent")
        let pdf = box.path + "/kit.pdf"
        try #require(parent.run(["init", "--parent", "--recovery-kit", pdf]).status == 0)
        let qr = try RecoveryKitTests.readKit(pdf, in: box).qr
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        return (parent, box.write("kit.txt", qr + "\n"))
    }

    @Test func aRestoreOnAClockBeforeTheKitsDayIsRefused() throws {
        let box = CLI.Sandbox()
        let (_, kit) = try Self.parent(in: box)
        let laptop = Machine(box, "laptop")
        let early = Self.run(laptop, ["init", "--parent", "--restore", "--recovery-file", kit], clock: "-2d")
        Self.expectClockRefusal(early, saying: "before the day its recovery kit was made")
        #expect(!FileManager.default.fileExists(atPath: laptop.vault), "no vault was made")
        // On the right clock the same restore succeeds.
        let restored = laptop.run(["init", "--parent", "--restore", "--recovery-file", kit])
        #expect(restored.status == 0, "\(restored.stderr)")
    }

    @Test func aRestoreFromTheTypedKeyOnAClockBeforeThisReleaseIsRefused() throws {
        let box = CLI.Sandbox()
        let (_, kit) = try Self.parent(in: box)
        // The key as typed from the sheet: no day.
        let qr = try String(contentsOfFile: kit, encoding: .utf8)
        let typed = box.write("typed.txt", String(qr.dropFirst(5).prefix(35)) + "\n")
        let laptop = Machine(box, "laptop")
        let early = Self.run(laptop, ["init", "--parent", "--restore", "--recovery-file", typed], clock: "@2020-01-01 12:00:00")
        Self.expectClockRefusal(early, saying: "before this version of lomme-vault was made")
        #expect(!FileManager.default.fileExists(atPath: laptop.vault), "no vault was made")
    }

    @Test func aNewKitOrAParentAddedOnALaggingClockIsRefused() throws {
        let box = CLI.Sandbox()
        let (parent, kit) = try Self.parent(in: box)
        let far = Machine(box, "far")
        try #require(far.run(["init", "--parent", "--join"]).status == 0)
        let key = try #require(far.run(["key", "--parent", "--text"]).out.split(separator: "\n").first.map(String.init))
        let before = readFile(parent.vault)
        let newKit = box.path + "/new.pdf"
        Self.expectClockRefusal(Self.run(parent, ["recovery", "kit", "--output", newKit, "--recovery-file", kit], clock: "-1d"),
                                saying: "more than an hour before the newest time this vault has seen")
        #expect(!FileManager.default.fileExists(atPath: newKit), "no kit was written")
        let handOver = box.path + "/far.lvh"
        Self.expectClockRefusal(Self.run(parent, ["parent", "add", "far", "--key", key, "--recovery-file", kit, "--output", handOver, "--yes"], clock: "-1d"),
                                saying: "more than an hour before the newest time this vault has seen")
        #expect(!FileManager.default.fileExists(atPath: handOver), "nothing was handed over")
        #expect(readFile(parent.vault) == before, "the vault is as it was")
        // On the right clock both succeed.
        #expect(parent.run(["parent", "add", "far", "--key", key, "--recovery-file", kit, "--output", handOver, "--yes"]).status == 0)
        let renewed = parent.run(["recovery", "kit", "--output", newKit, "--recovery-file", kit])
        #expect(renewed.status == 0, "\(renewed.stderr)")
    }
}
