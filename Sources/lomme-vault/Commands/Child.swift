import ArgumentParser
import LommeCore
import LommeQR
import LommeScan
import LommeVaultKit

/// `child add | list | rekey | set | remove | confirm`: the parent's household.
struct ChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child",
        abstract: "The children this machine issues codes to: add, list, rekey, set, remove, confirm.",
        discussion: """
            A child is a name, the receiving key of their device (`lomme-vault key` there), their \
            own accountNr and any extra fields their codes carry. `issue --to NAME` seals the \
            stored config with that child's account and fields to their key; `issue --all` gives \
            every child a fresh code. Every sealed code is recorded in this vault before it leaves \
            the machine, and counts as handed out once its file is written or its drawing finished, \
            so `child list` can say whose last code carries what the vault holds now; `child \
            confirm` checks the receipt the child's device shows after importing it.
            """,
        subcommands: [Add.self, List.self, Rekey.self, SetFields.self, Remove.self, Confirm.self]
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
                household's, nor a field whose name says secret, password, token or key (the \
                command line is no place for a secret); a tokenUrl obeys the rule of `set tokenUrl`. Exit 1: the name or key is taken, or \
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
            abstract: "The children: receiving key, account, last code handed out, whether it is current and confirmed.",
            discussion: """
                A child is current when their last handed-out code (its file written and synced, \
                or its drawing finished) carries everything this vault now holds for them: the \
                shared fields (clientId, clientSecret, userId, tokenUrl, secretExpires) and their \
                own (accountNr, fields). If not, the list says why: no code yet, never handed out \
                (recorded, but the file was not written or the drawing was interrupted), new \
                device, secret renewed, expiry changed, account changed, fields changed, …; \
                `lomme-vault issue --all` gives every child a fresh code. Confirmed: the child's \
                receipt for that code was checked (`lomme-vault child confirm`). --json prints per \
                child name, receivingKey (fingerprint), accountNr, fields (secret ones masked), \
                lastIssued and expires (of the last handed-out code), current, notCurrent (why \
                not, as tokens that do not change: noConfig, noCodeYet, newDevice, neverHandedOut, \
                secretRenewed, userIdChanged, tokenUrlChanged, expiryChanged, accountChanged, \
                fieldsChanged, carriedNotRecorded), confirmed, confirmedAt and pending (a newer code \
                recorded but not handed out). No secret is ever listed.
                """
        )

        @Flag(name: .customLong("json"), help: "Print the children as JSON.") var json = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let listing = try HouseholdService(context, vault.unlockOptions).list()
            if let warning = listing.warning { Terminal.error(warning) }
            listing.householdWarnings.forEach { Terminal.error("warning: " + $0) }
            if json {
                try Terminal.output(JSON.array(listing.children.map(\.json)).text + "\n")
                return
            }
            if let parent = listing.childsDeviceOf {
                Terminal.info("""
                    This is a child's device: it takes the codes of the parent's machine \(parent), and has no children \
                    of its own; children are added on the parent's machine (`lomme-vault child add` there). Here \
                    `lomme-vault status` shows what this device holds, and `lomme-vault import PHOTO` takes a new code.
                    """)
                return
            }
            guard !listing.children.isEmpty else {
                Terminal.info("No children yet; add one with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`.")
                return
            }
            let names = max(4, listing.children.map(\.child.name.count).max() ?? 0) + 2
            let lastWidth = 22 + (listing.severalParents ? (listing.children.compactMap { $0.issuedBy.map { $0.count + 4 } }.max() ?? 0) : 0)
            func row(_ cells: [String]) -> String {
                zip(cells, [names, 21, 15, lastWidth, 11]).map { $0 + String(repeating: " ", count: max($1 - $0.count, 1)) }.joined()
                    + cells[5]
            }
            var lines = [row(["name", "receiving key", "account", "last handed out", "confirmed", "current"])]
            for entry in listing.children {
                var last = entry.state.lastHandedOut.map { Instant(seconds: $0.issued).shown } ?? "-"
                if let by = entry.issuedBy, listing.severalParents { last += " by " + by }
                let current = entry.state.current ? "yes" : "no: " + ChildState.Reason.wording(entry.state.reasons)
                lines.append(row([entry.child.name, entry.child.receivingKey.fingerprint,
                                  NorwegianNumbers.formatAccountNumber(entry.child.accountNr), last,
                                  entry.state.confirmed ? "yes" : "no", current]))
            }
            try Terminal.output(lines.map(TerminalText.line).joined(separator: "\n") + "\n")
        }
    }

    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a child's receiving key (they have a new device).",
            discussion: "The new key's fingerprint is shown to compare with the new device; a terminal is asked to confirm (--yes skips). The child's next code goes to the new key: `lomme-vault issue --to NAME`. The key they have already is \"unchanged\" (exit 0). Exit 1: the key is another child's or this machine's own; exit 6: no such child."
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @OptionGroup var keyOptions: KeyOptions
        @Flag(name: [.short, .long], help: "Replace without asking to confirm the fingerprint.") var yes = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let (child, changed) = try HouseholdService(context, vault.unlockOptions).rekey(name, to: try keyOptions.receivingKey(), yes: yes)
            guard changed else {
                Terminal.info("Unchanged: \(child.name)'s receiving key is \(child.receivingKey.fingerprint) already; nothing was written.")
                return
            }
            Terminal.info("\(child.name)'s receiving key is now \(child.receivingKey.fingerprint). Give the new device a code with `lomme-vault issue --to \(child.name)`.")
        }
    }

    struct SetFields: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change a child's own account number or extra fields.",
            discussion: """
                --account is checked by the mod-11 rule (--no-check for test numbers), and each \
                --field KEY=VALUE follows the rules of `child add --field` (not a field of the \
                household's, nor one whose name says secret, password, token or key); a --field \
                of a name the child has replaces it, --unset-field NAME removes one. Nothing else \
                changes: the receiving key is `child rekey`'s. The change is recorded as `child \
                rekey` records a new key, so the other parents' machines take it at the next \
                sync; the child is not current until their next code (`lomme-vault issue --to \
                NAME`). The same values again change nothing ("unchanged", exit 0). Exit 6: no \
                such child, or --unset-field of a field they do not have; exit 7: an --account or \
                a --field tokenUrl failing its rule; exit 64: nothing to change, or a bad field.
                """
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @Option(name: .long, help: ArgumentHelp("The child's new account number (11 digits).", valueName: "ACCOUNTNR")) var account: String?
        @Option(name: .long, help: ArgumentHelp("A field for the child's codes, KEY=VALUE: added, or replacing theirs (repeatable).", valueName: "KEY=VALUE"))
        var field: [String] = []
        @Option(name: .customLong("unset-field"), help: ArgumentHelp("A field of the child's to remove (repeatable).", valueName: "NAME"))
        var unsetField: [String] = []
        @Flag(name: .long, help: "Skip the account's check digit (for test numbers).") var noCheck = false
        @OptionGroup var vault: VaultOptions

        func validate() throws {
            if account == nil && field.isEmpty && unsetField.isEmpty {
                throw ValidationError("give what changes: --account ACCOUNTNR, --field KEY=VALUE or --unset-field NAME")
            }
        }

        func run() throws {
            let context = try vault.prepare()
            var change = HouseholdService.Change()
            change.account = account
            change.fields = field
            change.unset = unsetField
            change.checksums = !noCheck
            let (child, changed) = try HouseholdService(context, vault.unlockOptions).change(name, change)
            guard changed else {
                Terminal.info("Unchanged: \(child.name)'s account and fields are these already; nothing was written.")
                return
            }
            let fields = child.fields.isEmpty ? "no fields of their own" : "fields " + child.fields.map { JSON.printable($0.key) + "=" + Config.shown($0) }.joined(separator: ", ")
            Terminal.info("\(child.name): account \(NorwegianNumbers.formatAccountNumber(child.accountNr)), \(fields). Give them a code that carries it with `lomme-vault issue --to \(child.name)`.")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a child (their device keeps the credential until the secret is renewed).",
            discussion: "Asked on a terminal (--yes skips); with no terminal to ask on (or --no-prompt) and no --yes, nothing is removed. The codes already issued stay in the record. Exit 1: not confirmed, or no terminal to confirm on; exit 6: no such child."
        )

        @Argument(help: ArgumentHelp("The child's name.", valueName: "name")) var name: String
        @Flag(name: [.short, .long], help: "Remove without asking.") var yes = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let child = try HouseholdService(context, vault.unlockOptions).remove(name, yes: yes)
            Terminal.info("""
                Removed \(child.name): no new code will be issued to them. Their device still holds the \
                credential and keeps working until the secret is renewed: order a new client secret at \
                the bank, then run `lomme-vault set clientSecret` and `lomme-vault issue --all` for the others.
                """)
        }
    }

    struct Confirm: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a child's receipt (a photo of what `lomme-vault receipt` shows on their device).",
            discussion: """
                After importing a sealed code, the child's device shows a receipt: a small QR code \
                only that device can make and only this machine can open, naming the code and the \
                credential it carried. Each PHOTO (or --camera, the webcam or --device FILE) is \
                checked: the code it names must be the child's last one handed out, the receipt \
                made by that child's device for this machine. `lomme-vault child list` then shows \
                the child as confirmed. Exit 2: no receipt in a photo; exit 7: a receipt for an \
                older code, from another device, for another parent, or damaged (nothing changes).
                """
        )

        @Argument(help: ArgumentHelp("Photos of receipts (one child's each).", valueName: "PHOTO")) var photos: [String] = []
        @OptionGroup var camera: CameraOptions
        @OptionGroup var vault: VaultOptions

        func validate() throws {
            if camera.camera == !photos.isEmpty { throw ValidationError("give photos of receipts, or --camera") }
        }

        func run() throws {
            let context = try vault.prepare()
            let service = ReceiptService(context, vault.unlockOptions)
            var firstError: LommeError?
            let isReceipt: (Decoded) -> Bool = { $0.kind == .receipt }
            let sources: [String?] = camera.camera ? [nil] : photos
            for photo in sources {
                do throws(LommeError) {
                    let decoded: Decoded
                    if let photo {
                        guard let found = try Scanner.scan(path: photo, accept: isReceipt).first(where: isReceipt) else {
                            throw LommeError.refused(.receiptNotOne, "the QR code in \(photo) is not a receipt; the child shows one with `lomme-vault receipt`")
                        }
                        decoded = found
                    } else {
                        decoded = try CameraInput.read(camera, sought: "receipt", accept: isReceipt,
                                                       rejected: { _ in "the QR code in view is not a receipt; still looking" })
                    }
                    let confirmed = try service.confirm(decoded.code)
                    let issued = Instant(seconds: confirmed.record.issued).shown
                    Terminal.info(confirmed.already
                        ? "Unchanged: \(confirmed.child.name)'s receipt for the code issued \(issued) was confirmed already."
                        : "Confirmed: \(confirmed.child.name)'s device holds the code issued \(issued) (`lomme-vault child list`).")
                } catch {
                    Terminal.error((photo.map { "\($0): " } ?? "") + error.message)
                    firstError = firstError ?? error
                }
            }
            if let firstError {
                Terminal.reason(firstError.reason)
                throw ExitCode(firstError.code.rawValue)
            }
        }
    }
}
