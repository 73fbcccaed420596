import ArgumentParser
import LommeCore
import LommeVaultKit

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "Forget the unlocked key, and any cached access tokens, now.",
        discussion: """
            Like a phone's lock button: after it, `get` and `token` need the passphrase again. Not an \
            error when already locked. The session is found by an id the vault carries, so a vault that \
            was moved or renamed since `unlock` is locked all the same; --all forgets every session and \
            every cached token of this user, even of a vault that was deleted.
            """)

    @Flag(name: .customLong("all"), help: "Forget every lomme-vault session and cached token of this user.") var all = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if all && vault.vault != nil { throw ValidationError("--all locks every vault; leave out --vault") }
    }

    func run() throws {
        if all { return try lockAll() }
        let store = try vault.prepare()
        guard store.exists else {
            throw LommeError(.notFound, "no vault at \(store.path), so no session to find by it; `lomme-vault lock --all` forgets every session and token of this user")
        }
        let salt = try VaultFormat.parse(try store.read()).header.salt
        let removed: Bool
        do {
            removed = try Session.lock(store, salt: salt)
        } catch {
            Terminal.info("The kernel keyring is not available here (\(error.reason)); the vault is never kept unlocked.")
            return
        }
        // A cached access token opens the bank API as the secret does: it goes too.
        let tokens = TokenCache.forgetAll(vaultID: Session.vaultID(salt: salt))
        Terminal.info((removed ? "Locked \(store.path)." : "\(store.path) is already locked.") + Lock.forgotten(tokens))
    }

    func lockAll() throws {
        _ = try vault.prepare()  // hardening; the path plays no part
        let sessions: Int, tokens: Int
        do {
            (sessions, tokens) = try Session.lockAll()
        } catch {
            Terminal.info("The kernel keyring is not available here (\(error.reason)); nothing is ever kept unlocked.")
            return
        }
        Terminal.info("Forgot \(sessions) unlocked session\(sessions == 1 ? "" : "s") of this user." + Lock.forgotten(tokens))
    }

    static func forgotten(_ tokens: Int) -> String {
        tokens == 0 ? "" : " Forgot \(tokens) cached access token\(tokens == 1 ? "" : "s")."
    }
}
