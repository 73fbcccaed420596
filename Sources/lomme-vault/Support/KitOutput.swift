import ArgumentParser
import Glibc
import LommeCore
import LommeQR
import LommePrint
import LommeVaultKit

/// Gives a recovery kit: a file (PDF for A4 or Letter, PNG, SVG by its name; mode 0600,
/// never over an existing file), or the terminal, where the parent then types two of its
/// groups back. Nothing is written to the vault before the kit was given.
enum KitOutput {
    /// The kit's page, from the key and the household key it derives.
    static func kit(_ key: RecoveryKey, household: String) -> RecoveryKit {
        RecoveryKit(keyText: key.text, qrText: key.qrText, household: household, date: (key.made ?? .now()).day,
                    earlierKits: key.chain.count)
    }

    /// Writes the kit to `path` (mode 0600; an existing file is never replaced), into a
    /// folder of the user's own: the check `issue --all --output-dir` makes (OutputFolder),
    /// so nobody who may write into the folder can swap the kit before it is printed.
    /// `unchanged`: what a refusal leaves undone ("nothing was made").
    static func write(_ kit: RecoveryKit, to path: String, paper: Paper, unchanged: String) throws {
        let (folderPath, name) = OutputFolder.split(path)
        let folder = try OutputFolder(folderPath, holding: "the recovery kit", make: false, unchanged: unchanged)
        if folder.holds(name) {
            throw LommeError.failure(.outputFileExists, "\(path) exists; a recovery kit is never written over a file (it may be another kit): name a new file")
        }
        try folder.replace(name, with: try kit.fileBytes(for: path, paper: paper), mode: 0o600)
    }

    /// Whether the kit may be shown on the terminal: someone to type two groups back, and
    /// both streams it is drawn on — its code on stdout, its key's text and words on stderr
    /// — the same terminal. A stream sent to a file or a pipe (`2>setup.log`, `> out.txt`)
    /// would keep the whole key there, where clearing the screen does not reach: the kit is
    /// then not shown, as when there is no terminal at all.
    static func canShow(_ interaction: any Interaction, noPrompt: Bool) -> Bool {
        guard !noPrompt, interaction.canAsk else { return false }
        var output = stat(), errors = stat()
        guard Terminal.isTerminal(STDOUT_FILENO), Terminal.isTerminal(STDERR_FILENO),
              fstat(STDOUT_FILENO, &output) == 0, fstat(STDERR_FILENO, &errors) == 0 else { return false }
        return output.st_rdev == errors.st_rdev
    }

    /// Shows the kit on the terminal and has the parent type back two of its groups (asked
    /// again until they match; Ctrl-C stops with nothing made). Screen by screen, so that a
    /// window of 80 × 24 holds each (`KitScreens`): the key as text; its QR code alone; what
    /// the sheet is for, with the question under it. Each waits for Enter before the screen
    /// is cleared and the next drawn. A window that cannot hold every screen waits for the
    /// window to grow before the first (again before any other if it shrank meanwhile),
    /// saying the size it needs and `instead`, how this command writes the kit to a file.
    /// The first screen is drawn under what the terminal showed before; after the right
    /// answer the screen and its scrollback are cleared.
    static func showAndCheck(_ kit: RecoveryKit, key: RecoveryKey, _ interaction: any Interaction, instead: String) throws {
        let text = kit.terminalScreens()
        let code = try kit.code()
        let style = QRRender.TerminalStyle.forTerminal(getenv("TERM").map { String(cString: $0) })
        let drawing = try code.terminalText(style: style)
        let groups = key.text.split(separator: "-").map(String.init)
        var mistake: String?
        while true {
            let first = Int.random(in: 0..<groups.count)
            var second = Int.random(in: 0..<groups.count - 1)
            if second >= first { second += 1 }
            let (a, b) = (min(first, second), max(first, second))
            let screens = KitScreens(key: mistake.map { $0 + "\n\n" + text.key } ?? text.key, drawing: drawing,
                                     codeColumns: (code.matrix.size + 2 * QRRender.quietZone) * (style == .fullBlocks ? 2 : 1),
                                     keyColumns: (kit.keyLines.map(\.count).max() ?? 0) + 4, caption: text.caption, words: text.words,
                                     question: "Written down? Type group \(a + 1) and group \(b + 1) of the recovery key (with a space between): ")
            // 1. The key as text (after a wrong answer, under the words saying so).
            try screens.waitForWindow(instead: instead)
            Terminal.info(screens.key)
            try pause(interaction, KitScreens.keyQuestion)
            // 2. Its QR code, on a screen of its own.
            try nextScreen()
            try screens.waitForWindow(instead: instead)
            try Terminal.output(screens.drawing)
            Terminal.info(screens.caption)
            try pause(interaction, KitScreens.codeQuestion)
            // 3. What the sheet is for; then two of its groups typed back.
            try nextScreen()
            try screens.waitForWindow(instead: instead)
            Terminal.info(screens.words)
            var typed = try interaction.askSecret(screens.question).bytes
            defer { SecureBytes.wipe(&typed) }
            let answer = String(decoding: typed, as: UTF8.self).uppercased().split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
            if answer == [groups[a], groups[b]] {
                try Terminal.output("\u{1B}[H\u{1B}[2J\u{1B}[3J")  // the key off the screen and its scrollback
                return
            }
            mistake = "Those are not groups \(a + 1) and \(b + 1) of the key: check what you wrote down against the kit shown again."
            try nextScreen()
        }
    }

    /// The screen cleared for the next one (the scrollback is cleared once, at the end).
    static func nextScreen() throws {
        try Terminal.output("\u{1B}[H\u{1B}[2J")
    }

    /// Waits for Enter (anything typed before it is neither shown nor kept).
    static func pause(_ interaction: any Interaction, _ question: String) throws {
        var typed = try interaction.askSecret(question).bytes
        SecureBytes.wipe(&typed)
    }
}

/// The recovery kit's three screens on a terminal, each shown alone with its question under
/// it, and the window that holds every one of them: the key as text (`key`, stderr), its QR
/// code (`drawing`, stdout; `caption` under it), what the sheet is for (`words`) with the
/// type-back `question`. A version-3 code (the kit of `init --parent`) takes 37 columns ×
/// 21 rows in half blocks, and each screen fits 80 × 24 (the window named when it is too
/// small: 72 × 21, every line of text unbroken); a kit that replaced an earlier one carries
/// the hand-over in a version-10 code, which needs 72 × 35 (two earlier kits: 77 × 41).
struct KitScreens {
    static let keyQuestion = "Press Enter for its QR code: "
    static let codeQuestion = "Press Enter to go on: "

    var key: String
    var drawing: String
    /// The code's width in columns, quiet zone included.
    var codeColumns: Int
    /// The narrowest window that shows the key's lines unbroken.
    var keyColumns: Int
    var caption: String
    var words: String
    var question: String

    /// The narrowest window: the code unwrapped and the key's lines unbroken.
    var narrowest: Int { max(codeColumns, keyColumns) }

    /// The rows the tallest screen takes in a window `columns` wide: its text wrapped at
    /// words as `Terminal.info` wraps it, and the question under it (the cursor on its
    /// last row).
    func rows(columns: Int) -> Int {
        max(TerminalCode.wrappedRows(key, columns: columns) + Self.questionRows(Self.keyQuestion, columns: columns),
            drawing.split(separator: "\n").count + TerminalCode.wrappedRows(caption, columns: columns)
                + Self.questionRows(Self.codeQuestion, columns: columns),
            TerminalCode.wrappedRows(words, columns: columns) + Self.questionRows(question, columns: columns))
    }

    /// A window that holds every screen without breaking a line of the kit's own: the size
    /// a window too small is told.
    var roomy: (columns: Int, rows: Int) {
        let widest = (key + "\n" + words).split(separator: "\n").map(\.count).max() ?? 0
        let columns = max(narrowest, min(widest, 80))
        return (columns, rows(columns: columns))
    }

    /// Waits, when the window cannot hold every screen, for it to grow (Ctrl-C stops); the
    /// message said while it waits is then cleared.
    func waitForWindow(instead: String) throws {
        let waited = TerminalCode.waitUntil("the recovery kit", drawn: "The kit is drawn",
                                            fits: { $0.columns >= narrowest && rows(columns: $0.columns) <= $0.rows },
                                            needs: { _ in roomy }, instead: instead)
        if waited { try KitOutput.nextScreen() }
    }

    /// The rows a question takes in a window `columns` wide, as `Prompt` shows it (wrapped
    /// at words, the spaces after it kept).
    static func questionRows(_ question: String, columns: Int) -> Int {
        let body = String(question.reversed().drop(while: { $0 == " " }).reversed())
        let shown = Terminal.wrapped(body, columns: columns) + question.dropFirst(body.count)
        return shown.split(separator: "\n", omittingEmptySubsequences: false).reduce(0) { $0 + max(1, ($1.count + columns - 1) / columns) }
    }
}

extension Paper: ExpressibleByArgument {}
