import ArgumentParser
import Glibc
import LommeCore
import LommeScan
import LommeVaultKit

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Decode a config from QR photos (or --stdin), show it, confirm, and store it in the vault.",
        discussion: """
            Shows what will be stored (secret and personal number hidden) and what it replaces, \
            then asks on the terminal unless --yes. Creates the vault first when there is none \
            (asking for a new passphrase twice). The replaced config is kept for one step of rollback.

            A sealed code shows its issuer's fingerprint; the first one is pinned after the \
            question whether it is the one the parent's `issue` printed (none with \
            --expect-issuer, which refuses any other issuer). Once an issuer is pinned, a plain \
            code is refused unless --allow-plain (--yes alone never overrides it).
            """
    )

    @Argument(help: "Photos or images of the QR code.") var photos: [String] = []
    @Flag(name: .customLong("stdin"), help: "Read the payload text from standard input instead of a photo.") var stdin = false
    @Flag(name: .customLong("yes"), help: "Store without asking.") var yes = false
    @Flag(name: .customLong("no-check"), help: "Skip the mod-11 check digit rules (for test numbers).") var noCheck = false
    @Flag(name: .customLong("trust-new-issuer"), help: "Accept a sealed code from another issuer than the pinned one, and pin it instead.")
    var trustNewIssuer = false
    @Option(name: .customLong("expect-issuer"), help: ArgumentHelp(
        "Accept a sealed code only from the issuer with this fingerprint (what the parent's `issue` printed), and pin it without asking.",
        valueName: "FINGERPRINT"))
    var expectIssuer: String?
    @Flag(name: .customLong("allow-plain"), help: "Store a plain code although sealed codes of a pinned issuer provided the config; drops the pin (asked again on a terminal).")
    var allowPlain = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if stdin == !photos.isEmpty { throw ValidationError("give one or more photos, or --stdin") }
        if let expectIssuer, Fingerprint.normalized(expectIssuer).count != 16 {
            throw ValidationError("--expect-issuer takes a fingerprint such as K7QZ-M2XA-9PWD-RT4B (what the parent's `lomme-vault issue` printed)")
        }
    }

    func run() throws {
        let store = try vault.prepare()
        let payload = try PayloadInput.read(photos: photos, stdin: stdin)
        let text = QRText.decode(payload)
        if Envelope.isEnvelope(text) {
            try importSealed(text, store: store)
        } else {
            try importPlain(PlainPayload.decode(payload, checksums: !noCheck), store: store)
        }
    }

    func importPlain(_ config: Config, store: VaultStore) throws {
        let opened: OpenedVault? = store.exists ? try Session.open(store, vault.unlockOptions) : nil
        if let opened, let pinned = try PlainOverPinned.pinnedIssuer(in: opened.contents, allowPlain: allowPlain) {
            try PlainOverPinned.confirmDroppingPin(pinned, noPrompt: vault.noPrompt)
        }
        let old = opened?.contents.config
        if old == config && !allowPlain {
            Terminal.info("The vault already holds this config; nothing changed.")
            return
        }
        try confirm(config, replacing: old, notes: ["Plain config: it was readable by anyone who saw the QR code."])
        if let opened {
            try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
                // Checked again under the write lock; --allow-plain drops the pin here.
                _ = try PlainOverPinned.pinnedIssuer(in: contents, allowPlain: allowPlain)
                try PlainOverPinned.dropPin(in: &contents)
                contents.store(config, source: .plain)
            }
            Terminal.info("Stored in \(store.path).")
        } else {
            Terminal.info("There is no vault at \(store.path) yet; creating it.")
            if vault.noPrompt && vault.source == .terminal {
                throw LommeError(.locked, "--no-prompt: give the new vault's passphrase with --passphrase-fd or --passphrase-file")
            }
            var contents = VaultContents()
            contents.store(config, source: .plain, now: contents.created)
            _ = try contents.ensureDeviceIdentity()
            try VaultActions.create(store, contents: contents, source: vault.source)
            Terminal.info("Created the vault and stored the config in \(store.path).")
        }
    }

    func importSealed(_ text: String, store: VaultStore) throws {
        guard store.exists else {
            throw LommeError(.notFound, "a sealed code opens only on the device it was issued to, and there is no vault at \(store.path): run `lomme-vault init`, show `lomme-vault key` to the parent, and import the code they issue to it")
        }
        let opened = try Session.open(store, vault.unlockOptions)
        guard let identity = try opened.contents.deviceIdentity() else {
            throw LommeError.refused("this vault has no device key yet, so no sealed code can be for it: run `lomme-vault key` and ask the parent to issue to that key")
        }
        let now = Int64(time(nil))
        let check = try SealedImport(
            text: text, identity: identity, now: now, checksums: !noCheck, trustNewIssuer: trustNewIssuer, expectIssuer: expectIssuer)
        if check.alreadyImported {
            Terminal.info("This sealed code was imported already; nothing changed.")
            return
        }
        try confirm(check.config, replacing: opened.contents.config, notes: check.summaryLines, question: check.question,
                    skipQuestion: check.issuer == .expected || (expectIssuer != nil && check.issuer == .pinned))
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            // Checked again against what the vault holds now, under the write lock.
            guard var current = try contents.deviceIdentity() else { throw LommeError.refused("the vault's device key disappeared; nothing was stored") }
            let recheck = try SealedImport(
                text: text, identity: current, now: now, checksums: !noCheck, trustNewIssuer: trustNewIssuer, expectIssuer: expectIssuer)
            recheck.record(in: &current, now: VaultContents.timestamp())
            contents.device = current.json
            contents.store(recheck.config, source: .sealed(issuer: recheck.content.issuerKey))
        }
        Terminal.info("Stored in \(store.path).")
    }

    /// Shows what will be stored and what it replaces, and asks unless --yes.
    func confirm(_ config: Config, replacing old: Config?, notes: [String], question: String = "Store it?", skipQuestion: Bool = false) throws {
        notes.forEach(Terminal.info)
        Terminal.info("Will store:")
        config.summaryLines.forEach(Terminal.info)
        if let old {
            Terminal.info("Replaces (kept as the previous config):")
            old.summaryLines.forEach(Terminal.info)
        }
        if !yes && !skipQuestion {
            guard !vault.noPrompt, Prompt.isAvailable else {
                throw LommeError.failure("add --yes to import without a terminal to confirm on")
            }
            guard try Prompt.confirm(question) else { throw LommeError.failure("not stored; nothing changed") }
        }
    }
}
