import ArgumentParser
import Glibc
import LommeCore
import LommePrint
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

    @Option(name: .customLong("recovery-kit"), help: ArgumentHelp(
        "With --parent: write the household's recovery kit to FILE.pdf, FILE.png or FILE.svg (mode 0600, in a folder no other user owns or may write into; print it, then delete the file) instead of showing it on the terminal.",
        valueName: "FILE"))
    var recoveryKit: String?

    @Option(name: .customLong("paper"), help: ArgumentHelp("The recovery kit's paper: a4 or letter (default a4).", valueName: "size"))
    var paper: Paper = .a4

    @Flag(name: .customLong("restore"), help: "With --parent: a new laptop for the household whose recovery kit is given (--recovery-file, --recovery-image, or typed).")
    var restore = false

    @Flag(name: .customLong("join"), help: "With --parent: a second parent's machine; a vault and keys, no kit and no config: the household is handed over to it by `parent add` on the machine that holds it.")
    var join = false

    @OptionGroup var recovery: RecoveryKeyOptions
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if child && parent { throw ValidationError("give --child or --parent, not both") }
        if (recoveryKit != nil || restore || join) && !parent {
            throw ValidationError("\(join ? "--join" : restore ? "--restore" : "--recovery-kit") goes with --parent")
        }
        if join && (restore || recoveryKit != nil) { throw ValidationError("--join makes no kit and restores none: leave out \(restore ? "--restore" : "--recovery-kit")") }
        if restore && recoveryKit != nil { throw ValidationError("--restore keeps the household's kit: leave out --recovery-kit") }
        if recovery.isGiven && !restore { throw ValidationError("--recovery-file and --recovery-image go with --parent --restore") }
        if let recoveryKit, !["pdf", "png", "svg"].contains(where: { recoveryKit.lowercased().hasSuffix("." + $0) }) {
            throw ValidationError("--recovery-kit takes FILE.pdf, FILE.png or FILE.svg")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        if restore { return try runRestore(context) }
        // Before any kit is made or shown, or a passphrase asked (as --restore does).
        try Provisioning(context).refuseExistingVault()
        if join { return try runJoin(context) }
        // The parent's recovery kit is given before the vault is made: a file, or the
        // terminal with two groups typed back; with neither, no kit (`recovery kit` later).
        var key: RecoveryKey?
        if parent {
            let made = RecoveryKey.generate()
            let kit = KitOutput.kit(made, household: made.householdKey.fingerprint)
            if let recoveryKit {
                try KitOutput.write(kit, to: recoveryKit, paper: paper, unchanged: "nothing was made")
                key = made
            } else if KitOutput.canShow(context.interaction, noPrompt: vault.noPrompt) {
                try KitOutput.showAndCheck(kit, key: made, context.interaction,
                                           instead: "`lomme-vault init --parent --recovery-kit kit.pdf` to print it (nothing was made yet)")
                key = made
            }
        }
        let made: (identity: DeviceIdentity, limits: KDFLimits, seconds: Double)
        do {
            made = try Provisioning(context).createVault(source: vault.source, noPrompt: vault.noPrompt,
                                                         refusal: "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file",
                                                         recovery: key)
        } catch {
            if let recoveryKit, key != nil { unlink(recoveryKit) }  // a kit of no vault
            throw error
        }
        let receiving = made.identity.receiving.publicKey
        let receives = try receivesCodes(context)
        // What each key is for on this machine: a child's receives codes; a parent's issues
        // them, and its receiving key only takes the household from another parent's machine.
        let use = receives ? "a parent seals codes to it: show it to them (`lomme-vault key` prints it with its QR code)"
            : "another parent's machine seals the household to it (part of the parent key `lomme-vault key --parent` shows)"
        Terminal.info("""
            Created the vault \(context.store.path) (\(made.limits); \(formatSeconds(made.seconds)) to unlock here).
            This machine's public fingerprints:
              receiving key  \(receiving.fingerprint)  \(use)
              issuer         \(made.identity.signing.fingerprint)  a child compares it when importing a code this machine issues (`lomme-vault key --issuer`)
            """)
        if let key {
            let household = key.householdKey.fingerprint
            Terminal.info(recoveryKit.map { "Wrote the household's recovery kit to \($0) (household \(household)): print it, keep the sheet like a passport, and delete the file." }
                ?? "The household's recovery kit (household \(household)) is the one you wrote down: keep it like a passport.")
        } else if parent {
            Terminal.info("No recovery kit was made (no --recovery-kit FILE, and no terminal to show it on: it is shown only when standard output and standard error are both the terminal, so that its key lands in no file): until there is one, nothing can restore this household on a new laptop and codes carry no household key. Make one with `lomme-vault recovery kit --output kit.pdf`.")
        }
        if receives {
            try Self.madeAnyway { try DeviceKeyOutput.show(receiving, instead: "`lomme-vault key --output key.png` (the vault is made already)") }
            Terminal.info("Import a config with `lomme-vault import PHOTO` or `lomme-vault import --stdin`.")
        } else {
            try Self.madeAnyway { try Self.key(receiving.text, "This machine's receiving key") }
            Terminal.info("""
                Next, on a parent's machine: store the bank's config with `lomme-vault import --stdin < config.json` (then \
                delete the file), and add each child with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`, KEY \
                from `lomme-vault key` on the child's machine; then `lomme-vault issue --to NAME`. `lomme-vault unlock` \
                first asks the passphrase once for all of them.
                """)
        }
    }

    /// `init --parent --restore`: the household key from the kit, a new issuer for this
    /// laptop that it vouches for (a newer vouch: the lost laptop's issuer is revoked as each
    /// child imports a code from this one), and what to do next.
    func runRestore(_ context: VaultContext) throws {
        let restored = try RecoveryService(context, vault.unlockOptions).restore(try recovery.source())
        let household = restored.root.fingerprint
        Terminal.info("""
            Created the vault \(context.store.path) (\(restored.limits); \(formatSeconds(restored.seconds)) to unlock here), restored \
            from the recovery kit of the household \(household). This laptop's issuer is \(restored.identity.signing.fingerprint); \
            the household key vouches for it alone, so each child's device takes its codes without a question and from \
            then on refuses codes of the lost laptop. If a child's device shows another household (`lomme-vault status` \
            there), this kit is another household's: that device will refuse this laptop's codes.
            Next:
              1. store the config again (the old secret went with the lost laptop: ask the bank for a new one): `lomme-vault import --stdin < config.json`
              2. add each child again, from the key `lomme-vault key` shows on their device: `lomme-vault child add NAME --key KEY --account ACCOUNTNR`
              3. give every child a code: `lomme-vault issue --all`
            """)
        if recovery.recoveryImage == nil && restored.root.rotations.isEmpty {
            Terminal.info("The key was typed or read from a file, so this laptop's codes carry no hand-over from earlier kits. If the sheet says it replaces an earlier kit, restore from a photo of its code instead (--recovery-image): a child whose device has had no code since that kit refuses this laptop's codes.")
        }
        try Self.madeAnyway { try Self.key(restored.identity.receiving.publicKey.text, "This laptop's receiving key") }
    }

    /// Runs `show` (the receiving key on stdout); when it did not reach stdout, the failure
    /// says that the vault was made all the same, and how to see the key.
    static func madeAnyway(_ show: () throws -> Void) throws {
        do {
            try show()
        } catch let error as LommeError where error.reason == .standardOutputFailed {
            throw error.with(message: error.message + "; the vault was made: `lomme-vault key` shows its receiving key")
        }
    }

    /// `init --parent --join`: a vault and keys waiting for the household, and what to do next.
    func runJoin(_ context: VaultContext) throws {
        var contents = VaultContents()
        contents.household.joining = true
        let made = try Provisioning(context).createVault(contents: contents, source: vault.source, noPrompt: vault.noPrompt,
                                                         refusal: "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file")
        let key = ParentKey(receiving: made.identity.receiving.publicKey, issuer: made.identity.signing.publicKey)
        let (receiving, issuer) = key.fingerprints
        Terminal.info("""
            Created the vault \(context.store.path) (\(made.limits); \(formatSeconds(made.seconds)) to unlock here), for a \
            second parent's machine: no recovery kit and no config yet. This machine's parent key has the receiving key \
            \(receiving) and the issuer \(issuer).
            Next:
              1. show this machine's parent key to the parent whose machine holds the household: `lomme-vault key --parent` (a QR code), or the text below
              2. there: `lomme-vault parent add NAME --key KEY` (or `--key-image PHOTO`), with the recovery kit; it hands the household over as a file (--output FILE), a QR code, or into the sync folder
              3. here: `lomme-vault import FILE` (or a photo of that code), or `lomme-vault sync DIR`; then this machine issues codes the children take without a question
            """)
        try Self.madeAnyway { try Self.key(key.text, "This machine's parent key") }
    }

    /// A key on stdout: the text alone to a pipe or a file (for a script); on a terminal,
    /// labelled, so that no bare `lvk1…` line ends the command.
    static func key(_ text: String, _ label: String) throws(LommeError) {
        try Terminal.output(Terminal.isTerminal(STDOUT_FILENO) ? "\(label): \(text)\n" : text + "\n")
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
