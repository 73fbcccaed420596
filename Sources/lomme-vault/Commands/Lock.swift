import ArgumentParser
import LommeCore
import LommeVaultKit

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "Forget the unlocked key, and any cached access tokens, now.",
        discussion: """
            Like a phone's lock button: after it, `get` and `token` need the passphrase again. Not an \
            error when already locked. The session is found by an id the vault carries, so a vault that \
            was moved or renamed since `unlock` is locked all the same; --all forgets every session and \
            every cached token of this user, even of a vault that was deleted. Exit 6: no vault at the \
            path (`lock --all` needs none).
            """)

    @Flag(name: .customLong("all"), help: "Forget every lomme-vault session and cached token of this user.") var all = false
    @OptionGroup var vault: VaultLocation

    func validate() throws {
        if all && vault.vault != nil { throw ValidationError("--all locks every vault; leave out --vault") }
    }

    func run() throws {
        let context = try vault.prepare()  // with --all: hardening; the path plays no part
        let service = UnlockService(context)
        switch all ? service.lockAll() : try service.lock() {
        case .keyringUnavailable(let reason):
            let problem = Keyring.Unavailable(reason: reason, turnedOff: context.keyring.disabled)
            Terminal.info("Nothing to lock: \(problem.summary), so \(all ? "nothing is" : "the vault is") never kept unlocked.")
        case .forgot(let sessions, let tokens) where all:
            Terminal.info("Forgot \(sessions) unlocked session\(sessions == 1 ? "" : "s") of this user." + Lock.forgotten(tokens))
        case .forgot(let sessions, let tokens):
            let path = context.store.path
            Terminal.info((sessions > 0 ? "Locked \(path)." : "\(path) is already locked.") + Lock.forgotten(tokens))
        }
    }

    static func forgotten(_ tokens: Int) -> String {
        tokens == 0 ? "" : " Forgot \(tokens) cached access token\(tokens == 1 ? "" : "s")."
    }
}
