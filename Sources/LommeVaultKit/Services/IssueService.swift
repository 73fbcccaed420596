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

    /// The payload text: the original app's JSON, or an envelope sealed to `recipient`
    /// by `issuer`, valid from `now` for `lifetime` seconds.
    package static func payload(_ config: Config, sealedTo recipient: ReceivingKey?, issuer: SigningKeyPair?,
                                now: Int64, lifetime: Int64) throws(LommeError) -> String {
        guard let recipient else { return PlainPayload.encode(config) }
        guard let issuer else { throw LommeError.failure("sealing a code needs this vault's issuer key") }
        return try Envelope.seal(config, to: recipient, issuer: issuer, now: now, lifetime: lifetime)
    }
}
