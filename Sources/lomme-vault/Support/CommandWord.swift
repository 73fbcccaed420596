import ArgumentParser
import LommeCore

/// What main.swift does with argv before ArgumentParser sees it: `--vault PATH` (or
/// `--vault=PATH`) given before the subcommand is moved after the subcommand's name, and a
/// word where the subcommand belongs that names none (also after `help`) is refused, with the
/// nearest name as a suggestion (`improt` → `import`).
enum CommandWord {
    /// `arguments` (without the program name) as ArgumentParser understands them.
    static func arrange(_ arguments: [String], commands: [String]) throws(LommeError) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--vault", index + 1 < arguments.count {
                leading += arguments[index...(index + 1)]
                index += 2
            } else if arguments[index].hasPrefix("--vault=") {
                leading.append(arguments[index])
                index += 1
            } else {
                break
            }
        }
        guard index < arguments.count, !arguments[index].hasPrefix("-") else { return arguments }
        let word = arguments[index]
        try check(word, commands: commands)
        // A command made of subcommands (`child`): its next word must name one of them.
        if let type = commandType(word), !type.configuration.subcommands.isEmpty, index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
            let names = type.configuration.subcommands.map { $0._commandName }
            let sub = arguments[index + 1]
            if !names.contains(sub) {
                let near = suggestion(for: sub, among: names).map { "did you mean \"\(word) \($0)\"?" }
                    ?? "`lomme-vault \(word) --help` lists them"
                throw LommeError.usage(.commandUnknown, "unknown command \"\(word) \(JSON.printable(sub))\"; \(near)")
            }
        }
        if word == "help", index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") {
            try check(arguments[index + 1], commands: commands)
        }
        guard !leading.isEmpty, word != "help" else { return arguments }
        return [word] + leading + arguments[(index + 1)...]
    }

    /// The command type called `name` (`child`), if there is one.
    static func commandType(_ name: String) -> (any ParsableCommand.Type)? {
        LommeVaultCommand.configuration.subcommands.first { $0._commandName == name }
    }

    /// The command a parse error belongs to, for the `--help` hint: the first argument that
    /// names one, with its subcommand when it has them (`child list`).
    static func commandPath(in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(where: { LommeVaultCommand.commandNames.contains($0) && $0 != "help" }) else { return nil }
        let name = arguments[index]
        guard let type = commandType(name) else { return name }
        let children = type.configuration.subcommands.map { $0._commandName }
        if let sub = arguments[(index + 1)...].first(where: { children.contains($0) }) { return name + " " + sub }
        return name
    }

    static func check(_ word: String, commands: [String]) throws(LommeError) {
        guard !commands.contains(word) else { return }
        let shown = "\"\(JSON.printable(word))\""
        if let near = suggestion(for: word, among: commands) {
            throw LommeError.usage(.commandUnknown, "unknown command \(shown); did you mean \"\(near)\"?")
        }
        throw LommeError.usage(.commandUnknown, "unknown command \(shown); `lomme-vault --help` lists the commands")
    }

    /// The one command `word` is a prefix of, else the nearest by edit distance (at most 1
    /// for a word of three letters or fewer, 2 otherwise); nil when none is near.
    static func suggestion(for word: String, among commands: [String]) -> String? {
        let lower = word.lowercased()
        let extended = commands.filter { $0.hasPrefix(lower) }
        if extended.count == 1 { return extended[0] }
        let limit = lower.count <= 3 ? 1 : 2
        let scored = commands.map { ($0, distance(lower, $0)) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// swaps of two neighbouring letters each count one (`improt` is one from `import`).
    static func distance(_ first: String, _ second: String) -> Int {
        let a = Array(first), b = Array(second)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
