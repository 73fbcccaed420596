import ArgumentParser
import LommeVaultKit

struct Passwd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the vault's passphrase (re-sealed with a fresh salt; an unlocked session ends).",
        discussion: "The current passphrase comes from --passphrase-fd/--passphrase-file or the terminal; the new one from --new-passphrase-fd/--new-passphrase-file or the terminal (twice). LOMME_VAULT_KDF applies as for init."
    )

    @Option(name: .customLong("new-passphrase-fd"), help: ArgumentHelp("Read the new passphrase from this file descriptor.", valueName: "n"))
    var newPassphraseFD: Int32?
    @Option(name: .customLong("new-passphrase-file"), help: ArgumentHelp("Read the new passphrase from this file.", valueName: "path"))
    var newPassphraseFile: String?
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if newPassphraseFD != nil && newPassphraseFile != nil {
            throw ValidationError("give the new passphrase with --new-passphrase-fd or --new-passphrase-file, not both")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        let new: PassphraseSource = newPassphraseFD.map { .descriptor($0) } ?? newPassphraseFile.map { .file($0) } ?? .terminal
        let wasUnlocked = try UnlockService(context).changePassphrase(old: vault.unlockOptions, new: new)
        Terminal.info("Changed the passphrase of \(context.store.path).\(wasUnlocked ? " It is locked now; `lomme-vault unlock` unlocks it with the new one." : "")")
    }
}
