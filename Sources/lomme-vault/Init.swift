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
        let context = try vault.prepare()
        let made = try Provisioning.createVault(context, source: vault.source, noPrompt: vault.noPrompt,
                                                refusal: "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file")
        Terminal.info("Created the vault \(context.store.path) (\(made.limits); \(formatSeconds(made.seconds)) to unlock here).")
        try DeviceKeyOutput.show(made.identity.receiving.publicKey)
        Terminal.info("Import a config with `lomme-vault import PHOTO` or `lomme-vault import --stdin`.")
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100) s"
}
