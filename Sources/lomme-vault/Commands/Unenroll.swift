import ArgumentParser
import LommeVaultKit

struct Unenroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unenroll",
        abstract: "Remove a key slot (never the vault's last passphrase slot).",
        discussion: "SLOT is a number from `lomme-vault slots`, or a kind (\(SlotKinds.builtIn.enrollableNames.joined(separator: ", "))) when the vault has one slot of it. The vault key is proven first (an unlocked session, or the passphrase). The slot goes from the vault and its .bak, but the file key stays: a copy of the vault taken before still opens with that slot; `passwd --rotate` revokes everything copied before."
    )

    @Argument(help: ArgumentHelp("The slot's number, or its kind.", valueName: "slot")) var slot: String
    @OptionGroup var vault: VaultOptions

    func run() throws {
        let context = try vault.prepare()
        let removed = try SlotService(context).unenroll(slot, vault.unlockOptions)
        Terminal.info("Removed slot \(removed.id) (\(removed.kind), \(removed.details)) from \(context.store.path) and its .bak. A copy of the vault made before (a backup, a synced folder) still opens with it; `lomme-vault passwd --rotate` makes every such copy useless.")
    }
}
