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
        package var issuer: SigningKeyPair?
        /// The key a sealed code is sealed to, and the child it belongs to.
        package var recipient: ReceivingKey?
        package var child: String?
        package var issued: Int64
        package var expires: Int64
    }

    /// `issue`: the issuer's keys (the vault opened first, for a sealed code), the config,
    /// and the payload. A sealed code is issued at least a second after the last one this
    /// vault issued, and recorded, under the vault's write lock, so two codes of one issuer
    /// never compare equal and a child can tell which is newer.
    package func run(_ request: Request, now: Int64) throws(LommeError) -> Issued {
        guard case .plain = request.recipient else {
            // A key's text is checked before the vault is opened (a typo is exit 64 at once).
            if case .named(let text) = request.recipient, text.trimmingASCIIWhitespace().lowercased().hasPrefix(ReceivingKey.textPrefix + "1") {
                _ = try ReceivingKey(text: text)
            }
            let opened = try openForSealing(request.unlock)
            let (key, child) = try resolve(request.recipient, in: opened.contents.household)
            let config = try config(for: child, request, opened: opened)
            return try seal(config, to: key, child: child, lifetime: request.lifetime, opened: opened, now: now)
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

    func openForSealing(_ options: UnlockOptions) throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, "sealing a code needs a vault of your own for the issuer key, and there is none at \(store.path): run `lomme-vault init` first")
        }
        // Sealing signs with this machine's vault key: open it before asking for the config.
        return try Session.open(context, options)
    }

    /// The key to seal to and the child it belongs to (a name is looked up first; a key on
    /// the list is that child's).
    func resolve(_ recipient: Recipient, in household: Household) throws(LommeError) -> (ReceivingKey, Child?) {
        switch recipient {
        case .plain:
            throw LommeError.failure("a plain code has no recipient")
        case .key(let key):
            return (key, household.child(with: key))
        case .named(let text):
            if let child = household.child(named: text) { return (child.receivingKey, child) }
            let trimmed = text.trimmingASCIIWhitespace()
            guard trimmed.lowercased().hasPrefix(ReceivingKey.textPrefix + "1") else {
                throw LommeError(.notFound, "there is no child called \(JSON.printable(text)), and it is not a receiving key (lvk1…); \(household.childNames)")
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

    /// Seals `config` to `key` and records it, in one write of the vault.
    func seal(_ config: Config, to key: ReceivingKey, child: Child?, lifetime: Int64, opened: OpenedVault,
              now: Int64) throws(LommeError) -> Issued {
        var result: Issued?
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            var identity = try contents.ensureDeviceIdentity()
            let issued = max(now, (identity.lastIssued ?? Int64.min) + 1)
            let payload = try Envelope.seal(config, to: key, issuer: identity.signing, now: issued, lifetime: lifetime)
            identity.lastIssued = issued
            contents.device = identity.json
            let id = try Envelope(text: payload).id
            let credential = contents.household.credentialFingerprint(of: config)
            contents.household.record(IssueRecord(child: child?.name, recipient: key.fingerprint, id: Sodium.hex(id),
                                                  issued: issued, expires: issued + lifetime, credential: credential))
            result = Issued(payload: payload, config: config, issuer: identity.signing, recipient: key, child: child?.name,
                            issued: issued, expires: issued + lifetime)
        }
        return result!
    }

    /// This vault's signing keys, for sealing. Needs a vault of one's own.
    package func issuerKeys(_ options: UnlockOptions) throws(LommeError) -> SigningKeyPair {
        try Provisioning.deviceIdentity(openForSealing(options)).identity.signing
    }

    /// The payload text: the original app's JSON, or an envelope sealed to `recipient`
    /// by `issuer`, valid from `now` for `lifetime` seconds.
    package static func payload(_ config: Config, sealedTo recipient: ReceivingKey?, issuer: SigningKeyPair?,
                                now: Int64, lifetime: Int64) throws(LommeError) -> String {
        guard let recipient else { return PlainPayload.encode(config) }
        guard let issuer else { throw LommeError.failure("sealing a code needs this vault's issuer key") }
        return try Envelope.seal(config, to: recipient, issuer: issuer, now: now, lifetime: lifetime)
    }

    func readConfig(_ request: Request) throws(LommeError) -> Config {
        if let from = request.from { return try ConfigInput.read(from: from, checksums: request.checksums) }
        return try ConfigInput.ask(checksums: request.checksums, context.interaction)
    }

    // MARK: - Every child

    /// `issue --all`, planned: every child with the config its code will carry and why it
    /// gets one. Everything is checked here, before anything is written or recorded.
    package struct Plan: Sendable {
        package struct Item: Sendable {
            package var child: Child
            package var config: Config
            /// Why: "no code yet", "its last code carries an older secret", "current".
            package var reason: String
        }
        package var items: [Item]
        let opened: OpenedVault
        let lifetime: Int64
    }

    package func planAll(_ request: Request) throws(LommeError) -> Plan {
        let opened = try openForSealing(request.unlock)
        let household = opened.contents.household
        guard !household.children.isEmpty else {
            throw LommeError(.notFound, "this vault has no children to issue to; add one with `lomme-vault child add NAME --key KEY --account ACCOUNTNR`")
        }
        if request.from == nil && opened.contents.config == nil {
            throw LommeError(.notFound, "no config is stored in this vault; store the bank's with `lomme-vault import --stdin < config.json` (then delete the file), or give --from FILE")
        }
        var items: [Plan.Item] = []
        for child in household.children {
            guard child.receivingKey.isUsable else {
                throw LommeError.usage("\(child.name)'s receiving key is not usable; nothing was issued: run `lomme-vault child rekey \(child.name) --key KEY` with the key from `lomme-vault key` on their device")
            }
            let config: Config
            do { config = try self.config(for: child, request, opened: opened) } catch {
                throw LommeError(error.code, "\(child.name): \(error.message); nothing was issued")
            }
            let last = household.lastCode(to: child)
            let reason = last == nil ? "no code yet"
                : household.isCurrent(child, config: config) ? "current (last code \(VaultContents.timestamp(Int(last!.issued))))"
                : "its last code carries an older secret"
            items.append(Plan.Item(child: child, config: config, reason: reason))
        }
        return Plan(items: items, opened: opened, lifetime: request.lifetime)
    }

    /// Issues and records one planned code (each in its own write, so a run stopped midway
    /// keeps the record of every code made before).
    package func issue(_ item: Plan.Item, of plan: Plan, now: Int64) throws(LommeError) -> Issued {
        try seal(item.config, to: item.child.receivingKey, child: item.child, lifetime: plan.lifetime, opened: plan.opened, now: now)
    }
}
