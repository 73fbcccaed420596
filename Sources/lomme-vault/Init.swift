import ArgumentParser
import LommeCore
import LommeVaultKit

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the vault (passphrase typed twice) and this machine's keys; print both fingerprints and the receiving key.",
        discussion: """
            Prints the vault's path and this machine's two public fingerprints: the receiving key \
            (a parent seals codes to it with `lomme-vault issue --to`) and the issuer (what a child \
            compares when it imports a code this machine issues). Standard output gets the \
            receiving key's text (lvk1…). --child also draws the receiving key as a QR code for the \
            parent to photograph; --parent does not; with neither, a terminal is asked "Will this \
            machine receive codes (a child's)?" and anything else draws no code. `lomme-vault key` \
            prints the receiving key with its QR code any time.

            The key derivation (Argon2id) is calibrated to take about 0.75 s on this machine. \
            LOMME_VAULT_KDF=moderate|interactive|minimum picks fixed limits instead \
            (`minimum` is for tests only: it offers no protection against guessing).
            """
    )

    @Flag(name: .long, help: "This machine receives codes (a child's): draw the receiving key as a QR code.")
    var child = false

    @Flag(name: .long, help: "This machine issues codes (a parent's): no QR code of the receiving key.")
    var parent = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if child && parent { throw ValidationError("give --child or --parent, not both") }
    }

    func run() throws {
        let context = try vault.prepare()
        let made = try Provisioning(context).createVault(source: vault.source, noPrompt: vault.noPrompt,
                                                refusal: "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file")
        let receiving = made.identity.receiving.publicKey
        Terminal.info("""
            Created the vault \(context.store.path) (\(made.limits); \(formatSeconds(made.seconds)) to unlock here).
            This machine's public fingerprints:
              receiving key  \(receiving.fingerprint)  a parent seals codes to it: show it to them (`lomme-vault key` prints it with its QR code)
              issuer         \(made.identity.signing.fingerprint)  a child compares it when importing a code this machine issues (`lomme-vault key --issuer`)
            """)
        if try receivesCodes(context) {
            try DeviceKeyOutput.show(receiving, instead: "`lomme-vault key --output key.png` (the vault is made already)")
            Terminal.info("Import a config with `lomme-vault import PHOTO` or `lomme-vault import --stdin`.")
        } else {
            Terminal.output(receiving.text + "\n")
            Terminal.info("""
                Next, on a parent's machine: store the bank's config with `lomme-vault import --stdin < config.json` (then \
                delete the file), and add each child with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`, KEY \
                from `lomme-vault key` on the child's machine; then `lomme-vault issue --to NAME`. `lomme-vault unlock` \
                first asks the passphrase once for all of them.
                """)
        }
    }

    /// --child, --parent, or the answer on a terminal (no terminal, or --no-prompt: no).
    func receivesCodes(_ context: VaultContext) throws -> Bool {
        if child || parent { return child }
        guard !vault.noPrompt, context.interaction.canAsk else { return false }
        return try context.interaction.confirm("Will this machine receive codes (a child's)?")
    }
}

func formatSeconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 100).rounded())
    return "\(tenths / 100).\(tenths % 100 < 10 ? "0" : "")\(tenths % 100)s"
}
