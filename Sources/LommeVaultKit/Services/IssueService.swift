import LommeCore

/// `issue`: a config becomes payload text, plain or sealed to a device key and signed with
/// this vault's own key (made now when the vault has none).
package struct IssueService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// This vault's signing keys, for sealing. Needs a vault of one's own.
    package func issuerKeys(_ options: UnlockOptions) throws(LommeError) -> SigningKeyPair {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, "sealing a code needs a vault of your own for the issuer key, and there is none at \(store.path): run `lomme-vault init` first")
        }
        return try Provisioning.deviceIdentity(Session.open(context, options)).identity.signing
    }

    /// What `issue` is asked for.
    package struct Request: Sendable {
        /// The config's JSON file, `-` for standard input; nil: asked field by field.
        package var from: String?
        /// Seal to this key; nil: a plain code.
        package var recipient: ReceivingKey?
        /// How long a sealed code is valid, in seconds.
        package var lifetime: Int64
        package var checksums: Bool
        package var unlock: UnlockOptions

        package init(from: String?, recipient: ReceivingKey?, lifetime: Int64, checksums: Bool, unlock: UnlockOptions) {
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
        package var issued: Int64
        package var expires: Int64
    }

    /// `issue`: the issuer's keys (the vault opened first, for a sealed code), the config
    /// (from the file, standard input or the questions), and the payload. A sealed code is
    /// issued at least a second after the last one this vault issued, recorded in the vault
    /// under its write lock, so two codes of one issuer never compare equal and a child
    /// can tell which is newer.
    package func run(_ request: Request, now: Int64) throws(LommeError) -> Issued {
        guard let recipient = request.recipient else {
            let config = try readConfig(request)
            return Issued(payload: PlainPayload.encode(config), config: config, issuer: nil, issued: now, expires: now + request.lifetime)
        }
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, "sealing a code needs a vault of your own for the issuer key, and there is none at \(store.path): run `lomme-vault init` first")
        }
        // Sealing signs with this machine's vault key: open it before asking for the config.
        let opened = try Session.open(context, request.unlock)
        let config = try readConfig(request)
        var result: Issued?
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            var identity = try contents.ensureDeviceIdentity()
            let issued = max(now, (identity.lastIssued ?? Int64.min) + 1)
            let payload = try Envelope.seal(config, to: recipient, issuer: identity.signing, now: issued, lifetime: request.lifetime)
            identity.lastIssued = issued
            contents.device = identity.json
            result = Issued(payload: payload, config: config, issuer: identity.signing, issued: issued, expires: issued + request.lifetime)
        }
        return result!
    }

    func readConfig(_ request: Request) throws(LommeError) -> Config {
        if let from = request.from { return try ConfigInput.read(from: from, checksums: request.checksums) }
        return try ConfigInput.ask(checksums: request.checksums, context.interaction)
    }

    /// The payload text: the original app's JSON, or an envelope sealed to `recipient`
    /// by `issuer`, valid from `now` for `lifetime` seconds.
    package static func payload(_ config: Config, sealedTo recipient: ReceivingKey?, issuer: SigningKeyPair?,
                                now: Int64, lifetime: Int64) throws(LommeError) -> String {
        guard let recipient else { return PlainPayload.encode(config) }
        guard let issuer else { throw LommeError.failure("sealing a code needs this vault's issuer key") }
        return try Envelope.seal(config, to: recipient, issuer: issuer, now: now, lifetime: lifetime)
    }
}
