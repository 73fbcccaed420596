import ArgumentParser
import LommeCore
import LommeVaultKit

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the config as plain JSON, secret included (asks first when stdout is a terminal).",
        discussion: "The output can be imported again with `lomme-vault import --stdin` or issued with `lomme-vault issue --from FILE`. Exit 1: the question answered no (nothing exported), or stdout is a terminal and there is no terminal to ask on (--yes); 3, 4, 5, 6 as for `get`."
    )

    @Flag(name: .customLong("yes"), help: "Do not ask, even on a terminal.") var yes = false
    @OptionGroup var vault: VaultOptions

    func run() throws {
        let config = try ConfigService(try vault.prepare()).config(vault.unlockOptions)
        if Terminal.isTerminal(1) && !yes {
            guard !vault.noPrompt, Prompt.isAvailable else {
                throw LommeError.failure(.noTerminalToConfirm, "stdout is a terminal: add --yes to show the secret on screen")
            }
            guard try Prompt.confirm("This shows the client secret on the screen. Continue?") else {
                throw LommeError.failure(.declined, "nothing exported (answered no); add --yes to export without the question")
            }
        }
        try Terminal.output(config.json.text + "\n")
    }
}
