import ArgumentParser
import LommeCore
import LommeVaultKit

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the vault (passphrase typed twice) and this device's keys; print the device key as text and QR.",
        discussion: """
            The key derivation (Argon2id) is calibrated to take about 0.75 s on this machine. \
            LOMME_VAULT_KDF=moderate|interactive|minimum picks fixed limits instead \
            (`minimum` is for tests only: it offers no protection against guessing).
            """
    )

    @OptionGroup var vault: VaultOptions

    func run() throws {
        let store = try vault.prepare()
        if vault.noPrompt && vault.source == .terminal {
            throw LommeError(.locked, "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file")
        }
        var contents = VaultContents()
        let identity = try contents.ensureDeviceIdentity()
        let made = try VaultActions.create(store, contents: contents, source: vault.source)
        Terminal.info("Created the vault \(store.path) (\(made.limits); \(formatSeconds(made.seconds)) to unlock here).")
        try DeviceKeyOutput.show(identity.receiving.publicKey)
        Terminal.info("Import a config with `lomme-vault import PHOTO` or `lomme-vault import --stdin`.")
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100) s"
}
