import ArgumentParser
import Glibc
import LommeCore
import LommePrint
import LommeVaultKit

/// `recovery kit | verify`: the household's recovery kit.
struct RecoveryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recovery",
        abstract: "The household's recovery kit: make a new one, or check one against the vault.",
        discussion: """
            The recovery kit is a sheet with the household's recovery key (text and QR code). It \
            opens the vault when the passphrase is forgotten (`lomme-vault unlock --with recovery`, \
            then `lomme-vault passwd`), and makes the household key on a new laptop (`lomme-vault \
            init --parent --restore`), which vouches for the new laptop so the children's devices \
            take its codes without a question and refuse the lost laptop's. The vault keeps only \
            the household key's public half: whoever has the vault and its passphrase cannot make \
            a kit. Keep the sheet like a passport. The key is read like a passphrase: typed \
            (echo off), --recovery-file PATH (the text as printed) or --recovery-image PHOTO.
            """,
        subcommands: [Kit.self, Verify.self]
    )

    struct Kit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a recovery kit: for a vault made before kits existed, or a new one (the old kit must be given).",
            discussion: """
                Writes the kit to --output FILE.pdf (A4 or --paper letter), FILE.png or FILE.svg (mode \
                0600, never over an existing file, in a folder no other user owns or may write into: \
                print it, then delete the file), or shows it on \
                the terminal, where two of its groups are then typed back. Nothing changes in the vault \
                before the kit is given. When the household has a kit already, the old one is needed \
                (--recovery-file, --recovery-image, or typed): its household key vouches for the new \
                one, so the children's devices follow, and the old kit then opens nothing. Exit 1: no \
                terminal and no --output, or a child's device (a vault that took a parent's code \
                makes no household of its own); 4: the old kit is not this household's; 64: a typo in the old \
                key (its group named), or an old kit not given.
                """
        )

        @Option(name: [.short, .long], help: ArgumentHelp("Write the kit to FILE.pdf, FILE.png or FILE.svg instead of the terminal.", valueName: "FILE"))
        var output: String?
        @Option(name: .customLong("paper"), help: ArgumentHelp("The kit's paper for a PDF: a4 or letter (default a4).", valueName: "size"))
        var paper: Paper = .a4
        @OptionGroup var recovery: RecoveryKeyOptions
        @OptionGroup var vault: VaultOptions

        func validate() throws {
            if let output, !["pdf", "png", "svg"].contains(where: { output.lowercased().hasSuffix("." + $0) }) {
                throw ValidationError("--output takes FILE.pdf, FILE.png or FILE.svg")
            }
        }

        func run() throws {
            let context = try vault.prepare()
            let service = RecoveryService(context, vault.unlockOptions)
            // Where the kit goes is settled before anything is asked (the old kit included).
            if output == nil {
                guard KitOutput.canShow(context.interaction, noPrompt: vault.noPrompt) else {
                    throw LommeError.failure(.recoveryKitNoTerminal, "no terminal to show the recovery kit on (standard output and standard error must both be the terminal, so that its key lands in no file); write it to a file with --output kit.pdf")
                }
            }
            // The old kit is asked for only when the household has one.
            let plan = try service.planKit(old: recovery.isGiven ? try recovery.source() : .terminal)
            let kit = KitOutput.kit(plan.key, household: plan.root.fingerprint)
            if let output {
                try KitOutput.write(kit, to: output, paper: paper, unchanged: "nothing was changed")
            } else {
                try KitOutput.showAndCheck(kit, key: plan.key, context.interaction,
                                           instead: "`lomme-vault recovery kit --output kit.pdf` to print it (nothing was changed yet)")
            }
            do {
                try service.store(plan)
            } catch {
                if let output { unlink(output) }  // a kit of nothing
                throw error
            }
            let written = output.map { "Wrote the recovery kit to \($0): print it, keep the sheet like a passport, and delete the file. " } ?? ""
            Terminal.info(written + (plan.replaced
                ? "The new kit replaces the old one (destroy the old sheet): the household key \(plan.root.fingerprint) is new, and the old one vouched for it, so each child's device takes it with the next code."
                : "The household key \(plan.root.fingerprint) vouches for this machine; every code from now on carries it, and each child's device pins it with the next code."))
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a recovery kit against the vault; changes nothing.",
            discussion: "Exit 0: the key is this household's and opens the vault; 4: another household's key, or of a kit a newer one replaced; 6: no vault, a vault without a kit, or one without a recovery slot (the key opens nothing); 64: a typo (its group named); 2 or 7: a --recovery-image photo holding no code, or another code."
        )

        @OptionGroup var recovery: RecoveryKeyOptions
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let root = try RecoveryService(context, vault.unlockOptions).verify(try recovery.source())
            Terminal.info("The recovery kit is this household's (household \(root.fingerprint)) and opens \(context.store.path).")
        }
    }
}
