import ArgumentParser
import LommeVaultKit

struct Unenroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unenroll",
        abstract: "Remove a key slot (never the vault's last passphrase slot).",
        discussion: "SLOT is a number from `lomme-vault slots`, or a kind (tpm2) when the vault has one slot of it. The vault key is proven first (an unlocked session, or the passphrase). Removing a slot does not change the file key: a copy of the vault taken before still opens with that slot; `passwd --rotate` revokes everything copied before."
    )

    @Argument(help: ArgumentHelp("The slot's number, or its kind.", valueName: "slot")) var slot: String
    @OptionGroup var vault: VaultOptions

    func run() throws {
        let context = try vault.prepare()
        let removed = try SlotService(context).unenroll(slot, vault.unlockOptions)
        Terminal.info("Removed slot \(removed.id) (\(removed.kind), \(removed.details)) from \(context.store.path).")
    }
}
