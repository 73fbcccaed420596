import Foundation
import LommeTestSupport
import Testing

/// The recovery kit on a terminal, as a parent meets it (tmux): `init --parent` and
/// `recovery kit` draw it, take exactly the two groups they ask for (two other groups of the
/// same key are refused and asked again), and after a right answer the key is gone from the
/// screen and from the scrollback. Shown only when both streams it is drawn on are the
/// terminal: `2>setup.log` or `> out.txt` never gets the key.
@Suite("The recovery kit on a terminal")
struct TerminalKitTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// The screen and the whole scrollback, lines the terminal wrapped joined again.
    static func history(_ tty: TmuxSession) -> String {
        tty.tmux(["capture-pane", "-p", "-J", "-t", "t", "-S", "-"])
    }

    /// The key's seven groups as the kit shows them (the lines under "Recovery key:").
    static func groups(on screen: String) throws -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.lastIndex { $0.hasPrefix("Recovery key:") }, "no key on the screen:\n\(screen)")
        let groups = lines[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .flatMap { $0.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) } }
        try #require(groups.count == 7 && groups.allSatisfy { $0.count == 5 }, "\(groups)")
        return groups
    }

    /// The two groups (0-based) the last question asks for.
    static func asked(on screen: String) throws -> (Int, Int) {
        let question = try #require(screen.components(separatedBy: "Type group ").last)
        let numbers = question.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        try #require(numbers.count == 2, "\(question)")
        return (numbers[0] - 1, numbers[1] - 1)
    }

    /// Waits until the screen shows one of `texts` (as long as it takes: a guard against a
    /// hang, never a measure of speed), and returns it.
    static func waitForAny(_ tty: TmuxSession, _ texts: [String]) -> String? {
        for _ in 0..<12_000 {
            let flowed = tty.flowed
            if let seen = texts.first(where: { flowed.contains(TmuxSession.flowing($0)) }) { return seen }
            usleep(50_000)
        }
        Issue.record("the terminal never showed any of \(texts):\n\(tty.screen)")
        return nil
    }

    /// Types two groups of the key that were not asked for (refused: the kit again), then the
    /// two asked; then the key must be on neither the screen nor the scrollback.
    static func typeBack(_ tty: TmuxSession) throws -> [String] {
        try #require(tty.wait(for: "Written down? Type group"))
        let groups = try Self.groups(on: tty.screen)
        let (a, b) = try Self.asked(on: tty.screen)
        let others = (0..<7).filter { $0 != a && $0 != b }
        tty.type(groups[others[0]] + " " + groups[others[1]])
        let answer = Self.waitForAny(tty, ["Those are not groups", "EXIT="])
        #expect(answer == "Those are not groups", "two groups of the key that were not asked for were taken:\n\(tty.screen)")
        guard answer == "Those are not groups" else { return groups }
        try #require(tty.wait(for: "Written down? Type group", count: 2))
        let (c, d) = try Self.asked(on: tty.screen)
        #expect(try Self.groups(on: tty.screen) == groups, "the same kit is shown again")
        tty.type(groups[c].lowercased() + " " + groups[d])
        try #require(tty.wait(for: "EXIT="))
        let history = Self.history(tty)
        #expect(history.contains("EXIT=0"), "\(history)")
        for group in groups {
            #expect(!history.contains(group), "the key's group \(group) is still on the screen or in the scrollback:\n\(history)")
        }
        return groups
    }

    @Test func initParentTakesExactlyTheGroupsAskedAndClearsTheKey() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        let tty = TmuxSession(box, command: "\"$LV\" init --parent --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'",
                              columns: 100, rows: 60)
        let groups = try Self.typeBack(tty)
        // What was read from the screen is the vault's key.
        let file = box.write("kit.txt", groups.joined(separator: "-") + "\n")
        let verified = parent.run(["recovery", "verify", "--recovery-file", file])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test func recoveryKitTakesExactlyTheGroupsAskedAndClearsTheKey() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let tty = TmuxSession(box, command: "\"$LV\" recovery kit --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'",
                              columns: 100, rows: 60)
        let groups = try Self.typeBack(tty)
        let file = box.write("kit.txt", groups.joined(separator: "-") + "\n")
        let verified = parent.run(["recovery", "verify", "--recovery-file", file])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    /// `2>setup.log` (or stdout to a file) on a terminal: the kit is not shown, and the key
    /// is in no file; `init` makes the vault without a kit and says so, `recovery kit`
    /// refuses and changes nothing.
    @Test func aStreamSentToAFileNeverGetsTheKit() throws {
        let box = CLI.Sandbox()
        for (name, redirection) in [("errors", "2>"), ("output", ">")] {
            let parent = Machine(box, name)
            let log = box.path + "/\(name)-init.txt"
            let tty = TmuxSession(box, command: "\"$LV\" init --parent --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw' \(redirection)'\(log)'",
                                  columns: 100, rows: 60)
            // A kit drawn would wait for its groups: its question ends the wait as well.
            try #require(Self.waitForAny(tty, ["EXIT=", "Written down?"]) == "EXIT=", "\(name): the kit was drawn:\n\(tty.screen)")
            #expect(tty.screen.contains("EXIT=0"), "\(tty.screen)")
            let said = String(decoding: readFile(log), as: UTF8.self) + Self.history(tty)
            #expect(!said.contains("Recovery key:") && !said.contains("Written down?"), "\(name): \(said)")
            #expect(said.contains("No recovery kit was made"), "\(name): \(said)")
            // The vault has no recovery slot: no kit was made.
            let slots = CLI.run(["slots", "--json", "--vault", parent.vault])
            #expect(slots.status == 0 && !slots.out.contains("recovery"), "\(slots.out)")
            // recovery kit, the same way: refused, the vault unchanged.
            let before = readFile(parent.vault)
            let kitLog = box.path + "/\(name)-kit.txt"
            let kit = TmuxSession(box, command: "\"$LV\" recovery kit --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw' \(redirection)'\(kitLog)'",
                                  columns: 100, rows: 60)
            try #require(Self.waitForAny(kit, ["EXIT=", "Written down?"]) == "EXIT=", "\(name): the kit was drawn:\n\(kit.screen)")
            #expect(kit.screen.contains("EXIT=1"), "\(kit.screen)")
            let kitSaid = String(decoding: readFile(kitLog), as: UTF8.self) + Self.history(kit)
            #expect(!kitSaid.contains("Recovery key:") && kitSaid.contains("no terminal to show the recovery kit on"), "\(name): \(kitSaid)")
            #expect(readFile(parent.vault) == before)
        }
    }

    /// `recovery kit 2>FILE` of a household with a kit: refused before the old kit is asked
    /// for (it could not be used).
    @Test func aKitWithNowhereToGoAsksForNothing() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent", "--recovery-kit", box.path + "/kit.pdf"]).status == 0)
        let tty = TmuxSession(box, command: "\"$LV\" recovery kit --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw' 2>'\(box.path)/kit.log'",
                              columns: 100, rows: 60)
        #expect(Self.waitForAny(tty, ["EXIT=", "Recovery key (as printed"]) == "EXIT=", "the old kit was asked for:\n\(tty.screen)")
        #expect(tty.screen.contains("EXIT=1"), "\(tty.screen)")
    }

    /// A window too small for the kit's code: each command names its own way to a file
    /// (`recovery kit` has --output; only `init --parent` has --recovery-kit).
    @Test func aSmallWindowIsToldEachCommandsOwnOption() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        let options = "--vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'"
        // The script's shell ignores SIGINT so that it lives to print the exit status.
        let made = TmuxSession(box, command: "trap '' INT; \"$LV\" init --parent \(options)", columns: 100, rows: 20)
        try #require(made.wait(for: "drawn when the window is large enough"))
        #expect(made.flowed.contains("lomme-vault init --parent --recovery-kit kit.pdf"), "\(made.screen)")
        made.tmux(["send-keys", "-t", "t", "C-c"])
        try #require(made.wait(for: "EXIT="))
        #expect(!FileManager.default.fileExists(atPath: parent.vault), "Ctrl-C before the kit was given: no vault")

        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let kit = TmuxSession(box, command: "\"$LV\" recovery kit \(options)", columns: 100, rows: 20)
        try #require(kit.wait(for: "drawn when the window is large enough"))
        #expect(kit.flowed.contains("lomme-vault recovery kit --output kit.pdf") && !kit.flowed.contains("--recovery-kit"), "\(kit.screen)")
    }
}
