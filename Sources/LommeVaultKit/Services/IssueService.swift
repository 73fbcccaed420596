import LommeCore

/// `issue`: a config becomes payload text, plain or sealed to a device key and signed with
/// this vault's own key (made now when the vault has none). The config is the `--from`
/// file, else the vault's stored config, else questions. A sealed code to a child of the
/// household carries that child's account and fields, and every sealed code is recorded.
package struct IssueService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// Whom a code is for.
    package enum Recipient: Sendable {
        /// Nobody: a plain code.
        case plain
        /// This receiving key (from a photo of `lomme-vault key`'s code).
        case key(ReceivingKey)
        /// `--to TEXT`: a child's name, else a receiving key's text.
        case named(String)
    }

    /// What `issue` is asked for.
    package struct Request: Sendable {
        /// The config's JSON file, `-` for standard input; nil: the stored config, else
        /// asked field by field.
        package var from: String?
        package var recipient: Recipient
        /// How long a sealed code is valid, in seconds.
        package var lifetime: Int64
        package var checksums: Bool
        package var unlock: UnlockOptions

        package init(from: String?, recipient: Recipient, lifetime: Int64, checksums: Bool, unlock: UnlockOptions) {
            self.from = from
            self.recipient = recipient
            self.lifetime = lifetime
            self.checksums = checksums
            self.unlock = unlock
        }
    }

    package struct Issued: Sendable {
        package var payload: String
        package var config: Config
        /// The issuer of a sealed code.
        package var issuer: IssuerKeyPair?
        /// The key a sealed code is sealed to, and the child it belongs to.
        package var recipient: ReceivingKey?
        package var child: String?
        /// Unix seconds.
        package var issued: Int64
        package var expires: Int64
        /// A sealed code's record: its id (hex) and the vault it is recorded in, to mark it
        /// handed out (`handedOut(_:)`).
        package var recordId: String?
        var opened: OpenedVault?
    }

    /// `issue`: the issuer's keys (the vault opened first, for a sealed code), the config,
    /// and the payload. A sealed code is recorded (not yet handed out) under the vault's
    /// write lock before it is returned; `handedOut(_:)` marks it once its file is written
    /// or its drawing has finished. `nowMs` is Unix milliseconds: each sealed code of this
    /// vault is issued at least a millisecond after the last, so two never tie, and none is
    /// dated later than the moment it was made.
    package func run(_ request: Request, nowMs: Int64) throws(LommeError) -> Issued {
        let now = nowMs / 1000
        guard case .plain = request.recipient else {
            // A key's text is checked before the vault is opened (a typo is exit 64 at once).
            if case .named(let text) = request.recipient, ReceivingKey.looksLikeKey(text) {
                _ = try ReceivingKey(text: text)
            }
            let opened = try openForSealing(request.unlock)
            let (key, child) = try resolve(request.recipient, in: opened.contents.household)
            let config = try config(for: child, request, opened: opened)
            return try seal(config, to: key, child: child, stored: request.from == nil, lifetime: request.lifetime, opened: opened, nowMs: nowMs)
        }
        if request.from == nil, context.store.exists {
            let opened = try Session.open(context, request.unlock)
            if let stored = opened.contents.config {
                return Issued(payload: PlainPayload.encode(stored), config: stored, issuer: nil, recipient: nil, child: nil,
                              issued: now, expires: now + request.lifetime)
            }
        }
        let config = try readConfig(request)
        return Issued(payload: PlainPayload.encode(config), config: config, issuer: nil, recipient: nil, child: nil,
                      issued: now, expires: now + request.lifetime)
    }

    /// Marks a sealed code handed out: its file was written and synced, or its drawing on
    /// the terminal has finished. Until then the record keeps it as not handed out, and it
    /// makes no child current. Nothing to do for a plain code.
    package func handedOut(_ issued: Issued, now: Int64) throws(LommeError) {
        _ = try markHandedOut(issued, now: now)
    }

    /// `handedOut(_:now:)`, returning the vault as written (nil for a plain code).
    func markHandedOut(_ issued: Issued, now: Int64) throws(LommeError) -> OpenedVault? {
        guard let id = issued.recordId, let opened = issued.opened else { return nil }
        return try VaultActions.updated(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard contents.household.markHandedOut(id: id, at: now) else {
                throw LommeError.failure(.recordChangedMeanwhile, "the record of the code just issued is gone from the vault (restored from the .bak meanwhile?); the code was handed out, but it is not recorded")
            }
        }
    }

    /// `handedOut(_:now:)` for a code of `plan`: the plan goes on from the vault as written.
    package func handedOut(_ issued: Issued, of plan: inout Plan, now: Int64) throws(LommeError) {
        if let written = try markHandedOut(issued, now: now) { plan.opened = written }
    }

    func openForSealing(_ options: UnlockOptions) throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "sealing a code needs a vault of your own for the issuer key, and there is none at \(store.path): run `lomme-vault init` first")
        }
        // Sealing signs with this machine's vault key: open it before asking for the config.
        return try Session.open(context, options)
    }

    /// The key to seal to and the child it belongs to (a name is looked up first; a key on
    /// the list is that child's).
    func resolve(_ recipient: Recipient, in household: Household) throws(LommeError) -> (ReceivingKey, Child?) {
        switch recipient {
        case .plain:
            throw LommeError.failure(.internalError, "a plain code has no recipient")
        case .key(let key):
            return (key, household.child(with: key))
        case .named(let text):
            if let child = household.child(named: text) { return (child.receivingKey, child) }
            let trimmed = text.trimmingASCIIWhitespace()
            guard ReceivingKey.looksLikeKey(trimmed) else {
                throw LommeError(.notFound, .noSuchChild, "there is no child called \(JSON.printable(text)), and it is not a receiving key (lvk1…); \(household.childNames)")
            }
            let key = try ReceivingKey(text: trimmed)
            return (key, household.child(with: key))
        }
    }

    /// The config a code carries: `--from`, else the stored one, else questions; a
    /// child's account and fields over it.
    func config(for child: Child?, _ request: Request, opened: OpenedVault) throws(LommeError) -> Config {
        let base: Config
        if request.from == nil, let stored = opened.contents.config {
            // Two parents' machines that changed the config two ways between syncs: the
            // children get neither until one of them sets it again.
            if let conflict = opened.contents.household.conflictMessage(me: opened.contents.identity?.issuerID) {
                throw LommeError.failure(.configConflict, conflict)
            }
            base = stored
        } else {
            base = try readConfig(request)
        }
        guard let child else { return base }
        let config = child.config(from: base)
        // The stored config and the child's account were checked when they were stored (or
        // --no-check was given then): the rules again, the check digits not.
        try config.validate(checksums: false)
        return config
    }

    /// Seals `config` to `key` and records it (not handed out), in one write of the vault.
    /// A child's code is sealed only if the child is still there with that key, checked
    /// under the write lock (a `child remove` or `rekey` meanwhile stops it).
    func seal(_ config: Config, to key: ReceivingKey, child: Child?, stored: Bool, lifetime: Int64, opened: OpenedVault,
              nowMs: Int64) throws(LommeError) -> Issued {
        var result: Issued?
        let written = try VaultActions.updated(opened) { (contents: inout VaultContents) throws(LommeError) in
            if let child {
                guard let now = contents.household.child(named: child.name), now.receivingKey == key else {
                    throw LommeError(.notFound, .childChangedMeanwhile, "\(child.name) was removed or given a new key meanwhile; no code was issued to them")
                }
            }
            var identity = contents.ensureDeviceIdentity()
            let issuedMs = max(nowMs, (identity.lastIssuedMs ?? -1) + 1)
            let credential = contents.household.credentialFingerprint(of: config)
            let carried = contents.household.carried(by: config)
            let extensions = Self.extensions(credential: credential, household: contents.household, stored: stored, me: identity.issuerID)
            let payload = try Envelope.seal(config, to: key, issuer: identity.signing, issuedMs: issuedMs, lifetime: lifetime,
                                            extensions: extensions)
            identity.lastIssuedMs = issuedMs
            contents.identity = identity
            let id = Sodium.hex(try Envelope(text: payload).id)
            let issued = issuedMs / 1000, expires = (issuedMs + lifetime * 1000) / 1000
            var record = IssueRecord(child: child?.name, recipient: key.fingerprint, id: id, issued: issued, expires: expires,
                                     credential: credential, carried: carried, handedOut: .no)
            record.revision = extensions.revision
            contents.household.record(record, now: nowMs / 1000)
            result = Issued(payload: payload, config: config, issuer: identity.signing, recipient: key, child: child?.name,
                            issued: issued, expires: expires, recordId: id)
        }
        result!.opened = written
        return result!
    }

    /// What a sealed code of this vault carries besides the config: the credential
    /// fingerprint; with a recovery kit the household key, its newest vouch and the chain
    /// of rotations to it; for the stored config its revision (`stored`), and in a household
    /// of several parents' machines the name of this one (`me`).
    static func extensions(credential: String, household: Household, stored: Bool, me: IssuerID?) -> SealedExtensions {
        let root = household.root
        return SealedExtensions(credential: Sodium.unhex(credential), household: root?.publicKey, vouch: root?.vouch,
                                rotations: root?.rotations ?? [], revision: stored ? household.revision : nil,
                                issuerName: household.parents.first { $0.id == me }?.name)
    }


    func readConfig(_ request: Request) throws(LommeError) -> Config {
        if let from = request.from { return try ConfigInput.read(from: from, checksums: request.checksums) }
        return try ConfigInput.ask(checksums: request.checksums, context.interaction)
    }

    // MARK: - Every child

    /// `issue --all`, planned: every child with the config its code will carry and why it
    /// gets one. Everything is checked here, before anything is written or recorded:
    /// `trial` is a code of the size each child's will have, for the caller to check that
    /// it fits a QR code.
    package struct Plan: Sendable {
        package struct Item: Sendable {
            package var child: Child
            package var config: Config
            /// Why: "no code yet", "secret renewed", "current".
            package var reason: String
            /// A payload as long as the child's code will be (sealed to the child's key by a
            /// throwaway issuer): for checking that it fits before anything is recorded.
            package var trial: String
        }
        package var items: [Item]
        var opened: OpenedVault
        let lifetime: Int64
        /// The codes carry the stored config (no --from), and so its revision.
        let stored: Bool
    }

    package func planAll(_ request: Request, nowMs: Int64) throws(LommeError) -> Plan {
        let opened = try openForSealing(request.unlock)
        let household = opened.contents.household
        guard !household.children.isEmpty else {
            throw LommeError(.notFound, .noChildren, "this vault has no children to issue to; add one with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`")
        }
        if request.from == nil && opened.contents.config == nil {
            throw LommeError(.notFound, .noConfig, "no config is stored in this vault; store the bank's with `lomme-vault import --stdin < config.json` (then delete the file), or give --from FILE")
        }
        let index = Household.RecordIndex(household.issued)
        let stranger = IssuerKeyPair.generate()
        var items: [Plan.Item] = []
        for child in household.children {
            guard child.receivingKey.isUsable else {
                throw LommeError.usage(.receivingKeyUnusable, "\(child.name)'s receiving key is not usable; nothing was issued: run `lomme-vault child rekey \(child.name) --key KEY` with the key from `lomme-vault key` on their device")
            }
            let config: Config
            do { config = try self.config(for: child, request, opened: opened) } catch {
                throw error.with(message: "\(child.name): \(error.message); nothing was issued")
            }
            let state = household.state(of: child, config: opened.contents.config, index: index)
            let reason = state.current ? "current, last code \(Instant(seconds: state.lastHandedOut!.issued).shown)"
                : ChildState.Reason.wording(state.reasons)
            let trial = try Envelope.seal(config, to: child.receivingKey, issuer: stranger, issuedMs: nowMs, lifetime: request.lifetime,
                                          extensions: Self.extensions(credential: String(repeating: "0", count: 32), household: household,
                                                                      stored: request.from == nil, me: opened.contents.identity?.issuerID))
            items.append(Plan.Item(child: child, config: config, reason: reason, trial: trial))
        }
        return Plan(items: items, opened: opened, lifetime: request.lifetime, stored: request.from == nil)
    }

    /// Issues and records one planned code (each in its own write, so a run stopped midway
    /// keeps the record of every code made before).
    package func issue(_ item: Plan.Item, of plan: inout Plan, nowMs: Int64) throws(LommeError) -> Issued {
        let issued = try seal(item.config, to: item.child.receivingKey, child: item.child, stored: plan.stored, lifetime: plan.lifetime,
                              opened: plan.opened, nowMs: nowMs)
        plan.opened = issued.opened ?? plan.opened
        return issued
    }
}
