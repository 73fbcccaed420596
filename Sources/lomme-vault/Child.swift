import ArgumentParser
import LommeCore
import LommeQR
import LommeVaultKit

/// `child add | list | rekey | remove`: the parent's household.
struct ChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child",
        abstract: "The children this machine issues codes to: add, list, rekey, remove.",
        discussion: """
            A child is a name, the receiving key of their device (`lomme-vault key` there), their \
            own accountNr and any extra fields their codes carry. `issue --to NAME` seals the \
            stored config with that child's account and fields to their key; `issue --all` gives \
            every child a fresh code. Every sealed code is recorded in this vault, so `child list` \
            can say whose last code carries the current secret.
            """,
        subcommands: [Add.self, List.self, Rekey.self, Remove.self]
    )

    /// `--key KEY` or `--key-image PHOTO`: one of them.
    struct KeyOptions: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The child's receiving key (lvk1…, from `lomme-vault key` on their device).", valueName: "KEY"))
        var key: String?

        @Option(name: .customLong("key-image"), help: ArgumentHelp("A photo of the receiving key's QR code (`lomme-vault key` on their device).", valueName: "PHOTO"))
        var keyImage: String?

        func validate() throws {
            if (key == nil) == (keyImage == nil) { throw ValidationError("give the child's receiving key with --key KEY or --key-image PHOTO (one of them)") }
        }

        func receivingKey() throws(LommeError) -> ReceivingKey {
            if let key { return try ReceivingKey(text: key) }
            return try ReceivingKey(photo: keyImage!)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a child: a name, their device's receiving key, their account.",
            discussion: """
                NAME is 1 to 32 letters (a–z, A–Z, æøå, ÆØÅ), digits, - or _, starting with a letter or digit, unique (ignoring case). The key's fingerprint \
                is shown: compare it with what `lomme-vault key` shows on the child's device; a \
                terminal is asked to confirm (--yes skips). --account is checked by the mod-11 \
                rule (--no-check for test numbers). --field KEY=VALUE adds a field to the child's \
                codes (as name=Anna); it may not set clientId, clientSecret (or secret), userId, \
                accountNr (or cardAccountNr: that is --account) or secretExpires, which are the \
                household's; a tokenUrl obeys the rule of `set tokenUrl`. Exit 1: the name or key is taken, or \
                not confirmed; exit 2 or 7: a --key-image photo holding no receiving key; exit 7: \
                an --account or a --field tokenUrl failing its rule; exit 64: a bad name, key or field.
                """
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @OptionGroup var keyOptions: KeyOptions
        @Option(name: .long, help: ArgumentHelp("The child's own account number (11 digits).", valueName: "ACCOUNTNR")) var account: String
        @Option(name: .long, help: ArgumentHelp("An extra field for the child's codes, KEY=VALUE (repeatable).", valueName: "KEY=VALUE"))
        var field: [String] = []
        @Flag(name: .long, help: "Skip the account's check digit (for test numbers).") var noCheck = false
        @Flag(name: [.short, .long], help: "Add without asking to confirm the fingerprint.") var yes = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            var request = HouseholdService.Addition(name: name, key: try keyOptions.receivingKey(), account: account)
            request.fields = field
            request.checksums = !noCheck
            request.yes = yes
            let child = try HouseholdService(context, vault.unlockOptions).add(request)
            Terminal.info("Added \(child.name). Give them a code with `lomme-vault issue --to \(child.name)`.")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The children: receiving key, account, last code issued, whether it carries the current secret.",
            discussion: """
                `current` is false when a child's last code carries an older clientSecret, or they \
                have none yet: `lomme-vault issue --all` gives every child a fresh one. --json \
                prints per child name, receivingKey (fingerprint), accountNr, fields, lastIssued, \
                expires and current. No secret is ever listed.
                """
        )

        @Flag(name: .customLong("json"), help: "Print the children as JSON.") var json = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let listing = try HouseholdService(context, vault.unlockOptions).list()
            if let warning = listing.warning { Terminal.error(warning) }
            if json {
                Terminal.output(JSON.array(listing.children.map(\.json)).text + "\n")
                return
            }
            guard !listing.children.isEmpty else {
                Terminal.info("No children yet; add one with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`.")
                return
            }
            var lines = ["name              receiving key        account        last code             current"]
            for entry in listing.children {
                let last = entry.lastIssued.map { VaultContents.timestamp(Int($0)) } ?? "-"
                let cells = [entry.child.name, entry.child.receivingKey.fingerprint,
                             NorwegianNumbers.formatAccountNumber(entry.child.accountNr), last]
                let widths = [18, 21, 15, 22]
                lines.append(zip(cells, widths).map { $0 + String(repeating: " ", count: max($1 - $0.count, 1)) }.joined()
                             + (entry.current ? "yes" : "no"))
            }
            Terminal.output(lines.map(TerminalText.line).joined(separator: "\n") + "\n")
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a child's receiving key (they have a new device).",
            discussion: "The new key's fingerprint is shown to compare with the new device; a terminal is asked to confirm (--yes skips). The child's next code goes to the new key: `lomme-vault issue --to NAME`. Exit 6: no such child."
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @OptionGroup var keyOptions: KeyOptions
        @Flag(name: [.short, .long], help: "Replace without asking to confirm the fingerprint.") var yes = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let child = try HouseholdService(context, vault.unlockOptions).rekey(name, to: try keyOptions.receivingKey(), yes: yes)
            Terminal.info("\(child.name)'s receiving key is now \(child.receivingKey.fingerprint). Give the new device a code with `lomme-vault issue --to \(child.name)`.")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a child (their device keeps the credential until the secret is renewed).",
            discussion: "The codes already issued stay in the record. Exit 6: no such child."
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let child = try HouseholdService(context, vault.unlockOptions).remove(name)
            Terminal.info("""
                Removed \(child.name): no new code will be issued to them. Their device still holds the \
                credential and keeps working until the secret is renewed: order a new client secret at \
                the bank, then run `lomme-vault set clientSecret` and `lomme-vault issue --all` for the others.
                """)
        }
    }
}
