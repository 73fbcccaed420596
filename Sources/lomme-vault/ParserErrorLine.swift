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
            // ArgumentParser's "unknown option '--josn'. Did you mean '--json'?" in the house
            // style: "unknown option --josn; did you mean --json?".
            line = line.replacing(". Did you mean ", with: "; did you mean ")
            line = Self.unquotingOptions(line)
            if line.hasSuffix(".") { line.removeLast() }
            let command = CommandWord.commandPath(in: arguments)
            let help = "`lomme-vault \(command.map { $0 + " " } ?? "")--help`"
            line += line.hasSuffix("?") ? " (see \(help))" : "; see \(help)"
        }
        Terminal.error(line)
        Glibc.exit(code.rawValue)
    }
}

extension ParserErrorLine {
    /// `'--josn'` → `--josn`: the quotes ArgumentParser puts around an option's name, never
    /// an apostrophe ("the key file's path").
    static func unquotingOptions(_ line: String) -> String {
        var out = "", rest = Substring(line)
        while let open = rest.firstIndex(of: "'") {
            let after = rest[rest.index(after: open)...]
            if after.hasPrefix("-"), let close = after.firstIndex(of: "'") {
                out += rest[..<open] + after[..<close]
                rest = after[after.index(after: close)...]
            } else {
                out += rest[...open]
                rest = after
            }
        }
        return out + rest
    }
}

extension LommeVaultCommand {
    /// The subcommands' names, and `help`.
    static var commandNames: [String] { configuration.subcommands.map { $0._commandName } + ["help"] }
}
