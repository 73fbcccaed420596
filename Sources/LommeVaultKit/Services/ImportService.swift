import Glibc
import LommeCore

/// `import`: a classified payload (what it is was decided once, where it was read:
/// `ClassifiedPayload`, which the scanner's `Decoded` carries), the checks (rules, issuer pin,
/// replay, rollback, plain over pinned), the confirmation, and the store, with the sealed
/// checks made again under the write lock against what the vault holds then.
package struct ImportService {
    package struct Request: Sendable {
        package var checksums = true
        /// `--yes`: store without asking (never overrides the plain-over-pinned rule).
        package var yes = false
        package var trustNewIssuer = false
        package var expectIssuer: String?
        package var allowPlain = false
        /// The payload came from standard input (`--stdin`), not a QR code.
        package var fromStandardInput = false
        package var unlock = UnlockOptions()
        package init() {}
    }

    package enum Outcome: Sendable, Equatable {
        /// The vault already holds this config (plain) or this envelope (sealed).
        case alreadyHeld, alreadyImported
        case stored, created
    }

    package let context: VaultContext
    package let request: Request

    package init(_ context: VaultContext, _ request: Request) {
        self.context = context
        self.request = request
    }

    /// What `importing` did, and the receipt a sealed code leaves for the parent, made
    /// from the vault as this import opened it (nil for a plain config), so that offering
    /// it asks for no passphrase again.
    package struct Imported: Sendable {
        package var outcome: Outcome
        package var receipt: ReceiptService.Made?
    }

    /// Imports a payload (a QR code's, or standard input's).
    package func run(_ payload: ClassifiedPayload) throws(LommeError) -> Outcome {
        try importing(payload).outcome
    }

    /// `run`, with the receipt of a sealed code.
    package func importing(_ payload: ClassifiedPayload) throws(LommeError) -> Imported {
        switch payload.payload {
        case .sealed(let envelope, let problem):
            return try importSealed(envelope, problem: problem)
        case .receivingKey, .receipt, .recoveryKey, .parentKey:
            throw Self.notAConfig(payload.kind, "this is") ?? LommeError.refused(.notAConfig, "this is not a config")
        case .household:
            // The command takes a household's code to `SyncService.importFile` before this.
            throw LommeError.refused(.codeIsHousehold, "this is a household handed over by a parent's machine; `lomme-vault import` takes it on the machine it is sealed to")
        case .plain(let config?, let problem):
            // Parsed once, where it was read; the check digits are waived by --no-check only.
            if let problem, request.checksums { throw problem }
            return Imported(outcome: try importPlain(config), receipt: nil)
        case .plain(nil, let problem):
            // JSON naming a config's fields that cannot be read as one (what rule it breaks).
            throw problem ?? LommeError.refused(.notAConfig, "the payload is not a config")
        case .other:
            // Not a config: the plain rules say why (not JSON, a field missing, a rule broken).
            return Imported(outcome: try importPlain(PlainPayload.decode(payload.bytes, checksums: request.checksums)), receipt: nil)
        }
    }

    /// The refusal of a code of lomme-vault's own that `import` does not take: what it is,
    /// and what to do with it instead, after `subject` ("this is", "the QR code in PHOTO
    /// is"); nil for a kind `import` takes or another application's code. The one wording
    /// for standard input, a photo and the camera.
    package static func notAConfig(_ kind: CodeKind, _ subject: String) -> LommeError? {
        switch kind {
        case .receivingKey:
            LommeError.refused(.codeIsReceivingKey, "\(subject) a device's receiving key (what `lomme-vault key` shows), not a config; the parent seals a code to it with `lomme-vault issue --to KEY` (or `--to-image PHOTO`)")
        case .receipt:
            LommeError.refused(.codeIsReceipt, "\(subject) a child's receipt (what `lomme-vault receipt` shows), not a config; the parent who issued the code checks it with `lomme-vault child confirm PHOTO`")
        case .recoveryKey:
            LommeError.refused(.codeIsRecoveryKit, "\(subject) a household's recovery kit, not a config: keep it secret, like a passport; a parent's new machine is made from it with `lomme-vault init --parent --restore --recovery-image PHOTO`, and it opens a parent's vault whose passphrase is forgotten (`lomme-vault unlock --with recovery --recovery-image PHOTO`)")
        case .parentKey:
            LommeError.refused(.codeIsParentKey, "\(subject) a parent's machine key (what `lomme-vault key --parent` shows), not a config; the parent with the household adds it with `lomme-vault parent add NAME --key-image PHOTO`")
        case .plain, .sealed, .household, .other:
            nil
        }
    }

    /// `run(_:)` of raw bytes, classified here (the library's own callers and tests).
    package func run(_ bytes: [UInt8]) throws(LommeError) -> Outcome {
        try run(ClassifiedPayload(bytes))
    }

    func importPlain(_ config: Config) throws(LommeError) -> Outcome {
        let store = context.store
        let allowPlain = request.allowPlain
        let opened: OpenedVault? = store.exists ? try Session.open(context, request.unlock) : nil
        if let opened, let pinned = try PlainOverPinned.pinnedIssuer(in: opened.contents, allowPlain: allowPlain) {
            try PlainOverPinned.confirmDroppingPin(pinned, noPrompt: request.unlock.noPrompt, context.interaction)
        }
        let old = opened?.contents.config
        if old == config && !allowPlain { return .alreadyHeld }
        try confirm(config, replacing: old, notes: [request.fromStandardInput ? "Plain config from standard input." : "Plain config: it was readable by anyone who saw the QR code."])
        if let opened {
            try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
                // Checked again under the write lock; --allow-plain drops the pin here.
                _ = try PlainOverPinned.pinnedIssuer(in: contents, allowPlain: allowPlain)
                try PlainOverPinned.dropPin(in: &contents)
                contents.store(config, source: .plain)
            }
            return .stored
        }
        context.interaction.notice("There is no vault at \(store.path) yet; creating it.")
        var contents = VaultContents()
        contents.store(config, source: .plain, now: contents.created)
        _ = try Provisioning(context).createVault(contents: contents, source: request.unlock.source, noPrompt: request.unlock.noPrompt,
                                         refusal: "--no-prompt: give the new vault's passphrase with --passphrase-fd or --passphrase-file")
        return .created
    }

    func importSealed(_ parsed: Envelope?, problem: LommeError?) throws(LommeError) -> Imported {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "a sealed code opens only on the device it was issued to, and there is no vault at \(store.path): run `lomme-vault init`, show `lomme-vault key` to the parent, and import the code they issue to it")
        }
        guard let envelope = parsed else {
            throw problem ?? LommeError.refused(.codeDamaged, "the sealed code is damaged; ask for a new QR code")
        }
        let opened = try Session.open(context, request.unlock)
        guard let identity = opened.contents.identity else {
            throw LommeError.refused(.noReceivingKey, "this vault has no receiving key yet, so no sealed code can be for it: run `lomme-vault key` and ask the parent to issue to that key")
        }
        let now = Int64(time(nil))
        let check = try sealedCheck(envelope, identity: identity, now: now)
        if check.alreadyImported {
            // "Unchanged" only when the vault still holds what this code brought: after a plain
            // code (--allow-plain) or `set`, the same code again is a replay, refused.
            guard let source = opened.contents.source, source != .sealed(issuer: check.content.issuerKey)
                    || opened.contents.config != check.config else {
                return Imported(outcome: .alreadyImported, receipt: try? ReceiptService.make(from: opened.contents))
            }
            let stored = source == .local ? "a config changed on this machine since (`lomme-vault set`)"
                : source == .plain ? "a plain code's config, stored after it (--allow-plain)" : "another config, stored after it"
            throw LommeError.refused(.replayOverOtherConfig, "this sealed code was imported already, and the vault now holds \(stored); a code is imported once, so nothing was written: ask the parent for a new sealed code")
        }
        let compare = check.issuer == .firstUse
            ? "compare the issuer fingerprint above with the parent's `lomme-vault key --issuer`, then run again with --expect-issuer \(check.content.issuerFingerprint) (or --yes)"
            : nil
        try confirm(check.config, replacing: opened.contents.config, notes: check.summaryLines(now: now), question: check.question,
                    skipQuestion: check.issuer == .expected || (request.expectIssuer != nil && check.issuer == .pinned), noTerminal: compare)
        let written = try VaultActions.updated(opened) { (contents: inout VaultContents) throws(LommeError) in
            // Checked again against what the vault holds now, under the write lock.
            guard var current = contents.identity else { throw LommeError.refused(.noReceivingKey, "the vault's receiving key disappeared; nothing was stored") }
            let recheck = try sealedCheck(envelope, identity: current, now: now)
            recheck.record(in: &current, now: .now())
            contents.identity = current
            contents.store(recheck.config, source: .sealed(issuer: recheck.content.issuerKey))
        }
        if check.issuer == .firstUse && (request.yes || request.unlock.noPrompt || !context.interaction.canAsk) {
            // Pinned without a question: said in one line, with what to compare it with.
            context.interaction.warning("pinned the issuer \(check.content.issuerFingerprint) without asking (--yes): compare it with `lomme-vault key --issuer` on the parent's machine")
        }
        return Imported(outcome: .stored, receipt: try? ReceiptService.make(from: written.contents))
    }

    /// Opens the envelope and checks issuer, pin, replay and rollback against `identity`.
    func sealedCheck(_ envelope: Envelope, identity: DeviceIdentity, now: Int64) throws(LommeError) -> SealedImport {
        try SealedImport(envelope: envelope, identity: identity, now: now, checksums: request.checksums,
                         trustNewIssuer: request.trustNewIssuer, expectIssuer: request.expectIssuer)
    }

    /// Shows what will be stored and what it replaces, and asks unless --yes. A question
    /// that cannot be asked (no terminal, or --no-prompt) is refused as every command's is:
    /// exit 1, nothing stored, `noTerminal` (else: read it, then --yes) saying what to do.
    func confirm(_ config: Config, replacing old: Config?, notes: [String], question: String = "Store it?",
                 skipQuestion: Bool = false, noTerminal: String? = nil) throws(LommeError) {
        let interaction = context.interaction
        notes.forEach(interaction.notice)
        if let old, config.sameFields(as: old) {
            interaction.notice("Will store the same config again (nothing in it changes):")
            config.summaryLines.forEach(interaction.notice)
        } else if let old {
            // What changes is marked in both blocks: a renewed secret looks the same masked.
            interaction.notice("Will store (* marks what changes):")
            config.summaryLines(marking: old).forEach(interaction.notice)
            interaction.notice("Replaces (kept as the previous config):")
            old.summaryLines(marking: config).forEach(interaction.notice)
        } else {
            interaction.notice("Will store:")
            config.summaryLines.forEach(interaction.notice)
        }
        if !request.yes && !skipQuestion {
            guard !request.unlock.noPrompt, interaction.canAsk else {
                throw LommeError.failure(.noTerminalToConfirm, "no terminal to confirm on; nothing was stored: "
                    + (noTerminal ?? "read what would be stored (above), then run again with --yes"))
            }
            guard try interaction.confirm(question) else { throw LommeError.failure(.declined, "not stored; nothing changed") }
        }
    }
}
