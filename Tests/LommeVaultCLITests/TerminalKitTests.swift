import Foundation
import LommeImages
import LommeQR
import LommeTestSupport
import Testing

/// The recovery kit on a terminal, as a parent meets it (tmux): `init --parent` and
/// `recovery kit` draw it screen by screen in a default 80 × 24 window, none asking for a
/// larger one — the key as text, Enter, its QR code alone (read back by zbarimg from the
/// window's cells), Enter, what the sheet is for with the question — and take exactly the
/// two groups they ask for (two other groups of the same key are refused and asked again);
/// after a right answer the key is gone from the screen and from the scrollback. Shown only
/// when both streams it is drawn on are the terminal: `2>setup.log` or `> out.txt` never
/// gets the key. A window that cannot hold a screen waits for a larger one.
@Suite("The recovery kit on a terminal")
struct TerminalKitTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// What each screen ends in: the question under it.
    static let keyScreen = "Press Enter for its QR code:", codeScreen = "Press Enter to go on:", question = "Written down? Type group"
    /// A window too small, and what waits for a larger one says.
    static let tooSmall = "needs a terminal of at least"

    /// The screen and the whole scrollback, lines the terminal wrapped joined again.
    static func history(_ tty: TmuxSession) -> String {
        tty.tmux(["capture-pane", "-p", "-J", "-t", "t", "-S", "-"])
    }

    /// The window alone as it shows now (no scrollback), lines the terminal wrapped joined.
    static func window(_ tty: TmuxSession) -> String {
        tty.tmux(["capture-pane", "-p", "-J", "-t", "t"])
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
    /// hang, never a measure of speed), and returns it. `window`: the window alone, without
    /// the scrollback (where the screens before it stay).
    static func waitForAny(_ tty: TmuxSession, _ texts: [String], window: Bool = false) -> String? {
        for _ in 0..<12_000 {
            let flowed = TmuxSession.flowing(window ? Self.window(tty) : tty.screen)
            if let seen = texts.first(where: { flowed.contains(TmuxSession.flowing($0)) }) { return seen }
            usleep(50_000)
        }
        Issue.record("the terminal never showed any of \(texts):\n\(tty.screen)")
        return nil
    }

    /// What zbarimg reads in the QR code the window shows: its cells, with their colours,
    /// turned into pixels as a terminal with `theme` shows them (4 a module side), as a PNG.
    static func codeInWindow(_ tty: TmuxSession, theme: QRVerify.Theme) throws -> String {
        let cells = tty.tmux(["capture-pane", "-p", "-e", "-N", "-t", "t"]).split(separator: "\n")
        let first = try #require(cells.firstIndex { $0.contains("48;5;") }, "no code in the window:\n\(Self.window(tty))")
        let last = try #require(cells.lastIndex { $0.contains("48;5;") })
        let image = QRVerify.imageFromTerminal(cells[first...last].joined(separator: "\n"), style: .halfBlocks, theme: theme)
        let png = tty.box.path + "/window-\(theme).png"
        #expect(FileManager.default.createFile(atPath: png, contents: Data(try PNGCodec.encode(image))))
        return CLI.run([], shell: "zbarimg --quiet --raw '\(png)'").out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The kit's screens, each alone in the window it has and none asking for a larger one:
    /// the key as text, whole (its groups read off the window), Enter; its QR code (read by
    /// zbarimg, on a dark and a light theme), Enter; what the sheet is for, and the question
    /// under it. Returns the groups and what the code holds. `resized`: the window has just
    /// grown, its message of a wait still in it until the kit is drawn.
    static func screens(_ tty: TmuxSession, mistake: Bool = false, resized: Bool = false) throws -> (groups: [String], code: String) {
        // Waiting for each screen, the screens but the one in the window till now end the
        // wait (it stays there until the next is drawn).
        let ends = [keyScreen, codeScreen, question, tooSmall, "EXIT="]
        try #require(Self.waitForAny(tty, ends.filter { !resized || $0 != tooSmall }, window: true) == keyScreen, "not the key first:\n\(Self.window(tty))")
        let keyWindow = Self.window(tty)
        let groups = try Self.groups(on: keyWindow)
        #expect(!keyWindow.contains("columns ×"), "the message of a wait is still in the window:\n\(keyWindow)")
        for text in ["lomme-vault recovery kit", "Household ", "Keep it like a passport"] + (mistake ? ["Those are not groups"] : []) {
            #expect(keyWindow.contains(text), "\(text) is not in the window:\n\(keyWindow)")
        }
        tty.tmux(["send-keys", "-t", "t", "Enter"])
        try #require(Self.waitForAny(tty, ends.filter { $0 != keyScreen }, window: true) == codeScreen, "not the code next:\n\(Self.window(tty))")
        let codeWindow = Self.window(tty)
        #expect(codeWindow.contains("The QR code holds the same key.") && !groups.contains { codeWindow.contains($0) }, "\(codeWindow)")
        let code = try Self.codeInWindow(tty, theme: .dark)
        #expect(try Self.codeInWindow(tty, theme: .light) == code, "the code in the window does not read on a light theme")
        tty.tmux(["send-keys", "-t", "t", "Enter"])
        try #require(Self.waitForAny(tty, ends.filter { $0 != codeScreen }, window: true) == question, "not the question last:\n\(Self.window(tty))")
        let wordsWindow = Self.window(tty)
        for text in ["What this sheet is", "lomme-vault init --parent --restore", "Keep it like a passport", "then delete the photo", "needs this one."] {
            #expect(TmuxSession.flowing(wordsWindow).contains(text), "\(text) is not in the window:\n\(wordsWindow)")
        }
        return (groups, code)
    }

    /// Goes through the kit's screens, types two groups of the key that were not asked for
    /// (refused: the kit again, from its first screen), then the two asked; then the key
    /// must be on neither the screen nor the scrollback, and no screen asked for a larger
    /// window. Returns the key's groups and what its QR code held.
    static func typeBack(_ tty: TmuxSession) throws -> (groups: [String], code: String) {
        let (groups, code) = try Self.screens(tty)
        #expect(code.hasPrefix("LVR1:" + groups.joined() + "."), "the QR code is not the key shown (\(code.count) characters)")
        let (a, b) = try Self.asked(on: Self.window(tty))
        let others = (0..<7).filter { $0 != a && $0 != b }
        tty.type(groups[others[0]] + " " + groups[others[1]])
        let answer = Self.waitForAny(tty, ["Those are not groups", "EXIT="], window: true)
        #expect(answer == "Those are not groups", "two groups of the key that were not asked for were taken:\n\(tty.screen)")
        guard answer == "Those are not groups" else { return (groups, code) }
        let again = try Self.screens(tty, mistake: true)
        #expect(again.groups == groups && again.code == code, "the same kit is shown again")
        let (c, d) = try Self.asked(on: Self.window(tty))
        tty.type(groups[c].lowercased() + " " + groups[d])
        try #require(tty.wait(for: "EXIT="))
        let history = Self.history(tty)
        #expect(history.contains("EXIT=0"), "\(history)")
        #expect(!history.contains(Self.tooSmall), "\(history)")
        for group in groups {
            #expect(!history.contains(group), "the key's group \(group) is still on the screen or in the scrollback:\n\(history)")
        }
        return (groups, code)
    }

    /// A new parent's first command, in a default window: the kit, screen by screen.
    @Test func initParentInAnEightyByTwentyFourWindowTakesExactlyTheGroupsAskedAndClearsTheKey() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        let tty = TmuxSession(box, command: "\"$LV\" init --parent --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'",
                              columns: 80, rows: 24)
        let (groups, code) = try Self.typeBack(tty)
        // What was read from the screen and from its code is the vault's key.
        for (name, text) in [("kit.txt", groups.joined(separator: "-")), ("code.txt", code)] {
            let verified = parent.run(["recovery", "verify", "--recovery-file", box.write(name, text + "\n")])
            #expect(verified.status == 0, "\(name): \(verified.stderr)")
        }
    }

    @Test func recoveryKitInAnEightyByTwentyFourWindowTakesExactlyTheGroupsAskedAndClearsTheKey() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let tty = TmuxSession(box, command: "\"$LV\" recovery kit --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'",
                              columns: 80, rows: 24)
        let (groups, code) = try Self.typeBack(tty)
        for (name, text) in [("kit.txt", groups.joined(separator: "-")), ("code.txt", code)] {
            let verified = parent.run(["recovery", "verify", "--recovery-file", box.write(name, text + "\n")])
            #expect(verified.status == 0, "\(name): \(verified.stderr)")
        }
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

    /// docs/commands.md, whose window table the README points to.
    static func windowTable() throws -> String {
        try String(contentsOfFile: packageRoot + "/docs/commands.md", encoding: .utf8)
    }

    /// The size a window too small is told the kit needs.
    static func needed(_ tty: TmuxSession) throws -> (columns: Int, rows: Int) {
        let needed = try #require(tty.flowed.firstMatch(of: /the recovery kit needs a terminal of at least (\d+) columns × (\d+) rows/),
                                  "\(tty.screen)")
        return (Int(needed.1)!, Int(needed.2)!)
    }

    /// A window that cannot hold every screen of the kit waits for a larger one before any of
    /// the kit is shown, naming a size that holds them all (no larger than 80 × 24) and each
    /// command's own way to a file (`recovery kit` has --output; only `init --parent` has
    /// --recovery-kit); once the window has grown, the kit is drawn from its first screen.
    @Test func aSmallWindowIsToldEachCommandsOwnOption() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        let options = "--vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'"
        // 80 × 20: the key's screen would fit, its code's not. The script's shell ignores
        // SIGINT so that it lives to print the exit status.
        let made = TmuxSession(box, command: "trap '' INT; \"$LV\" init --parent \(options)", columns: 80, rows: 20)
        try #require(Self.waitForAny(made, ["drawn when the window is large enough", Self.keyScreen]) == "drawn when the window is large enough")
        let size = try Self.needed(made)
        #expect(size.columns <= 80 && size.rows > 20 && size.rows <= 24, "\(size)")
        #expect(try Self.windowTable().contains("(`init --parent`, `recovery kit`) | \(size.columns) × \(size.rows) |"),
                "docs/commands.md's window table does not say \(size)")
        #expect(made.flowed.contains("lomme-vault init --parent --recovery-kit kit.pdf"), "\(made.screen)")
        #expect(!made.screen.contains("Recovery key:"), "a part of the kit was shown:\n\(made.screen)")
        made.tmux(["send-keys", "-t", "t", "C-c"])
        try #require(made.wait(for: "EXIT="))
        #expect(!FileManager.default.fileExists(atPath: parent.vault), "Ctrl-C before the kit was given: no vault")

        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit yet
        let kit = TmuxSession(box, command: "\"$LV\" recovery kit \(options)", columns: 30, rows: 12)
        try #require(Self.waitForAny(kit, ["drawn when the window is large enough", Self.keyScreen]) == "drawn when the window is large enough")
        #expect(try Self.needed(kit) == size, "the size needed is the same whatever the window")
        #expect(kit.flowed.contains("lomme-vault recovery kit --output kit.pdf") && !kit.flowed.contains("--recovery-kit"), "\(kit.screen)")
        kit.tmux(["resize-window", "-t", "t", "-x", "\(size.columns)", "-y", "\(size.rows)"])
        let (groups, code) = try Self.screens(kit, resized: true)
        #expect(code.hasPrefix("LVR1:" + groups.joined() + "."), "the QR code is not the key shown")
    }

    /// A kit that replaces an earlier one carries the hand-over in its code, which no window
    /// of 80 × 24 holds: `recovery kit` waits for the window it names before any of the kit
    /// is shown, then draws it screen by screen, its code read back whole.
    @Test func aKitThatReplacesAnotherWaitsForTheWindowItsCodeNeeds() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent", "--recovery-kit", box.path + "/old.png"]).status == 0)
        let old = box.write("old.txt", HouseholdStoryTests.decoded(box.path + "/old.png"))
        let tty = TmuxSession(box, command: "\"$LV\" recovery kit --recovery-file '\(old)' --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'",
                              columns: 80, rows: 24)
        try #require(Self.waitForAny(tty, ["drawn when the window is large enough", Self.keyScreen]) == "drawn when the window is large enough")
        let size = try Self.needed(tty)
        #expect(size.columns <= 80 && size.rows > 24, "\(size)")
        #expect(try Self.windowTable().contains("(its code carries the hand-over) | \(size.columns) × \(size.rows);"),
                "docs/commands.md's window table does not say \(size)")
        #expect(!tty.screen.contains("Recovery key:"), "a part of the kit was shown:\n\(tty.screen)")
        tty.tmux(["resize-window", "-t", "t", "-x", "80", "-y", "\(size.rows)"])
        let (groups, code) = try Self.screens(tty, resized: true)
        #expect(code.hasPrefix("LVR1:" + groups.joined() + ".") && code.contains("/"), "not the new key and its hand-over")
        let (a, b) = try Self.asked(on: Self.window(tty))
        tty.type(groups[a] + " " + groups[b])
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=0") && tty.flowed.contains("The new kit replaces the old one"), "\(tty.screen)")
    }
}
