import ArgumentParser
import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

struct Issue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn a config into a QR code for the child's device to photograph.",
        discussion: """
            The config is --from FILE (JSON; - for standard input), else the config stored in this \
            machine's vault (`lomme-vault import --stdin < config.json` once, then delete the file; \
            `lomme-vault set FIELD` changes one field), else, on a terminal, questions (the client \
            secret typed without echo). It is never taken from the command line.

            The QR code is drawn in the terminal (black on white, whatever the theme) or written to \
            --output FILE.png / FILE.svg. A terminal too small for it is told the size it needs, and \
            the code is drawn once the window has grown (Ctrl-C stops); a pipe gets it as plain text. \
            Before anything is shown, the drawing is read back by lomme-vault's own scanner and \
            compared with the payload.

            With --to NAME|KEY or --to-image PHOTO the code is sealed: the config is encrypted to the \
            child's receiving key and signed, inside the encryption, with this machine's own vault \
            key, and it expires (--expires, default 24h). NAME is a child of `lomme-vault child list` \
            (looked up first): the code carries that child's accountNr and fields. KEY is a receiving \
            key (lvk1…, from `lomme-vault key` on the child's machine); a key on the child list is that \
            child. Only that device can open the code or learn who issued it. The issuer fingerprint is \
            printed under the code (`lomme-vault key --issuer` prints it any time): the child's machine \
            shows it on import and pins it on first use. Every sealed code is recorded in this vault \
            (child, code id, issued, expires, a keyed fingerprint of the credential). Sealing needs a \
            vault of your own (`lomme-vault init --parent`).

            --all seals a fresh code to every child: --output-dir DIR writes DIR/NAME.png (mode 0644; \
            DIR is made when missing, with any missing folder above it, mode 0700, never through \
            a symbolic link or into another user's folder); on a terminal the codes are shown one after another, each \
            labelled with the child's name and "1 of 2", Enter for the next, Ctrl-C stops (the codes \
            shown so far are recorded). --dry-run lists who would get a code and why. Every child's \
            key and config are checked before the first code is made.

            Without --to the code is plain, the original app's JSON: it holds the client secret and \
            the national id in clear, and anyone who sees or photographs it can use them. Files \
            holding a plain code are written with mode 0600.

            Exit 6: --to NAME names no child (the children are listed), or sealing finds no vault. \
            Exit 64: a mistyped receiving key, or --all to a pipe without --output-dir.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Read the config as JSON from FILE ('-' for standard input).", valueName: "FILE"))
    var from: String?

    @Option(name: .long, help: ArgumentHelp(
        "Error correction: L, M, Q or H, the share of the code that may be damaged (default: H for a plain code, as the original app's instructions; M for a sealed one, which is larger).",
        valueName: "level"))
    var level: QRErrorCorrection?

    @Option(name: [.short, .long], help: ArgumentHelp("Write the code to FILE.png (8 px per module) or FILE.svg instead of the terminal.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Skip the check-digit rules (for test numbers); the other rules still apply.")
    var noCheck = false

    @Option(name: .long, help: ArgumentHelp("Seal the code to this child (a name from `lomme-vault child list`) or receiving key (lvk1…, from `lomme-vault key`).", valueName: "NAME|KEY"))
    var to: String?

    @Option(name: .customLong("to-image"), help: ArgumentHelp("Seal the code to the receiving key in this photo of `lomme-vault key`'s QR code.", valueName: "PHOTO"))
    var toImage: String?

    @Flag(name: .customLong("all"), help: "Seal a fresh code to every child (`lomme-vault child list`).")
    var all = false

    @Option(name: .customLong("output-dir"), help: ArgumentHelp("With --all: write DIR/NAME.png for each child instead of showing the codes.", valueName: "DIR"))
    var outputDir: String?

    @Flag(name: .customLong("dry-run"), help: "With --all: list who would get a code, and why; issue nothing.")
    var dryRun = false

    @Option(name: .long, help: ArgumentHelp("How long a sealed code stays valid: 30m, 24h, 7d (at most 30d).", valueName: "DURATION"))
    var expires: String = "24h"

    @OptionGroup var vault: VaultOptions

    /// A sealed code lives at most 30 days.
    static let longestExpiry: UInt32 = 30 * 86400

    func validate() throws {
        if [to != nil, toImage != nil, all].filter({ $0 }).count > 1 { throw ValidationError("give one of --to, --to-image and --all") }
        if outputDir != nil && !all { throw ValidationError("--output-dir goes with --all (one code: --output FILE.png)") }
        if dryRun && !all { throw ValidationError("--dry-run goes with --all") }
        if all && output != nil { throw ValidationError("--all writes one file per child: give --output-dir DIR, not --output") }
        _ = try DurationOption.seconds(expires, option: "--expires", atMost: Self.longestExpiry)
        if let output, !output.lowercased().hasSuffix(".png"), !output.lowercased().hasSuffix(".svg") {
            throw ValidationError("--output must end in .png or .svg")
        }
    }

    func run() throws {
        Hardening.apply()  // secrets are in memory from here on: no core dumps
        let lifetime = Int64(DurationText.parse(expires)!)
        if all { return try IssueAll(issue: self, lifetime: lifetime).run() }
        let recipient: IssueService.Recipient = try to.map { .named($0) } ?? toImage.map { .key(try ReceivingKey(photo: $0)) } ?? .plain
        let sealed = to != nil || toImage != nil
        let request = IssueService.Request(from: from, recipient: recipient, lifetime: lifetime, checksums: !noCheck, unlock: vault.unlockOptions)
        // A plain code needs no vault: where none can be named (no HOME), its path is unused.
        let context = try sealed ? vault.prepare() : (try? vault.prepare()) ?? VaultContext(
            settings: VaultSettings(store: VaultStore(path: "/"), kdf: nil, keyring: Keyring(off: true), tpm: nil),
            interaction: TerminalInteraction())
        let service = IssueService(context)
        if sealed, let output {
            // A code of an earlier run is never left where this one goes (the record would
            // say the new one was not handed out, and the old file looks like it).
            try FileIO.moveAside(output)
        }
        let issued = try service.run(request, nowMs: VaultContents.nowMilliseconds())
        let code = try IssuedCode(payload: issued.payload, kind: sealed ? .sealed : .plain, level: level)
        var lines = Self.summary(issued, code: code)
        if let output {
            try FileIO.replace(output, with: code.fileBytes(for: output), mode: code.kind.fileMode)
            try service.handedOut(issued, now: Int64(time(nil)))
            lines.append("Wrote \(output) (mode 0\(String(code.kind.fileMode, radix: 8))).")
            Terminal.info(lines.joined(separator: "\n"))
        } else {
            // The summary first (a small window shows what is coming and the size it
            // needs), a one-line recap under the code; the window must hold all three.
            try Self.notHandedOutIfUnwritten(issued) {
                try TerminalCode.show(code, before: lines.joined(separator: "\n"), note: Self.recap(issued))
            }
            try service.handedOut(issued, now: Int64(time(nil)))
        }
    }

    /// Runs `show`; when the code did not reach stdout (a full disk, a closed stdout, a
    /// reader gone), the failure says that the sealed code is in the record but was not
    /// handed out, and the caller never marks it so.
    static func notHandedOutIfUnwritten(_ issued: IssueService.Issued, _ show: () throws -> Void) throws {
        do {
            try show()
        } catch let error as LommeError where error.reason == .standardOutputFailed && issued.recordId != nil {
            let whose = issued.child.map { "\($0)'s code" } ?? "the code"
            throw error.with(message: error.message + "; \(whose) was recorded in this vault but not handed out (`lomme-vault child list`)")
        }
    }

    /// The line under a drawn code: its kind, for whom, until when, by whom.
    static func recap(_ issued: IssueService.Issued) -> String {
        guard let recipient = issued.recipient, let issuer = issued.issuer else {
            return "Above: a plain code: it holds the client secret in clear."
        }
        let whom = issued.child.map { "\($0) (\(recipient.fingerprint))" } ?? recipient.fingerprint
        return "Above: sealed to \(whom), expires \(Instant(seconds: issued.expires).shown); issuer \(issuer.fingerprint)."
    }

    /// What is said about a code: its kind, recipient, expiry, fields (the secret masked).
    static func summary(_ issued: IssueService.Issued, code: IssuedCode) -> [String] {
        let shape = "QR version \(code.matrix.version), \(code.matrix.size)×\(code.matrix.size) modules, level \(code.matrix.level.rawValue)"
        var lines: [String] = []
        if let recipient = issued.recipient, let issuer = issued.issuer {
            let expiry = Instant(seconds: issued.expires).shown
            let whom = issued.child.map { "\($0) (receiving key \(recipient.fingerprint))" } ?? "receiving key \(recipient.fingerprint)"
            lines.append("Sealed to \(whom), expires \(expiry); issuer \(issuer.fingerprint) (\(shape)):")
            lines += issued.config.summaryLines
            lines.append("")
            lines.append("Issuer fingerprint: \(issuer.fingerprint)")
            lines.append("Only that device can open it, and only it sees who issued it. On first import the child's device shows the issuer fingerprint and pins it: tell the child to compare it with the one above (or to import with --expect-issuer \(issuer.fingerprint)).")
        } else {
            lines.append("Plain config (\(shape)):")
            lines += issued.config.summaryLines
            lines.append("")
            lines.append("lomme-vault: warning: this code holds the client secret and national id in clear. Anyone who sees or photographs it can use them; show it only to the child's device, or seal it with --to.")
        }
        return lines
    }
}

extension QRErrorCorrection: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}
