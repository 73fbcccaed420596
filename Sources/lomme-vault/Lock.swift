import ArgumentParser
import LommeVault

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "Forget the unlocked key, and any cached access tokens, now.",
        discussion: "Like a phone's lock button: after it, `get` and `token` need the passphrase again. Not an error when already locked.")

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
        // A cached access token opens the bank API as the secret does: it goes too.
        let tokens = TokenCache.forgetAll(vaultRealPath: store.realPath)
        let forgotten = tokens == 0 ? "" : " Forgot \(tokens) cached access token\(tokens == 1 ? "" : "s")."
        Terminal.info((removed ? "Locked \(store.path)." : "\(store.path) is already locked.") + forgotten)
    }
}
