import CLazyLibraries
import Glibc
import LommeCore
import LommeVaultKit

/// Messages for people go to stderr, one line each; stdout carries only data.
///
/// Whatever reaches a person passes through `TerminalText` (control characters escaped),
/// so text from a QR code or a server quoted in a message cannot drive the terminal.
enum Terminal {
    /// One line on stderr: every control character in it escaped, a line break too.
    static func error(_ message: String) {
        write("lomme-vault: \(TerminalText.line(message))\n", to: STDERR_FILENO)
    }

    /// A message on stderr: line breaks kept, every other control character escaped.
    static func info(_ message: String) {
        write(TerminalText.lines(message) + "\n", to: STDERR_FILENO)
    }

    /// Text for a person on stdout (`scan`, `status`): line breaks kept, every other
    /// control character escaped.
    static func show(_ text: String) {
        write(TerminalText.lines(text), to: STDOUT_FILENO)
    }

    /// A value on stdout (`get`, `scan --raw`): the exact bytes to a pipe or a file; on a
    /// terminal, control characters escaped as `show` does, so a value cannot drive it.
    static func data(_ text: String) {
        write(isTerminal(STDOUT_FILENO) ? TerminalText.lines(text) : text, to: STDOUT_FILENO)
    }

    /// Writes the exact bytes of `text` to stdout (text the tool made itself: QR blocks,
    /// JSON with every control escaped, a token checked to be printable ASCII).
    static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

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
        _exit(code)
    }
}
