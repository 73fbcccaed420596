/// The checks `import` makes on a sealed code beyond the envelope's own: the expected
/// issuer, the pinned issuer and household key (its vouch for a new issuer, its revocation
/// of an old one), replay and rollback. Everything refused is exit code 7.
package struct SealedImport: Sendable {
    package let envelope: Envelope
    package let content: SealedContent
    package let issuer: IssuerState
    /// The household key and vouch the device holds once the code is stored (nil: none).
    package let household: HouseholdPin?
    /// The household key is pinned now, or a newer vouch or household key replaces the pinned one.
    package let householdChange: HouseholdChange
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
        case replacing(old: IssuerKey)
        /// Another issuer than the pinned one, for which the pinned household key vouches.
        case vouched(old: IssuerKey)
    }

    package enum HouseholdChange: Sendable, Equatable {
        case none
        /// First pinned (with a first issuer, or from a code of the issuer pinned before).
        case learned
        /// A newer vouch of the pinned household key.
        case newerVouch
        /// A new household key that the pinned one vouched for (a new recovery kit).
        case rotated
        /// Dropped or replaced with `--trust-new-issuer`.
        case replaced
    }

    /// Opens `envelope` with this device's keys and checks it against what the vault holds.
    /// `expectIssuer` is a fingerprint the issuer must have (any case, dashes optional).
    package init(envelope: Envelope, identity: DeviceIdentity, now: Int64, checksums: Bool, trustNewIssuer: Bool,
                expectIssuer: String? = nil) throws(LommeError) {
        let content = try envelope.open(with: identity.receiving, now: now, checksums: checksums)
        let newPrint = content.issuerFingerprint
        if let expectIssuer, Fingerprint.normalized(expectIssuer) != Fingerprint.normalized(newPrint) {
            throw LommeError.refused(.issuerNotExpected,
                "this code was issued by \(newPrint), not by the expected issuer \(expectIssuer) (--expect-issuer); do not use it, and ask the parent for a code from their own machine")
        }
        (issuer, household, householdChange) = try Self.trust(content, identity: identity, trustNewIssuer: trustNewIssuer,
                                                               expected: expectIssuer != nil)
        if let last = identity.lastEnvelope, last.id == envelope.id {
            alreadyImported = true
        } else {
            alreadyImported = false
            try Self.checkOrder(envelope, content, identity: identity,
                                revokesStored: Self.revokes(identity.lastEnvelope?.issuer ?? identity.pinnedIssuer, householdChange, household))
        }
        self.envelope = envelope
        self.content = content
    }

    /// Whom this device trusts after the code: the issuer state, the household key and
    /// vouch it then holds, and what changed (docs/CODES.md, "Checks on import").
    static func trust(_ content: SealedContent, identity: DeviceIdentity, trustNewIssuer: Bool,
                      expected: Bool) throws(LommeError) -> (IssuerState, HouseholdPin?, HouseholdChange) {
        let code = content.extensions, issuerKey = content.issuerKey, newPrint = content.issuerFingerprint
        let now = Instant.now()
        // The code's own household statements hold together, or it is refused: the vouch is
        // the household key's and names the code's issuer, and every rotation it carries is
        // signed, link by link, up to that key.
        var carried: HouseholdPin?
        if let key = code.household {
            guard let vouch = code.vouch, vouch.isSigned(by: key), vouch.names(issuerKey),
                  RootRotation.leads(code.rotations, to: key)
            else {
                throw LommeError.refused(.householdStatementsBroken, "the household statements in this code do not hold (a vouch not signed by the household key it carries, not naming the code's issuer, or a rotation not signed by the key before it); do not use it, and ask the parent for a new code")
            }
            carried = HouseholdPin(key: key, vouch: vouch, pinned: now)
        } else if code.vouch != nil || !code.rotations.isEmpty {
            throw LommeError.refused(.householdStatementsBroken, "the sealed code carries a household vouch without the household key; it is malformed — ask for a new QR code")
        }
        guard let pinned = identity.pinnedIssuer else {
            return (expected ? .expected : .firstUse, carried, carried == nil ? .none : .learned)
        }
        guard let held = identity.household else {
            // Only an issuer pinned (a household from before recovery kits): its own codes
            // teach the household key; another issuer is refused as ever.
            if pinned == issuerKey { return (.pinned, carried, carried == nil ? .none : .learned) }
            guard trustNewIssuer else {
                throw LommeError.refused(.issuerNotPinned,
                    "this code was issued by \(newPrint), not by the pinned issuer \(pinned.fingerprint); if the parent really has a new key, check both fingerprints with them and run again with --trust-new-issuer")
            }
            return (.replacing(old: pinned), carried, carried == nil ? .none : .replaced)
        }
        let state: IssuerState = pinned == issuerKey ? .pinned : .vouched(old: pinned)
        let revoked = LommeError.refused(.issuerRevoked,
            "this code was issued by \(newPrint), a parent's machine the household no longer trusts: with the recovery kit, the parents chose their other machines instead on \(held.vouch.signed.shown) (household \(held.fingerprint)); do not use it, and ask the parent for a code from their current machine")
        guard let carried else {
            // A code without the household's statements: only from the pinned issuer or one
            // the pinned vouch names. Never a flag's way in: a machine the household revoked
            // could otherwise come back by leaving its statements out.
            if pinned == issuerKey || held.vouch.names(issuerKey) { return (state, held, .none) }
            if held.revokes(issuerKey) { throw revoked }
            throw LommeError.refused(.issuerNotVouched,
                "this code was issued by \(newPrint), for which the household key \(held.fingerprint) does not vouch, and it carries no vouch; ask the parent for a code from their current machine (a machine restored from the recovery kit, or added with it, is taken without a question)")
        }
        let after: HouseholdPin, change: HouseholdChange
        if carried.key != held.key {
            guard RootRotation.links(after: held.key, in: code.rotations) != nil else {
                // Another household. A machine this device saw revoked stays out whatever
                // the flags; a new household of a new machine, only after the fingerprints
                // were compared (--trust-new-issuer).
                if held.revokes(issuerKey) { throw revoked }
                guard trustNewIssuer else {
                    throw LommeError.refused(.householdForeign,
                        "this code is of another household (household key \(carried.fingerprint), not the pinned \(held.fingerprint)); do not use it, or if the family really made a new household, check both fingerprints with the parent and run again with --trust-new-issuer")
                }
                return (.replacing(old: pinned), carried, .replaced)
            }
            // The pinned household key vouched for this one, through every new kit since.
            after = held.following(key: carried.key, vouch: carried.vouch, formerIssuer: pinned, now: now)
            change = .rotated
        } else if carried.vouch.version > held.vouch.version {
            after = held.following(key: held.key, vouch: carried.vouch, formerIssuer: pinned, now: now)
            change = .newerVouch
        } else if carried.vouch.version == held.vouch.version && carried.vouch != held.vouch {
            throw LommeError.refused(.vouchConflict,
                "this code carries another vouch of the same version as the one pinned (household key \(held.fingerprint)); nothing changed — ask the parent for a new code")
        } else {
            // An equal or older vouch changes nothing.
            (after, change) = (held, .none)
        }
        // The issuer must be one the vouch the device holds from now on names.
        guard after.vouch.names(issuerKey) else { throw revoked }
        return (state, after, change)
    }

    /// Refuses a code older than the config stored now (docs/CODES.md, "Checks on import",
    /// step 11): of the same issuer, one issued at or before its last code (a replay, a roll
    /// back); of any issuer, one carrying an older revision than the stored config's; of
    /// another issuer when either code carries no revision, one issued at or before the
    /// stored config (a household of one machine, as ever). Two parents' machines' clocks
    /// minutes apart thus never refuse a fresh code of the newest revision. Nothing is
    /// refused when the code's household statements revoke the stored config's issuer.
    static func checkOrder(_ envelope: Envelope, _ content: SealedContent, identity: DeviceIdentity, revokesStored: Bool) throws(LommeError) {
        guard let last = identity.lastEnvelope, !revokesStored else { return }
        let issuer = content.issuerKey
        let stamp = { (ms: Int64) in Instant(milliseconds: ms).shown }
        if let revision = content.extensions.revision, let stored = last.revision, revision < stored {
            throw LommeError.refused(.olderRevision,
                "this code carries revision \(revision) of the household's config, older than the config stored now (revision \(stored)); it was issued before the config changed — ask the parent for a new code")
        }
        let sameIssuer = last.issuer == issuer
        if let previous = identity.lastByIssuer[issuer.id.hex] ?? (sameIssuer ? last.issuedMs : nil),
           envelope.issuedMs <= previous {
            throw LommeError.refused(.rollback,
                "this code was issued \(stamp(envelope.issuedMs)), \(envelope.issuedMs < previous ? "before" : "at the same moment as") the last code this device took from its issuer (issued \(stamp(previous))); refusing to roll back — ask for a new code")
        }
        let byRevision = content.extensions.revision != nil && last.revision != nil
        if !sameIssuer && !byRevision && envelope.issuedMs <= last.issuedMs {
            // Strictly newer only: `issue` gives each code of an issuer a later millisecond
            // than the last, so an equal time is an older code of another issuer, or a replay.
            throw LommeError.refused(.rollback,
                "this code was issued \(stamp(envelope.issuedMs)), \(envelope.issuedMs < last.issuedMs ? "before" : "at the same moment as") the config stored now (issued \(stamp(last.issuedMs))); refusing to roll back — ask for a new code")
        }
    }

    /// True when `change` brought a vouch that no longer names `storedIssuer`, the issuer
    /// of the config stored now.
    static func revokes(_ storedIssuer: IssuerKey?, _ change: HouseholdChange, _ after: HouseholdPin?) -> Bool {
        guard change == .newerVouch || change == .rotated, let storedIssuer, let after else { return false }
        return !after.vouch.names(storedIssuer)
    }

    /// Records the pinned issuer, the household key and vouch, and this envelope in the
    /// device section.
    package func record(in identity: inout DeviceIdentity, now: Instant) {
        if issuer != .pinned {
            identity.pinnedIssuer = content.issuerKey
            identity.pinnedSince = now
        }
        identity.household = household
        identity.lastEnvelope = DeviceIdentity.ImportedCode(id: envelope.id, issuedMs: envelope.issuedMs, issuer: content.issuerKey,
                                                            credential: content.extensions.credential, revision: content.extensions.revision)
        identity.lastByIssuer[content.issuerKey.id.hex] = envelope.issuedMs
        // The household's parents are few (at most 8 a vouch names): keep the newest entries.
        while identity.lastByIssuer.count > 16, let oldest = identity.lastByIssuer.min(by: { $0.value < $1.value }) {
            identity.lastByIssuer[oldest.key] = nil
        }
    }

    /// Lines for the person importing: who issued it and until when it is valid.
    package func summaryLines(now: Int64) -> [String] {
        // The issuer's name travels in the code (tag 7): the parent's machine, as the
        // household names it; text from the code, escaped where it is shown.
        let print = content.issuerFingerprint + (content.extensions.issuerName.map { " (\($0)'s machine)" } ?? "")
        var lines = ["Sealed to this device; issued \(Instant(seconds: envelope.issued).shown), \(envelope.expiry(now: now))."]
        switch issuer {
        case .firstUse:
            lines.append("Issuer \(print): first sealed code on this device; it will be pinned, and later codes must come from the same issuer. Compare it with the issuer fingerprint on the parent's machine: `lomme-vault issue` printed it under the code, and `lomme-vault key --issuer` prints it there any time.")
        case .expected:
            lines.append("Issuer \(print) (as --expect-issuer said); it will be pinned.")
        case .pinned:
            lines.append("Issuer \(print) (pinned).")
        case .replacing(let old):
            lines.append("Issuer \(print) REPLACES the pinned issuer \(old.fingerprint) (--trust-new-issuer).")
        case .vouched(let old) where household?.vouch.names(old) == true:
            lines.append("Issuer \(print): another parent's machine of this household; the household's recovery kit vouches for it (household \(household?.fingerprint ?? "?")), so it is taken without a question.")
        case .vouched(let old):
            let when = household.map { " on \($0.vouch.signed.shown)" } ?? ""
            let gone = household?.vouch.names(old) == false ? ", which this device no longer trusts" : ""
            lines.append("Issuer \(print): the parent's new machine; the household's recovery kit vouches for it\(when) (household \(household?.fingerprint ?? "?")), so it is taken without a question. It takes the place of the machine \(old.fingerprint)\(gone).")
        }
        switch householdChange {
        case .none, .replaced: break
        case .learned:
            lines.append("Household key \(household!.fingerprint): pinned with the issuer. A new laptop of the parent's, restored from the household's recovery kit, is then taken without a question.")
        case .newerVouch:
            lines.append("Household \(household!.fingerprint): the parents changed which of their machines it trusts (with the recovery kit, on \(household!.vouch.signed.shown)); this device follows: codes from a machine no longer on the list are refused from now on.")
        case .rotated:
            lines.append("Household key \(household!.fingerprint): a new key, which the pinned one vouched for (a new recovery kit); pinned.")
        }
        return lines
    }

    /// The question asked on a terminal before storing.
    package var question: String {
        issuer == .firstUse ? "Is \(content.issuerFingerprint) the issuer fingerprint the parent's machine shows (under the code, or with `lomme-vault key --issuer`)? Store it and pin it?" : "Store it?"
    }
}
