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
            the use. Only a passphrase or a TPM PIN typed now starts a new 12 hours: a key file, or a TPM \
            slot without PIN, keeps a live session's end (and starts a session only when none is live). Every process of the same user can then `get` without a prompt. `lock` ends it at once. \
            Where the kernel refuses the keyring (some containers), or with LOMME_VAULT_KEYRING=off, \
            unlock fails (exit 1) and every command asks for the passphrase instead.
            """ + " " + SlotKinds.builtIn.all.map(\.help.unlock).joined(separator: " ")
            + " Exit 3: no terminal to ask on and no passphrase (or PIN, or recovery key) given; 4: wrong passphrase, wrong TPM PIN, a key file or recovery key that does not open the vault; 1: a TPM in lockout (unlock with the passphrase), no TPM, a PCR changed, no recovery slot, or no keyring; 2: a --recovery-image photo with no QR code; 5: the vault is damaged; 6: no vault; 7: a --recovery-image photo whose code is not a kit; 64: a recovery key with a typo (its group named)."
    )

    @Option(name: .customLong("timeout"), help: ArgumentHelp("Lock after this long without use: 90s, 10m, 2h (at most 12h).", valueName: "duration"))
    var timeout = DurationText.format(UInt64(Session.defaultIdle))
    @Option(name: .customLong("with"), help: ArgumentHelp("Unlock with this kind of key slot.", valueName: "kind"))
    var with = SlotKindName(.passphrase)
    @Argument(help: ArgumentHelp("What --with's kind takes: " + SlotKinds.builtIn.all.compactMap { kind in kind.argument.map { "\(kind.name) \($0)" } }.joined(separator: ", ") + ".",
                                 valueName: "argument"))
    var argument: String?
    @OptionGroup var slot: SlotOptions<OpeningASlot>
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        try slot.check(with.kind, argument: argument, command: "unlock --with")
        _ = try DurationOption.seconds(timeout, option: "--timeout", atMost: Session.hardLimit)
    }

    func run() throws {
        let context = try vault.prepare()
        let idle = DurationText.parse(timeout)!
        let request = try slot.request(argument: argument, noPrompt: vault.noPrompt)
        let unlocked = try UnlockService(context).unlock(with: with.kind, idle: idle, request, passphrase: vault.unlockOptions)
        let now = UInt64(time(nil))
        let left = DurationText.rough(unlocked.deadline > now ? unlocked.deadline - now : 0)
        let latest = unlocked.keptLiveSession ? "in \(left) at the latest (the session's end is not moved; `lock`, then `unlock` with the passphrase or a TPM PIN, starts a new 12h)" : "in 12h at the latest"
        Terminal.info("Unlocked \(context.store.path): locks after \(DurationText.format(UInt64(idle))) without use, and \(latest). `lomme-vault lock` locks it now.")
        if let said = with.kind.help.unlocked { Terminal.info(said) }
        if let warning = unlocked.warning { Terminal.error(warning) }
    }
}
