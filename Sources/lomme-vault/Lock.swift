import ArgumentParser
import LommeVault

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "Forget the unlocked key now.")

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let store = try vault.prepare()
        let sealed = try VaultFormat.parse(try store.read())
        let removed: Bool
        do {
            removed = try Session.lock(store, salt: sealed.header.salt)
        } catch {
            Terminal.info("The kernel keyring is not available here (\(error.reason)); the vault is never kept unlocked.")
            return
        }
        Terminal.info(removed ? "Locked \(store.path)." : "\(store.path) is already locked.")
    }
}
