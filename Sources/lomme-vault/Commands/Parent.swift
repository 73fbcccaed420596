import ArgumentParser
import Glibc
import LommeCore
import LommeQR
import LommeScan
import LommeVaultKit

/// `parent add | list | remove`: the household's parents' machines (docs/SYNC.md).
struct ParentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parent",
        abstract: "The household's parents' machines: add one (handing it the household), list them, remove one.",
        discussion: """
            Most children have two parents. Each parent's machine has its own vault, keys and \
            issuer, and each can do everything: the household key (from the recovery kit) vouches \
            for every parent's issuer, so the children take a code from any of them without a \
            question. Adding or removing a parent's machine needs the recovery kit. The machines \
            agree through a folder that git, Syncthing, Nextcloud or a USB stick carries (`lomme-vault \
            sync DIR`).
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Vouch for a second parent's machine (needs the recovery kit) and hand it the household.",
            discussion: """
                The other machine made its vault with `lomme-vault init --parent --join` and shows \
                its parent key with `lomme-vault key --parent`: give it as --key lvp1… or \
                --key-image PHOTO. Both of its fingerprints are shown to compare; a terminal is asked \
                (--yes skips). Then the recovery key is read (typed, --recovery-file or \
                --recovery-image), the household key signs a new vouch naming every parent's \
                machine, and the household — config, children, record, household key and vouch — is \
                handed over, sealed to the new machine and signed by this one: written to --output \
                FILE, into the sync folder when one is set (`lomme-vault sync`), and else shown as \
                a QR code on a terminal when it fits. There, `lomme-vault import FILE` (or a photo, \
                or `lomme-vault sync DIR`) takes it. --as names this machine in the household at \
                the first `parent add` (default: its host name). Without the kit nothing is \
                vouched and nothing is written. Exit 1: a name or machine already in the household, \
                not confirmed, or nowhere to hand the household over; 4: the kit is not this \
                household's; 6: no household (no recovery kit) here; 64: a bad name or key.
                """
        )

        @Argument(help: ArgumentHelp("The new parent's machine's name (as a child's name: letters, digits, - or _).", valueName: "name")) var name: String
        @Option(name: .long, help: ArgumentHelp("The new machine's parent key (lvp1…, from `lomme-vault key --parent` there).", valueName: "KEY"))
        var key: String?
        @Option(name: .customLong("key-image"), help: ArgumentHelp("A photo of the parent key's QR code (`lomme-vault key --parent` there).", valueName: "PHOTO"))
        var keyImage: String?
        @Option(name: [.short, .long], help: ArgumentHelp("Write the household handed over to FILE (mode 0600), for `lomme-vault import FILE` there.", valueName: "FILE"))
        var output: String?
        @Option(name: .customLong("as"), help: ArgumentHelp("This machine's name in the household, at the first `parent add` (default: its host name).", valueName: "name"))
        var ownName: String?
        @Flag(name: [.short, .long], help: "Add without asking to confirm the fingerprints.") var yes = false
        @OptionGroup var recovery: RecoveryKeyOptions
        @OptionGroup var vault: VaultOptions

        func validate() throws {
            if (key == nil) == (keyImage == nil) { throw ValidationError("give the other machine's parent key with --key KEY or --key-image PHOTO (one of them)") }
            if let ownName, !Child.isValidName(ownName) { throw ValidationError("--as takes a name of 1 to 32 letters, digits, - or _") }
        }

        func parentKey() throws(LommeError) -> ParentKey {
            if let key { return try ParentKey(text: key) }
            let photo = keyImage!
            let found = try Scanner.scan(path: photo) { $0.kind == .parentKey }
            guard case .parentKey(let parsed, let problem) = found.first(where: { $0.kind == .parentKey })?.code.payload else {
                let what = found.first.map { " (\($0.kind.what))" } ?? ""
                throw LommeError.refused(.parentKeyNotOne, "the QR code in \(photo) is not a parent key\(what); photograph what `lomme-vault key --parent` shows on the other parent's machine")
            }
            guard let parsed else { throw problem ?? LommeError.usage(.parentKeyNotOne, "the parent key in \(photo) cannot be read") }
            return parsed
        }

        func run() throws {
            let context = try vault.prepare()
            if let output {
                var info = stat()
                if lstat(output, &info) == 0 { throw LommeError.failure(.outputFileExists, "\(output) exists; the household is never written over a file: name a new one") }
            }
            var request = ParentService.Addition(name: name, key: try parentKey(), ownName: ownName ?? Self.hostName(),
                                                 recovery: recovery.isGiven ? try recovery.source() : .terminal)
            request.yes = yes
            request.byHand = output != nil || (context.interaction.canAsk && Terminal.isTerminal(STDOUT_FILENO))
            let service = ParentService(context, vault.unlockOptions)
            let added = try service.add(request)
            var given: [String] = []
            if let output {
                try FileIO.replace(output, with: added.handOver, mode: 0o600)
                given.append("written to \(output)")
            }
            if let inFolder = added.inFolder { given.append("put into the sync folder (\(inFolder))") }
            if given.isEmpty {
                let text = HouseholdFile.textPrefix + Base45.encode(added.handOver)
                guard context.interaction.canAsk, Terminal.isTerminal(STDOUT_FILENO), let code = try? IssuedCode(payload: text, kind: .household) else {
                    throw LommeError.failure(.qrPayloadTooLarge, "\(added.parent.name) is vouched for now, but the household is too large for a QR code here; hand it over as a file: run the same `lomme-vault parent add` again with --output FILE")
                }
                try TerminalCode.show(code, printedAfter: ["The household, handed over to \(added.parent.name)'s machine"],
                                      instead: "--output FILE (the vouch is stored already)")
                given.append("shown as a QR code here")
            }
            Terminal.info("""
                Added \(added.parent.name)'s machine (issuer \(added.parent.key.issuer.fingerprint)): the household key vouches for it \
                now (vouch of \(added.vouch.signed.shown)), and this machine is \(added.ownName) in the household. The household was \
                \(given.joined(separator: " and ")): on \(added.parent.name)'s machine run `lomme-vault import FILE` (or import a photo \
                of the code, or `lomme-vault sync DIR`). From then on both machines issue codes the children take without a \
                question; keep them agreeing with `lomme-vault sync DIR`.
                """)
        }

        /// This machine's host name as a household name: lower case, every other character a `-`.
        static func hostName() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            guard gethostname(&buffer, buffer.count - 1) == 0 else { return "parent" }
            let raw = String(cString: buffer).split(separator: ".").first.map(String.init) ?? ""
            let name = String(raw.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII ? $0 : "-" }.prefix(32))
            return Child.isValidName(name) ? name : "parent"
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The household's parents' machines: name, issuer fingerprint, this machine or not, last heard from.",
            discussion: "Last heard from: when the machine last wrote a journal this machine took (`lomme-vault sync`), by that machine's clock. --json: one object per machine: name, issuer, thisMachine, lastHeard (ISO 8601, or null), removed."
        )

        @Flag(name: .long, help: "Print JSON instead of a table.") var json = false
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let listed = try ParentService(context, vault.unlockOptions).list()
            if json {
                let items = listed.map { entry in
                    JSON.object([
                        JSON.Member("name", .string(entry.parent.name)),
                        JSON.Member("issuer", .string(entry.parent.key.issuer.fingerprint)),
                        JSON.Member("thisMachine", .bool(entry.thisMachine)),
                        JSON.Member("lastHeard", entry.heard.map { .string($0.text) } ?? .null),
                        JSON.Member("removed", .bool(entry.parent.removed)),
                    ])
                }
                try Terminal.output(JSON.array(items).text + "\n")
                return
            }
            guard !listed.isEmpty else {
                Terminal.info("This household has one parent's machine, this one; add another with `lomme-vault parent add NAME --key KEY`.")
                return
            }
            let width = listed.map(\.parent.name.count).max() ?? 0
            for entry in listed {
                let heard = entry.thisMachine ? "this machine" : entry.heard.map { "last heard from \($0.shown)" } ?? "not heard from yet"
                let removed = entry.parent.removed ? ", removed" : ""
                try Terminal.output(JSON.printable(entry.parent.name).padding(toLength: width) + "  " + entry.parent.key.issuer.fingerprint + "  " + heard + removed + "\n")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop vouching for a parent's machine (needs the recovery kit).",
            discussion: """
                The household key signs a vouch without that machine's issuer: each child refuses \
                its codes from the child's next code on, and the other machines ignore its journal \
                from now on. Asks on a terminal (--yes skips). A machine that was lost or stolen \
                holds the secret: renew it at the bank, then `lomme-vault set clientSecret` and \
                `lomme-vault issue --all`. Exit 1: this machine itself, or not confirmed; 4: the kit \
                is not this household's; 6: no such parent.
                """
        )

        @Argument(help: ArgumentHelp("The parent's machine's name (`lomme-vault parent list`).", valueName: "name")) var name: String
        @Flag(name: [.short, .long], help: "Remove without asking.") var yes = false
        @OptionGroup var recovery: RecoveryKeyOptions
        @OptionGroup var vault: VaultOptions

        func run() throws {
            let context = try vault.prepare()
            let removed = try ParentService(context, vault.unlockOptions).remove(name, recovery: recovery.isGiven ? try recovery.source() : .terminal, yes: yes)
            Terminal.info("""
                Removed \(removed.name)'s machine: the household key no longer vouches for it, so each child refuses its codes \
                from the child's next code on, and this machine ignores its journal from now on (`lomme-vault sync` tells the \
                others). If that machine was lost or stolen, it holds the secret: order a new one at the bank, then `lomme-vault set \
                clientSecret` and `lomme-vault issue --all`.
                """)
        }
    }
}

extension String {
    func padding(toLength length: Int) -> String { count >= length ? self : self + String(repeating: " ", count: length - count) }
}
