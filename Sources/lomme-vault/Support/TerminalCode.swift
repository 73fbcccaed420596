import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

/// Shows a checked QR code on stdout (`issue`, `key`, `init`).
///
/// On a terminal: in colour, and only once the window is large enough — a wrapped code is
/// garbage. If it is too small, one message says what size the code needs and how to get
/// it, and the code is drawn as soon as the window has grown (SIGWINCH); Ctrl-C stops the
/// wait (the default SIGINT: the shell reports 130; nothing was shown or written).
/// To a file or a pipe: plain text without colour escapes and without a size check (a file
/// does not wrap), dark modules as `█ ▀ ▄` ink for a light ground, as qrencode -t utf8 does.
///
/// `before` is the summary shown first (on stderr: the fields, the kind, the issuer's
/// fingerprint), `note` the line under the code. The window must hold the code and the
/// note together, so that the note cannot scroll the top of the code out of view.
enum TerminalCode {
    /// `before`: the summary, shown first, so that even a window too small for the code
    /// shows what is coming (and, while it waits, the size it needs). `note`: the text shown
    /// under the code (on stderr). `printedAfter`: what the caller prints itself right after
    /// the code (on stdout or stderr); its rows count like the note's.
    /// `instead`: what to run instead when the window is too small (how this command writes
    /// the code to a file), said while it waits; nil: `issue`'s (a lower --level, --output).
    static func show(_ code: IssuedCode, before: String? = nil, note: String? = nil, printedAfter: [String] = [],
                     instead: String? = nil) throws {
        let style = QRRender.TerminalStyle.forTerminal(getenv("TERM").map { String(cString: $0) })
        guard Terminal.isTerminal(STDOUT_FILENO) else {
            if let before { Terminal.info(before) }
            try Terminal.output(try code.plainText(style: style))
            if let note { Terminal.info(note) }
            return
        }
        let text = try code.terminalText(style: style)
        let columns = (code.matrix.size + 2 * QRRender.quietZone) * (style == .fullBlocks ? 2 : 1)
        // The summary's lines, the code's, the note's (wrapped at the code's width, the
        // narrowest window that fits), and one more for the cursor after them.
        let around = (before.map { [$0] } ?? []) + (note.map { [$0] } ?? []) + printedAfter
        let rows = text.split(separator: "\n").count + around.reduce(0) { $0 + wrappedRows($1, columns: columns) } + 1
        if let before { Terminal.info(before) }
        let lower = code.matrix.level == .L ? "" : "a lower --level than \(code.matrix.level.rawValue) or "
        waitUntilFits((columns, rows), instead: instead ?? "\(lower)--output code.png")
        try Terminal.output(text)
        if let note { Terminal.info(note) }
    }

    /// How many rows `text` takes in a window `columns` wide: wrapped at words as
    /// `Terminal.info` wraps it, and a word longer than a line cut by the terminal.
    static func wrappedRows(_ text: String, columns: Int) -> Int {
        Terminal.wrapped(text, columns: columns).split(separator: "\n", omittingEmptySubsequences: false)
            .reduce(0) { $0 + max(1, ($1.count + columns - 1) / columns) }
    }

    /// The window's size in cells, or nil when the terminal does not know it.
    static func windowSize() -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Waits, when the window is smaller than `needed`, until it has grown (or Ctrl-C),
    /// saying so once. True when it waited: the message is on the screen above the cursor.
    @discardableResult
    static func waitUntilFits(_ needed: (columns: Int, rows: Int), instead: String) -> Bool {
        waitUntil(fits: { $0.columns >= needed.columns && $0.rows >= needed.rows }, needs: { _ in needed }, instead: instead)
    }

    /// Waits until the window `fits` (never when the terminal does not know its size),
    /// after one message naming the size `needs` gives for the window it has: `what` needs
    /// it, and `drawn` is what happens when the window is large enough. True when it waited.
    static func waitUntil(_ what: String = "the QR code", drawn: String = "The code is drawn",
                          fits: (_ window: (columns: Int, rows: Int)) -> Bool,
                          needs: (_ window: (columns: Int, rows: Int)) -> (columns: Int, rows: Int), instead: String) -> Bool {
        guard let size = windowSize(), !fits(size) else { return false }
        let needed = needs(size)
        // SIGWINCH is ignored by default; a handler makes it cut the sleep below short.
        signal(SIGWINCH) { _ in }
        defer { signal(SIGWINCH, SIG_DFL) }
        // Ctrl-C ends the wait even when whoever started us left SIGINT ignored; after it,
        // the handler it had (a question's, which puts echo back) is put back.
        let interrupt = signal(SIGINT, SIG_DFL)
        defer { signal(SIGINT, interrupt) }
        Terminal.info("""
            lomme-vault: \(what) needs a terminal of at least \(needed.columns) columns × \(needed.rows) rows, \
            and this one is \(size.columns) × \(size.rows): enlarge the window or zoom out (Ctrl and -), \
            or stop (Ctrl-C) and use \(instead). \(drawn) when the window is large enough.
            """)
        while let now = windowSize(), !fits(now) {
            usleep(250_000)
        }
        return true
    }
}
