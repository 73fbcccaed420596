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

// Errors of our own carry the spec's exit code and one line of text; argument errors
// go through ArgumentParser, which exits 64 (EX_USAGE) for them.
do {
    // `--version` and `get FIELD` first, without ArgumentParser's start-up (FastPath.swift).
    if try FastPath.run(Array(CommandLine.arguments.dropFirst())) { exit(0) }
    var command = try LommeVaultCommand.parseAsRoot()
    try command.run()
} catch let error as LommeError {
    Terminal.error(error.message)
    exit(error.code.rawValue)
} catch {
    LommeVaultCommand.exit(withError: error)
}
