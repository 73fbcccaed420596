import ArgumentParser
import CLazyLibraries
import Glibc
import LommeCore
import LommeVaultKit

// First of all: no crash reporter that could print memory holding a secret.
Hardening.disableCrashReporter()
// A picture or QR library that cannot be loaded (CLazyLibraries) is told here, like every
// other message; the loader then ends the process with its exit code (2 reading, 1 making).
lomme_lazy_set_failure_handler(Terminal.libraryFailure)

// Errors of our own carry their exit code and one line of text; ArgumentParser's own
// (exit 64 for usage) are put in the same shape (ParserErrorLine).
var arguments = Array(CommandLine.arguments.dropFirst())
do {
    // `--version` and `get FIELD` first, without ArgumentParser's start-up (FastPath.swift).
    if try FastPath.run(arguments) { exit(0) }
    // `--vault PATH` before the subcommand, and typos of a subcommand's name (CommandWord.swift).
    let arranged = try CommandWord.arrange(arguments, commands: LommeVaultCommand.commandNames)
    if arranged != arguments, try FastPath.run(arranged) { exit(0) }
    arguments = arranged
    var command = try LommeVaultCommand.parseAsRoot(arguments)
    try command.run()
} catch let error as LommeError {
    Terminal.fail(error)
    exit(error.code.rawValue)
} catch {
    ParserErrorLine.exit(error, arguments: arguments)
}
