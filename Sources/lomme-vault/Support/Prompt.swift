import Glibc
import LommeCore

/// Questions asked on the controlling terminal (`/dev/tty`), never on stdin/stdout, so
/// pipes stay clean. Secrets are read with echo off and returned as bytes.
enum Prompt {
    /// True when there is a terminal to ask on.
    static var isAvailable: Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Asks `question` on the terminal and returns the answer without its line end.
    /// With `echo: false` the typed characters are not shown (and the terminal is put
    /// back even if the user presses Ctrl-C).
    static func ask(_ question: String, echo: Bool = true) throws(LommeError) -> [UInt8] {
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LommeError(.locked, .noTerminalToAsk, "no terminal to ask on; pass the value with --passphrase-fd or --passphrase-file (or a --from file)")
        }
        defer { close(descriptor) }
        var saved = termios()
        let canHideEcho = !echo && tcgetattr(descriptor, &saved) == 0
        if canHideEcho {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
            quiet.c_lflag |= tcflag_t(ICANON)
            savedTerminal = SavedTerminal(descriptor: descriptor, settings: saved)
            installRestoreHandlers()
            tcsetattr(descriptor, TCSAFLUSH, &quiet)
        }
        // The question only once echo is off: an answer typed (or pasted) the moment it
        // appears is neither shown nor flushed. Wrapped at words to the terminal's width as
        // messages are; the space after it stays.
        let body = String(question.reversed().drop(while: { $0 == " " }).reversed())
        let shown = Terminal.columns(descriptor).map { Terminal.wrapped(body, columns: $0) } ?? body
        Terminal.write(shown + question.dropFirst(body.count), to: descriptor)
        defer {
            if canHideEcho {
                tcsetattr(descriptor, TCSAFLUSH, &saved)
                savedTerminal = nil
                Terminal.write("\n", to: descriptor)
            }
        }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                if answer.isEmpty { throw LommeError.failure(.terminalClosed, "the terminal closed before an answer was typed") }
                break
            }
            if byte == 0x0A { break }
            answer.append(byte)
            if answer.count > 4096 { throw LommeError.failure(.answerTooLong, "the answer is too long (more than 4096 bytes)") }
        }
        if answer.last == 0x0D { answer.removeLast() }
        byte = 0
        return answer
    }

    /// A yes/no question; the default is no.
    static func confirm(_ question: String) throws(LommeError) -> Bool {
        let answer = String(decoding: try ask(question + " [y/N] "), as: UTF8.self).lowercased()
        return answer == "y" || answer == "yes" || answer == "j" || answer == "ja"
    }

    struct SavedTerminal {
        var descriptor: Int32
        var settings: termios
    }

    nonisolated(unsafe) static var savedTerminal: SavedTerminal?
    nonisolated(unsafe) static var handlersInstalled = false

    /// Puts the terminal's echo back if a signal ends us while it is off.
    static func installRestoreHandlers() {
        guard !handlersInstalled else { return }
        handlersInstalled = true
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber) { received in
                if var saved = Prompt.savedTerminal {
                    tcsetattr(saved.descriptor, TCSANOW, &saved.settings)
                    _ = Glibc.write(saved.descriptor, "\n", 1)
                }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}
