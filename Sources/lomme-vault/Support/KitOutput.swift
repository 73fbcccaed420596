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
    /// again until they match; Ctrl-C stops with nothing made). `instead`: how this command
    /// writes the kit to a file, said while a window too small for its code waits.
    static func showAndCheck(_ kit: RecoveryKit, key: RecoveryKey, _ interaction: any Interaction, instead: String) throws {
        let lines = kit.terminalLines()
        let code = try kit.code()
        let groups = key.text.split(separator: "-").map(String.init)
        while true {
            try TerminalCode.show(code, before: lines.before, note: lines.after, instead: instead)
            let first = Int.random(in: 0..<groups.count)
            var second = Int.random(in: 0..<groups.count - 1)
            if second >= first { second += 1 }
            let (a, b) = (min(first, second), max(first, second))
            var typed = try interaction.askSecret("Written down? Type group \(a + 1) and group \(b + 1) of the recovery key (with a space between): ").bytes
            defer { SecureBytes.wipe(&typed) }
            let answer = String(decoding: typed, as: UTF8.self).uppercased().split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
            if answer == [groups[a], groups[b]] {
                try Terminal.output("\u{1B}[H\u{1B}[2J\u{1B}[3J")  // the key off the screen and its scrollback
                return
            }
            interaction.notice("Those are not groups \(a + 1) and \(b + 1) of the key: check what you wrote down against the kit shown again.")
        }
    }
}

extension Paper: ExpressibleByArgument {}
