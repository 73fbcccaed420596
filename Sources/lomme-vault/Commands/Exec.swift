import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command with LOMME_CLIENT_ID, LOMME_CLIENT_SECRET, LOMME_USER_ID and LOMME_ACCOUNT_NR set.",
        discussion: """
            lomme-vault replaces itself with COMMAND (searched in PATH), so COMMAND's exit code is \
            lomme-vault's. If COMMAND cannot be run (not found, not executable), the exit code is 1. \
            --token also sets LOMME_ACCESS_TOKEN to an access token, as `lomme-vault token` gives it \
            (cached, or fetched from the config's tokenUrl or --token-url; exit 8 if that fails). \
            COMMAND never gets the passphrase: the --passphrase-fd descriptor is closed first \
            (made /dev/null when it is 0, 1 or 2).
            """
    )

    @Flag(name: .customLong("token"), help: "Also set LOMME_ACCESS_TOKEN (see `lomme-vault token`).") var token = false
    @Option(name: .customLong("token-url"), help: ArgumentHelp("The token endpoint for --token (default: the config's tokenUrl); implies --token.", valueName: "url"))
    var tokenURL: String?
    @OptionGroup var vault: VaultOptions
    @Argument(parsing: .postTerminator, help: "-- COMMAND [ARG...]") var command: [String] = []

    func validate() throws {
        if command.isEmpty { throw ValidationError("give the command to run after --, e.g. lomme-vault exec -- ./client") }
        try TokenURLOption.validate(tokenURL, option: "--token-url")
    }

    func run() throws {
        let explicit = try TokenURLOption.resolve(tokenURL, option: "--token-url")
        let context = try vault.prepare()
        let service = ConfigService(context)
        let withToken = token || tokenURL != nil
        let (config, outcome) = withToken ? try service.configAndToken(vault.unlockOptions, explicitURL: explicit)
                                          : (try service.config(vault.unlockOptions), nil)
        for (name, value) in ShellExport.variables(config) {
            setenv(name, value, 1)
        }
        if let outcome {
            setenv("LOMME_ACCESS_TOKEN", outcome.token.accessToken, 1)
        }
        // The command gets the config, never the passphrase: the descriptor it was read
        // from (or would have been, with an unlocked session) is not handed down.
        vault.withholdPassphraseDescriptor()
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
        arguments.append(nil)
        execvp(command[0], &arguments)
        let problem = String(cString: strerror(errno))
        throw LommeError.failure(.commandNotRun, "cannot run \(command[0]): \(problem)")
    }
}
