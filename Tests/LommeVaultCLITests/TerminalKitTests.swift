import Foundation
import LommeTestSupport
import Testing

/// The recovery kit on a terminal, as a parent meets it (tmux): `init --parent` and
/// `recovery kit` draw it, take exactly the two groups they ask for (two other groups of the
/// same key are refused and asked again), and after a right answer the key is gone from the
/// screen and from the scrollback.
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
}
