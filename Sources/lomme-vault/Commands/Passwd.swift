import ArgumentParser
import LommeVaultKit

struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the vault's passphrase, and its file key when no slot is lost by it (--rotate: always).",
        discussion: """
            The current passphrase comes from --passphrase-fd/--passphrase-file or the terminal, and is asked \
            even while the vault is unlocked, except after `lomme-vault unlock --with recovery` (the household's \
            recovery kit): that is how a forgotten passphrase is replaced. The new one comes from \
            --new-passphrase-fd/--new-passphrase-file or the terminal (twice). LOMME_VAULT_KDF applies as for init. \
            A new file key (and vault id) means a copy of the vault or of its unlocked key taken before opens \
            nothing now. passwd makes one when every other slot can take it without a question (a TPM slot \
            without PIN, if its TPM answers; the recovery slot when the kit is given with --recovery-file or \
            --recovery-image); otherwise (a TPM slot with a PIN, a key file, the recovery slot without the kit) it \
            keeps the file key, so such slots keep working, and says so. --rotate always makes a new file key: \
            the recovery slot takes it with the kit (given, or typed when asked; with neither a terminal nor the \
            kit, nothing changes), so the kit goes on opening the vault; the slots that cannot take it (a TPM slot \
            with a PIN, a key file) are removed and named, to be enrolled again: what to run after a suspected \
            leak. Either way no file in the vault's folder opens with the old passphrase (the .bak is replaced), \
            and an unlocked session ends. Exit 3: no terminal and no passphrase, or (--rotate) no recovery kit \
            given; 4: a wrong passphrase or recovery key.
            """
    )

    @Flag(name: .customLong("rotate"), help: "Always make a new file key, removing the slots that cannot take it (after a suspected leak).")
    var rotate = false

    @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
    var newPassphraseFD: Int32?
    @Option(name: .customLong("new-passphrase-file"), help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?
    @OptionGroup var slot: SlotOptions<RewrappingASlot>
    @OptionGroup var vault: VaultOptions

    func validate() throws { _ = try newSource() }

    func newSource() throws(ValidationError) -> PassphraseSource {
        try SecretSource.from(fd: newPassphraseFD, file: newPassphraseFile, noun: "new passphrase", option: "new-passphrase")
    }

    func run() throws {
        let context = try vault.prepare()
        let new = try newSource()
        let result = try UnlockService(context).changePassphrase(old: vault.unlockOptions, new: new, forceRotation: rotate,
                                                                 try slot.request(noPrompt: vault.noPrompt))
        let what = result.rotated ? "Changed the passphrase and the file key of" : "Changed the passphrase of"
        Terminal.info("\(what) \(context.store.path).\(result.endedSession ? " It is locked now; `lomme-vault unlock` unlocks it with the new one." : "")")
        let slots = SlotService(context)
        for removed in result.removed {
            let info = slots.info(removed)
            let again = info.enrollAgain.map { "; enroll it again with `\($0)`" } ?? ""
            Terminal.info("Removed slot \(info.id) (\(info.kind), \(info.details)): it could not take the new key without a question\(again).")
        }
        if !result.kept.isEmpty {
            let kept = result.kept.map { "\($0.id) (\(slots.info($0).kind))" }.joined(separator: ", ")
            Terminal.info("The file key stays, so slot\(result.kept.count == 1 ? "" : "s") \(kept) keep\(result.kept.count == 1 ? "s" : "") working; after a suspected leak run `lomme-vault passwd --rotate`, which makes a new one and removes \(result.kept.count == 1 ? "it" : "them").")
        }
    }
}
