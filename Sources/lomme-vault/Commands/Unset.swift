import ArgumentParser
import LommeCore
import LommeVaultKit

struct UnsetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unset",
        abstract: "Remove an extra field of the stored config (never one of the four).",
        discussion: """
            NAME is an extra field of the stored config (name, tokenUrl, secretExpires, or one \
            added with `lomme-vault set --new`), in any case. The four fields every config has \
            (clientId, clientSecret, userId, accountNr) cannot be removed, only set. The config \
            before is kept as the previous one; the children whose last code still carries the \
            field are named. Exit 6: no vault, no config, or no such field (a near miss of a \
            field's name too); exit 64: one of the four.
            """
    )

    @Argument(help: ArgumentHelp("The extra field to remove.", valueName: "name")) var name: String
    @OptionGroup var vault: VaultOptions

    func run() throws {
        let context = try vault.prepare()
        let outcome = try SetService(context).unset(name, unlock: vault.unlockOptions)
        Terminal.info("Removed \(outcome.field) from the config in \(context.store.path) (the config before is kept as the previous one).")
        SetCommand.tellStale(outcome)
    }
}
