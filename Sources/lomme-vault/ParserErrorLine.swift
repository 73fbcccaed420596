import ArgumentParser
import Glibc
import LommeCore

/// ArgumentParser's own errors (and any error that is not a LommeError) in the shape of every
/// other message: one line on stderr, `lomme-vault: ` and lower-case text; a usage error
/// (exit 64) ends with where to read the usage. Help and `--version` go out as ArgumentParser
/// writes them.
enum ParserErrorLine {
    static func exit(_ error: any Error, arguments: [String]) -> Never {
        let code = LommeVaultCommand.exitCode(for: error)
        let message = LommeVaultCommand.message(for: error)
        guard code != .success, !message.isEmpty else { LommeVaultCommand.exit(withError: error) }
        var line = String(message.split(separator: "\n").first ?? "")
        if let first = line.first, first.isUppercase, !(line.dropFirst().first?.isUppercase ?? false) {
            line = first.lowercased() + line.dropFirst()
        }
        if code == .validationFailure {
            if line.hasSuffix(".") { line.removeLast() }
            let command = CommandWord.command(in: arguments, commands: LommeVaultCommand.commandNames)
            line += "; see `lomme-vault \(command.map { $0 + " " } ?? "")--help`"
        }
        Terminal.error(line)
        Glibc.exit(code.rawValue)
    }
}

extension LommeVaultCommand {
    /// The subcommands' names, and `help`.
    static var commandNames: [String] { configuration.subcommands.map { $0._commandName } + ["help"] }
}
