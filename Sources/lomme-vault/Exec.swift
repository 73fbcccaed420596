import ArgumentParser
import Glibc
import LommeVault

struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command with LOMME_CLIENT_ID, LOMME_CLIENT_SECRET, LOMME_USER_ID and LOMME_ACCOUNT_NR set.",
        discussion: """
            lomme-vault replaces itself with COMMAND (searched in PATH), so COMMAND's exit code is \
            lomme-vault's. If COMMAND cannot be run (not found, not executable), the exit code is 1.
            """
    )

    @OptionGroup var vault: VaultOptions
    @Argument(parsing: .postTerminator, help: "-- COMMAND [ARG...]") var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("give the command to run after --, e.g. lomme-vault exec -- ./client") }
    }

    func run() throws {
        let store = try vault.prepare()
        let config = try VaultReader.config(store, vault.unlockOptions)
        for (name, value) in ShellExport.variables(config) {
            setenv(name, value, 1)
        }
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
        arguments.append(nil)
        execvp(command[0], &arguments)
        let problem = String(cString: strerror(errno))
        throw LommeError.failure("cannot run \(command[0]): \(problem)")
    }
}
