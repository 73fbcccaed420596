import CLazyLibraries
import Glibc
import LommeCore
import LommeVaultKit

/// Messages for people go to stderr, one line each; stdout carries only data.
///
/// Whatever reaches a person passes through `TerminalText` (control characters escaped),
/// so text from a QR code or a server quoted in a message cannot drive the terminal.
enum Terminal {
    /// One line on stderr: every control character in it escaped, a line break too. On a
    /// terminal it is wrapped at words to the window's width (`wrappedForStderr`).
    static func error(_ message: String) {
        write(wrappedForStderr("lomme-vault: \(TerminalText.line(message))") + "\n", to: STDERR_FILENO)
    }

    /// A failure that ends the command: its one line, then its reason (`reason(_:)`).
    static func fail(_ error: LommeError) {
        self.error(error.message)
        reason(error.reason)
    }

    /// With `LOMME_VAULT_REASON=1`, what went wrong by name on a line of its own,
    /// `lomme-vault: reason: NAME` (docs/commands.md, "Exit codes"): a debugging aid, the
    /// name tests match where the message before it is for people. Said after a failure's
    /// message, never after a success.
    static func reason(_ reason: LommeError.Reason) {
        guard let setting = getenv("LOMME_VAULT_REASON"), String(cString: setting) == "1" else { return }
        write("lomme-vault: reason: \(reason.rawValue)\n", to: STDERR_FILENO)
    }

    /// A message on stderr: line breaks kept, every other control character escaped; on a
    /// terminal each line wrapped at words to the window's width.
    static func info(_ message: String) {
        write(wrappedForStderr(TerminalText.lines(message)) + "\n", to: STDERR_FILENO)
    }

    /// `text` wrapped at words to the width of the terminal stderr is (a long line would
    /// otherwise be cut mid-word by the terminal); unchanged when stderr is a pipe or a
    /// file, which gets each message as one line.
    static func wrappedForStderr(_ text: String) -> String {
        guard let columns = columns(STDERR_FILENO) else { return text }
        return wrapped(text, columns: columns)
    }

    /// The width of the terminal `descriptor` is, nil when it is none.
    static func columns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard isTerminal(descriptor), ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Each line of `text` broken at spaces into lines of at most `columns` characters
    /// (a character a column: the tool's own text is no wider). A word longer than a whole
    /// line stays whole on a line of its own (the terminal cuts it; nothing else can).
    /// The spaces where a line is broken are dropped; other runs of spaces are kept. A
    /// line's continuations are indented as its text is (`hangingIndent`): under the text
    /// of a numbered step or a bullet, and with `labels`, under a `label:` column's value.
    static func wrapped(_ text: String, columns: Int, labels: Bool = false) -> String {
        guard columns > 1 else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.count > columns else { return String(line) }
            let indent = String(repeating: " ", count: hangingIndent(of: line, labels: labels, columns: columns))
            var lines: [String] = []
            // The line's leading spaces stay on its first line, before its first word.
            let leading = line.prefix { $0 == " " }
            var words = line.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false)[...]
            var current = String(leading) + (words.popFirst() ?? "")
            for word in words {
                if current.count + 1 + word.count <= columns {
                    current += " " + word
                } else if word.isEmpty {
                    continue  // a space at the break: dropped
                } else {
                    if !current.isEmpty { lines.append(current) }
                    current = (current.isEmpty ? "" : indent) + word
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Where the text of `line` starts, for its continuation lines: after its leading
    /// spaces, and after `1. ` or `- ` (a step or a bullet); with `labels`, after a
    /// `label:` and the spaces that pad it (`status`). At most half the width, so a
    /// continuation always has room.
    static func hangingIndent(of line: Substring, labels: Bool, columns: Int) -> Int {
        let characters = Array(line)
        var index = characters.prefix { $0 == " " }.count
        let rest = characters[index...]
        let digits = rest.prefix { $0.isASCII && $0.isNumber }.count
        if digits > 0, rest.dropFirst(digits).starts(with: [".", " "]) {
            index += digits + 2
        } else if rest.starts(with: ["-", " "]) {
            index += 2
        } else if labels, let colon = rest.prefix(24).firstIndex(of: ":"), colon + 1 < characters.count, characters[colon + 1] == " " {
            index = colon + 1
            while index < characters.count, characters[index] == " " { index += 1 }
        }
        return index <= columns / 2 ? index : 0
    }

    /// Lines of `label:  value` for a person on stdout (`status`): control characters
    /// escaped; on a terminal each wrapped at words, its continuations under the values.
    /// Throws as `output` does.
    static func labelled(_ lines: [String]) throws(LommeError) {
        let text = lines.map(TerminalText.line).joined(separator: "\n")
        try output((columns(STDOUT_FILENO).map { wrapped(text, columns: $0, labels: true) } ?? text) + "\n")
    }

    /// Text for a person on stdout (`scan`, `status`): line breaks kept, every other
    /// control character escaped. Throws as `output` does.
    static func show(_ text: String) throws(LommeError) {
        try output(TerminalText.lines(text))
    }

    /// A value on stdout (`get`, `scan --raw`): the exact bytes to a pipe or a file; on a
    /// terminal, control characters escaped as `show` does, so a value cannot drive it.
    /// Throws as `output` does.
    static func data(_ text: String) throws(LommeError) {
        try output(isTerminal(STDOUT_FILENO) ? TerminalText.lines(text) : text)
    }

    /// Writes the exact bytes of `text` to stdout (text the tool made itself: QR blocks,
    /// JSON with every control escaped, a token checked to be printable ASCII). Data that
    /// did not reach stdout (a full disk, a closed stdout, a reader gone while SIGPIPE is
    /// ignored) fails the command: exit 1, `.standardOutputFailed`, never a silent 0.
    static func output(_ text: String) throws(LommeError) {
        guard FileIO.writeAll(Array(text.utf8), to: STDOUT_FILENO) else {
            let reason = errno == EBADF ? "it is closed" : String(cString: strerror(errno))
            throw LommeError.failure(.standardOutputFailed, "cannot write to standard output (\(reason))")
        }
    }

    /// Messages (stderr, a prompt on the terminal): a failure to write one has nowhere to be
    /// told, so it is not.
    static func write(_ text: String, to descriptor: Int32) {
        FileIO.writeAll(Array(text.utf8), to: descriptor)
    }

    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}

extension Terminal {
    /// For CLazyLibraries: a picture or QR library that cannot be loaded, told as every
    /// message is, then the end (the loader's caller cannot be given an error). Not on the
    /// main actor: the scanner's worker threads load zbar (also under the camera's preview).
    static let libraryFailure: lomme_lazy_failure_handler = { message, code in
        // zbar loaded on the first frame: the camera preview's cursor back first
        CameraPreview.restoreFromSignal()
        error(message.map { String(cString: $0) } ?? "a picture or QR library cannot be loaded")
        reason(.libraryMissing)
        _exit(code)
    }
}
