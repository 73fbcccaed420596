import Glibc
import LommeCore
import LommeVaultKit

/// The library's questions and notices on the controlling terminal: questions on
/// `/dev/tty` (`Prompt`, secrets with echo off), notices on stderr (`Terminal.info`),
/// progress on stderr only when it is a terminal, wiped away when the step is done.
final class TerminalInteraction: Interaction {
    var canAsk: Bool { Prompt.isAvailable }

    func ask(_ prompt: String) throws(LommeError) -> String {
        String(decoding: try Prompt.ask(prompt), as: UTF8.self)
    }

    func askSecret(_ prompt: String) throws(LommeError) -> SecureBytes {
        var typed = try Prompt.ask(prompt, echo: false)
        defer { SecureBytes.wipe(&typed) }
        return SecureBytes(copying: typed)
    }

    func confirm(_ question: String) throws(LommeError) -> Bool {
        try Prompt.confirm(question)
    }

    func notice(_ text: String) {
        Terminal.info(text)
    }

    func progress<R>(_ text: String, _ body: () throws(LommeError) -> R) throws(LommeError) -> R {
        let show = Terminal.isTerminal(STDERR_FILENO)
        if show { Terminal.write(text, to: STDERR_FILENO) }
        defer { if show { Terminal.write("\r\u{1B}[K", to: STDERR_FILENO) } }
        return try body()
    }
}
