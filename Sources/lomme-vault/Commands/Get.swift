import ArgumentParser
import LommeCore
import LommeVaultKit

struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print one field, the whole config (--json) or shell exports (--env).",
        discussion: """
            The value goes to stdout with nothing else; a newline follows only when stdout is a \
            terminal (-n: never, --newline: always). To a pipe or file the bytes are exact; on a \
            terminal control characters are shown escaped (\\x1b), so a value cannot drive it. Fields: clientId, clientSecret, userId, \
            accountNr, and any extra field of the config, in any case as `set` takes them \
            (clientsecret is clientSecret); a near miss of a field's name is named. Without an unlocked session it asks for the \
            passphrase on the terminal. Exit codes: 3 locked and no prompt possible (or --no-prompt), \
            4 wrong passphrase, 5 vault damaged, 6 no vault or no such field, 64 a name no field can have.
            """
    )

    @Argument(help: "The field to print.", completion: .list(Config.knownFieldNames)) var field: String?
    @Flag(name: .customLong("json"), help: "Print the whole config as JSON.") var json = false
    @Flag(name: .customLong("env"), help: "Print export LOMME_NAME='value' lines (LOMME_CLIENT_ID, LOMME_CLIENT_SECRET, LOMME_USER_ID, LOMME_ACCOUNT_NR), quoted for a shell to eval.") var env = false
    @OptionGroup var newline: NewlineOptions
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        let chosen = (field != nil ? 1 : 0) + (json ? 1 : 0) + (env ? 1 : 0)
        if chosen != 1 { throw ValidationError("give one of FIELD, --json or --env") }
    }

    func run() throws {
        let config = try ConfigService(try vault.prepare()).config(vault.unlockOptions)
        if json {
            try Terminal.data(config.json.text + (newline.wanted ? "\n" : ""))
        } else if env {
            try Terminal.data(ShellExport.lines(config))
        } else if let field {
            try Self.show(field, of: config, newline: newline.wanted)
        }
    }

    /// One field's value on stdout (also FastPath's `get FIELD`). The name is taken as `set`
    /// takes it (`SetService.resolve`): a known field in any case, a near miss named.
    static func show(_ typed: String, of config: Config, newline: Bool) throws(LommeError) {
        let field = try SetService.resolve(typed, in: config, new: false, verb: "get")
        guard let value = config.value(of: field) else { throw SetService.noField(field, in: config) }
        try Terminal.data(value + (newline ? "\n" : ""))
    }
}
