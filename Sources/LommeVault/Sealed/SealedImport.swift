/// The checks `import` makes on a sealed code beyond the envelope's own: replay,
/// rollback and the pinned issuer. Everything refused is exit code 7.
public struct SealedImport: Sendable {
    public let envelope: Envelope
    public let config: Config
    public let issuer: IssuerState
    /// The same envelope was imported before: nothing to do.
    public let alreadyImported: Bool

    public enum IssuerState: Sendable, Equatable {
        /// No issuer was pinned: this one will be.
        case firstUse
        case pinned
        /// Another issuer than the pinned one, accepted with `--trust-new-issuer`.
        case replacing(old: [UInt8])
    }

    /// Opens `text` with this device's keys and checks it against what the vault holds.
    public init(text: String, identity: DeviceIdentity, now: Int64, checksums: Bool, trustNewIssuer: Bool) throws(LommeError) {
        let envelope = try Envelope(text: text)
        let config = try envelope.open(with: identity.receiving, now: now, checksums: checksums)
        let newPrint = envelope.issuerFingerprint
        switch identity.pinnedIssuer {
        case nil:
            issuer = .firstUse
        case let pinned? where pinned == envelope.issuerKey:
            issuer = .pinned
        case let pinned?:
            guard trustNewIssuer else {
                throw LommeError.refused(
                    "this code was issued by \(newPrint), not by the pinned issuer \(Fingerprint.of(pinned)); if the parent really has a new key, check both fingerprints with them and run again with --trust-new-issuer")
            }
            issuer = .replacing(old: pinned)
        }
        if let last = identity.lastEnvelope {
            if last.id == envelope.id {
                alreadyImported = true
            } else if envelope.issued < last.issued {
                throw LommeError.refused(
                    "this code was issued \(VaultContents.timestamp(Int(envelope.issued))), before the config stored now (issued \(VaultContents.timestamp(Int(last.issued)))); refusing to roll back — ask for a new code")
            } else {
                alreadyImported = false
            }
        } else {
            alreadyImported = false
        }
        self.envelope = envelope
        self.config = config
    }

    /// Records the pinned issuer and this envelope in the device section.
    public func record(in identity: inout DeviceIdentity, now: String) {
        if issuer != .pinned {
            identity.pinnedIssuer = envelope.issuerKey
            identity.pinnedSince = now
        }
        identity.lastEnvelope = (envelope.id, envelope.issued)
    }

    /// Lines for the person importing: who issued it and until when it was valid.
    public var summaryLines: [String] {
        var lines = ["Sealed to this device; issued \(VaultContents.timestamp(Int(envelope.issued))), expires \(VaultContents.timestamp(Int(envelope.expires)))."]
        switch issuer {
        case .firstUse:
            lines.append("Issuer \(envelope.issuerFingerprint): first sealed code on this device; it will be pinned, and later codes must come from the same issuer. Check the fingerprint with the parent (`lomme-vault status` on their machine).")
        case .pinned:
            lines.append("Issuer \(envelope.issuerFingerprint) (pinned).")
        case .replacing(let old):
            lines.append("Issuer \(envelope.issuerFingerprint) REPLACES the pinned issuer \(Fingerprint.of(old)) (--trust-new-issuer).")
        }
        return lines
    }
}
