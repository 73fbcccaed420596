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
    @Option(name: .customLong("with"), help: ArgumentHelp("Unlock with this kind of slot: passphrase (the default) or tpm2.", valueName: "kind"))
    var with = "passphrase"
    @OptionGroup var pin: PINOptions
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard with == "passphrase" || with == "tpm2" else { throw ValidationError("--with takes passphrase or tpm2") }
        if pin.given && with != "tpm2" { throw ValidationError("--pin-fd and --pin-file go with --with tpm2") }
        _ = try DurationOption.seconds(timeout, option: "--timeout", atMost: Session.hardLimit)
    }

    func run() throws {
        let context = try vault.prepare()
        let idle = DurationText.parse(timeout)!
        let service = UnlockService(context)
        let unlocked = with == "tpm2" ? try service.unlockWithTPM(idle: idle, pin: pin.source, noPrompt: vault.noPrompt)
                                      : try service.unlock(idle: idle, vault.unlockOptions)
        let now = UInt64(time(nil))
        let left = DurationText.format(unlocked.deadline > now ? unlocked.deadline - now : 0)
        let latest = unlocked.keptLiveSession ? "in \(left) at the latest (the session's end is not moved; `lock`, then `unlock` with the passphrase, starts a new 12h)" : "in 12h at the latest"
        Terminal.info("Unlocked \(context.store.path): locks after \(DurationText.format(UInt64(idle))) without use, and \(latest). `lomme-vault lock` locks it now.")
    }
}
