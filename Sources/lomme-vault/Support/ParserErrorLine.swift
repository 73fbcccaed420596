import ArgumentParser
import Glibc
import LommeCore

/// ArgumentParser's own errors (and any error that is not a LommeError) in the shape of every
/// other message: one line on stderr, `lomme-vault: ` and lower-case text; a usage error
/// (exit 64) ends with where to read the usage. Help and `--version` go out as ArgumentParser
/// writes them. With `LOMME_VAULT_REASON=1` the line is followed by its reason
/// (`Terminal.reason`): `usage`, or the reason of the LommeError an option's check turned
/// into a usage error (`reason`).
enum ParserErrorLine {
    /// The reason of a LommeError that an option's check (`validate()`) rethrew as
    /// ArgumentParser's ValidationError, which has no room for one: kept here so it is not lost.
    nonisolated(unsafe) static var reason: LommeError.Reason?

    /// `error` as ArgumentParser's ValidationError (what `validate()` throws), its reason kept
    /// in `reason`.
    static func validationError(_ error: LommeError) -> ValidationError {
        reason = error.reason
        return ValidationError(error.message)
    }
    static func exit(_ error: any Error, arguments: [String]) -> Never {
        let code = LommeVaultCommand.exitCode(for: error)
        let message = LommeVaultCommand.message(for: error)
        guard code != .success, !message.isEmpty else { LommeVaultCommand.exit(withError: error) }
        var line = String(message.split(separator: "\n").first ?? "")
        if code == .validationFailure {
            let command = CommandWord.commandPath(in: arguments)
            // An unknown option first: ArgumentParser checks the command's own rules
            // (validate) before it looks for one, so `get --josn` got "give one of FIELD…".
            line = Self.unknownOption(in: arguments, command: command) ?? Self.houseStyle(line, command: command)
            line = Self.unquotingOptions(line)
            if line.hasSuffix(".") { line.removeLast() }
            let help = "`lomme-vault \(command.map { $0 + " " } ?? "")--help`"
            line += line.hasSuffix("?") ? " (see \(help))" : "; see \(help)"
        }
        if let first = line.first, first.isUppercase, !(line.dropFirst().first?.isUppercase ?? false) {
            line = first.lowercased() + line.dropFirst()
        }
        Terminal.error(line)
        // Anything else that is not a LommeError (none is thrown on purpose) is a bug.
        Terminal.reason(reason ?? (code == .validationFailure ? .usage : .internalError))
        Glibc.exit(code.rawValue)
    }
}

extension ParserErrorLine {
    /// ArgumentParser's own usage messages in the house style: one lower-case line, names
    /// and values as the user types them (`--level LEVEL`, `"X"`), and what the command
    /// takes. A message it does not know stays as it is (lower-cased, options unquoted).
    static func houseStyle(_ message: String, command: String?) -> String {
        let who = command ?? "lomme-vault"
        // "Unknown option '--josn'. Did you mean '--json'?"
        if let m = message.wholeMatch(of: /Unknown option '([^']*)'\. Did you mean '([^']*)'\?/) {
            return "unknown option \(m.1); did you mean \(m.2)?"
        }
        // "The value 'X' is invalid for '--level <level>'. Please provide one of 'L', 'M', 'Q' or 'H'."
        if let m = message.wholeMatch(of: /The value '(.*)' is invalid(?: for '([^']*)')?(?:\. Please provide one of (.*)\.|: (.*)|\.)?/) {
            // `--level <level>`: "--level takes …"; a positional `<kind>`: "KIND is …".
            let synopsis = m.2.map { typed(String($0)) } ?? "the value"
            let parts = synopsis.split(separator: " ", maxSplits: 1).map(String.init)
            let (subject, verb, noun) = parts[0].hasPrefix("-") ? (parts[0], "takes", parts.count > 1 ? parts[1] : "a value") : (synopsis, "is", "valid")
            let value = "\"\(JSON.printable(String(m.1)))\""
            if let list = m.3 {
                return "\(subject) \(verb) \(verb == "is" ? "one of " : "")\(list.replacing("'", with: "")), not \(value)"
            }
            return "\(subject) \(verb) \(noun), not \(value)" + (m.4.map { ": \($0)" } ?? "")
        }
        // "Missing expected argument '<name>'", "Missing expected argument '--account <ACCOUNTNR>'"
        if let m = message.wholeMatch(of: /Missing expected argument '([^']*)'/) {
            return "\(who) needs \(typed(String(m.1)))"
        }
        // "Missing one of: '<a>', '--b'"
        if let m = message.wholeMatch(of: /Missing one of: (.*)/) {
            let names = m.1.split(separator: ", ").map { typed(String($0.filter { $0 != "'" })) }
            return "\(who) needs one of \(names.joined(separator: ", "))"
        }
        // "Missing value for '--vault <path>'"
        if let m = message.wholeMatch(of: /Missing value for '(([^' ]*)[^']*)'/) {
            let synopsis = typed(String(m.1))
            return "\(m.2) needs a value: \(synopsis)"
        }
        // "The option '--json' does not take any value, but 'x' was specified."
        if let m = message.wholeMatch(of: /The option '([^']*)' does not take any value, but '(.*)' was specified\./) {
            return "\(m.1) takes no value (\"\(JSON.printable(String(m.2)))\" was given with it)"
        }
        // "Unexpected argument 'b'", "2 unexpected arguments: 'a', 'b'"
        if let m = message.wholeMatch(of: /Unexpected argument '(.*)'/) {
            return "\(who) does not take the argument \"\(JSON.printable(String(m.1)))\""
        }
        if let m = message.wholeMatch(of: /\d+ unexpected arguments: '(.*)'/) {
            let values = m.1.split(separator: "', '").map { "\"\(JSON.printable(String($0)))\"" }
            return "\(who) does not take the arguments \(values.joined(separator: ", "))"
        }
        return message
    }

    /// `<name>` → `NAME`, `--level <level>` → `--level LEVEL`: how the help's synopsis writes them.
    static func typed(_ synopsis: String) -> String {
        var out = "", rest = Substring(synopsis)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            out += rest[..<open] + rest[rest.index(after: open)..<close].uppercased()
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// The first option in `arguments` (up to `--`) that `command` does not have, as
    /// ArgumentParser words it, with the nearest name it has; nil when every one is known.
    static func unknownOption(in arguments: [String], command: String?) -> String? {
        guard let options = knownOptions(command) else { return nil }
        // The command's own words, wherever they are (`--vault PATH` may come first).
        var words = command.map { $0.split(separator: " ").map(String.init) } ?? []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            if argument == words.first {
                words.removeFirst()
            } else if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2).prefix(while: { $0 != "=" }))
                guard let option = options.first(where: { $0.long.contains(name) }) else {
                    let near = CommandWord.suggestion(for: name, among: options.flatMap(\.long))
                    return "unknown option --\(JSON.printable(name))" + (near.map { "; did you mean --\($0)?" } ?? "")
                }
                if option.takesValue && !argument.contains("=") { index += 1 }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                for letter in argument.dropFirst() {
                    guard let option = options.first(where: { $0.short.contains(letter) }) else {
                        return "unknown option -\(JSON.printable(String(letter)))"
                    }
                    if option.takesValue {
                        index += 1
                        break
                    }
                }
            }
        }
        return nil
    }

    /// The options of `command` (and the universal ones) from ArgumentParser's own
    /// description of it (`--experimental-dump-help`, asked of the parser, not printed);
    /// nil when it cannot be had.
    static func knownOptions(_ command: String?) -> [(long: [String], short: [Character], takesValue: Bool)]? {
        let words = command.map { $0.split(separator: " ").map(String.init) } ?? []
        let text: String
        do {
            _ = try LommeVaultCommand.parseAsRoot(words + ["--experimental-dump-help"])
            return nil
        } catch {
            text = LommeVaultCommand.fullMessage(for: error)
        }
        guard let json = try? JSON.parse(text), case .array(let arguments)? = json["command"]?["arguments"] else { return nil }
        return arguments.compactMap { argument in
            guard let kind = argument["kind"]?.stringValue, kind != "positional", case .array(let names)? = argument["names"] else { return nil }
            let long = names.compactMap { $0["kind"]?.stringValue == "long" ? $0["name"]?.stringValue : nil }
            let short = names.compactMap { $0["kind"]?.stringValue == "short" ? $0["name"]?.stringValue?.first : nil }
            return (long, short, kind == "option")
        }
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
