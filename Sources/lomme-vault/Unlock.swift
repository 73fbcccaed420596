import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault for this user's login: the derived key (never the passphrase) is kept in the kernel keyring.",
        discussion: """
            Every use restarts the --timeout (idle expiry); after 12 hours the vault locks whatever \
            the use. Every process of the same user can then `get` without a prompt. `lock` ends it at once. \
            Where the kernel refuses the keyring (some containers), or with LOMME_VAULT_KEYRING=off, \
            unlock fails (exit 1) and every command asks for the passphrase instead.
            """
    )

    @Option(name: .customLong("timeout"), help: ArgumentHelp("Lock after this long without use: 90s, 10m, 2h (at most 12h).", valueName: "duration"))
    var timeout = DurationText.format(UInt64(Session.defaultIdle))
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard let seconds = DurationText.parse(timeout), seconds > 0 else {
            throw ValidationError("--timeout takes a duration such as 90s, 10m or 2h")
        }
        if seconds > Session.hardLimit { throw ValidationError("--timeout can be at most 12h") }
    }

    func run() throws {
        let store = try vault.prepare()
        let idle = DurationText.parse(timeout)!
        let sealed = try VaultFormat.parse(try store.read())
        let master: SecureBytes
        // A live session changes its idle timeout only: its deadline was set when the
        // passphrase was proven, and only a passphrase proven now (given with
        // --passphrase-fd/--passphrase-file, or after `lock`) sets a new one.
        var liveDeadline: UInt64? = nil
        if vault.source == .terminal, let (key, state) = Session.fromKeyring(store, sealed) {
            master = key
            liveDeadline = state.deadline
        } else {
            master = try Session.deriveWithPassphrase(store, sealed, vault.unlockOptions)
            _ = try VaultFormat.open(sealed, master: master)  // a damaged body is exit 5 now, not later
        }
        let deadline: UInt64
        do {
            deadline = try Session.store(store, sealed, master: master, idle: idle, deadline: liveDeadline)
        } catch {
            throw LommeError.failure("the kernel keyring is not available here (\(error.reason)), so the vault cannot stay unlocked; commands will ask for the passphrase instead")
        }
        let now = UInt64(time(nil))
        let left = DurationText.format(deadline > now ? deadline - now : 0)
        let latest = liveDeadline == nil ? "in 12h at the latest" : "in \(left) at the latest (the session's end is not moved; `lock`, then `unlock` with the passphrase, starts a new 12h)"
        Terminal.info("Unlocked \(store.path): locks after \(DurationText.format(UInt64(idle))) without use, and \(latest). `lomme-vault lock` locks it now.")
    }
}
