/// The checks `import` makes on a sealed code beyond the envelope's own: the expected
/// issuer, the pinned issuer, replay and rollback. Everything refused is exit code 7.
package struct SealedImport: Sendable {
    package let envelope: Envelope
    package let content: SealedContent
    package let issuer: IssuerState
    /// The same envelope was imported before: nothing to do.
    package let alreadyImported: Bool

    package var config: Config { content.config }

    package enum IssuerState: Sendable, Equatable {
        /// No issuer was pinned: this one will be, after the user compared fingerprints.
        case firstUse
        /// No issuer was pinned, and the code's issuer is the one `--expect-issuer` named.
        case expected
        case pinned
        /// Another issuer than the pinned one, accepted with `--trust-new-issuer`.
        case replacing(old: [UInt8])
    }

    /// Opens `text` with this device's keys and checks it against what the vault holds.
    /// `expectIssuer` is a fingerprint the issuer must have (any case, dashes optional).
    package init(text: String, identity: DeviceIdentity, now: Int64, checksums: Bool, trustNewIssuer: Bool,
                expectIssuer: String? = nil) throws(LommeError) {
        let envelope = try Envelope(text: text)
        let content = try envelope.open(with: identity.receiving, now: now, checksums: checksums)
        let newPrint = content.issuerFingerprint
        if let expectIssuer, Fingerprint.normalized(expectIssuer) != Fingerprint.normalized(newPrint) {
            throw LommeError.refused(
                "this code was issued by \(newPrint), not by the expected issuer \(expectIssuer) (--expect-issuer); do not use it, and ask the parent for a code from their own machine")
        }
        switch identity.pinnedIssuer {
        case nil:
            issuer = expectIssuer == nil ? .firstUse : .expected
        case let pinned? where pinned == content.issuerKey:
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
            } else if envelope.issuedMs <= last.issuedMs {
                // Strictly newer only: `issue` gives each code of an issuer a later
                // millisecond than the last, so an equal time is an older code of another
                // issuer, or a replay.
                throw LommeError.refused(
                    "this code was issued \(VaultContents.timestamp(Int(envelope.issued))), \(envelope.issuedMs < last.issuedMs ? "before" : "at the same moment as") the config stored now (issued \(VaultContents.timestamp(Int(last.issuedMs / 1000)))); refusing to roll back — ask for a new code")
            } else {
                alreadyImported = false
            }
        } else {
            alreadyImported = false
        }
        self.envelope = envelope
        self.content = content
    }

    /// Records the pinned issuer and this envelope in the device section.
    package func record(in identity: inout DeviceIdentity, now: String) {
        if issuer != .pinned {
            identity.pinnedIssuer = content.issuerKey
            identity.pinnedSince = now
        }
        identity.lastEnvelope = DeviceIdentity.ImportedCode(id: envelope.id, issuedMs: envelope.issuedMs, issuer: content.issuerKey,
                                                            credential: content.extensions.credential)
    }

    /// Lines for the person importing: who issued it and until when it is valid.
    package func summaryLines(now: Int64) -> [String] {
        let print = content.issuerFingerprint
        var lines = ["Sealed to this device; issued \(VaultContents.timestamp(Int(envelope.issued))), \(envelope.expiry(now: now))."]
        switch issuer {
        case .firstUse:
            lines.append("Issuer \(print): first sealed code on this device; it will be pinned, and later codes must come from the same issuer. Compare it with the issuer fingerprint on the parent's machine: `lomme-vault issue` printed it under the code, and `lomme-vault key --issuer` prints it there any time.")
        case .expected:
            lines.append("Issuer \(print) (as --expect-issuer said); it will be pinned.")
        case .pinned:
            lines.append("Issuer \(print) (pinned).")
        case .replacing(let old):
            lines.append("Issuer \(print) REPLACES the pinned issuer \(Fingerprint.of(old)) (--trust-new-issuer).")
        }
        return lines
    }

    /// The question asked on a terminal before storing.
    package var question: String {
        issuer == .firstUse ? "Is \(content.issuerFingerprint) the issuer fingerprint the parent's machine shows (under the code, or with `lomme-vault key --issuer`)? Store it and pin it?" : "Store it?"
    }
}
