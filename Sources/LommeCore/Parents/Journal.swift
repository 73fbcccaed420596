/// One parent's machine's journal: what that machine changed of the household, the newest
/// of each (docs/SYNC.md, "The journal"). It carries only the machine's own changes — its
/// config revision, the children it added, changed or removed last, the parents' entries
/// it wrote, the records of the codes it issued (with their receipts) — and the newest
/// vouch it knows; so every change is signed by the machine that made it, and a change
/// superseded by a later one of the same machine drops out (the journal is compacted
/// each time it is written). The body of a household file of kind `journal`:
///
///     {"format": 1, "sequence": 12, "written": TIME, "household": HEX, "vouch": HEX,
///      "rotations": [HEX, …], "configs": [{"revision": 7, "config": {…}, "secretSet": TIME}],
///      "children": [CHILD, …], "gone": [{"name": "ola", "version": 5}, …],
///      "parents": [PARENT, …], "issued": [RECORD, …]}
///
/// Its entries carry no `by`: the writer made them all (a parent's entry names it).
package struct Journal: Sendable, Equatable {
    /// Each journal a machine writes takes the next sequence: an older copy of the file is a
    /// roll back, refused.
    package var sequence: UInt64
    /// When it was written, by the writer's clock: "last heard from", never an order.
    package var written: Instant
    package var facts: HouseholdFacts

    static let format: UInt64 = 1

    package init(sequence: UInt64, written: Instant, facts: HouseholdFacts) {
        self.sequence = sequence
        self.written = written
        self.facts = facts
    }

    /// The journal of the machine whose issuer id is `me`: its own entries.
    package init(of contents: VaultContents, me: IssuerID, sequence: UInt64, now: Instant) throws(LommeError) {
        self.init(sequence: sequence, written: now, facts: try HouseholdFacts(of: contents, me: me, onlyMine: true))
    }

    package var json: JSON {
        .object([JSON.Member("format", .number(String(Journal.format))), JSON.Member("sequence", .number(String(sequence))),
                 JSON.Member("written", .string(written.text))] + facts.members(stamped: false))
    }

    /// Reads a journal's body written by the machine whose issuer id is `writer`; every
    /// entry is the writer's. Exit 7 when it is not a journal this version reads.
    package init(json: JSON, writer: IssuerID) throws(LommeError) {
        guard json["format"]?.uint64Value == Journal.format, let sequence = json["sequence"]?.uint64Value,
              let written = json["written"]?.stringValue.flatMap(Instant.init(text:)) else {
            throw LommeError.refused(.householdFileDamaged, "its journal is not understood (format, sequence or time)")
        }
        self.init(sequence: sequence, written: written, facts: try HouseholdFacts(json: json, writer: writer))
    }
}

/// The household handed over to a new parent's machine (`parent add`): everything the
/// adding machine holds of it — the config and its revision, the children, the record,
/// the parents, the household key, its vouch and chain, and the key of the record's
/// credential fingerprints — each entry with the machine that made it. The body of a
/// household file of kind `hand-over`, sealed to the new machine alone:
///
///     {"format": 1, "to": HEX, "written": TIME, "made": TIME, "credentialKey": HEX,
///      "household": HEX, "vouch": HEX, "rotations": […], "configs": […],
///      "children": […], "gone": […], "parents": […], "issued": […]}
package struct HandOver: Sendable {
    /// The new machine's issuer key: a hand-over is for that machine only.
    package var to: IssuerKey
    package var written: Instant
    /// When the household key was first made here (the kit's day).
    package var made: Instant
    package var facts: HouseholdFacts
    package var credentialKey: SecureBytes?

    static let format: UInt64 = 1

    /// Everything `contents` holds of the household, for the machine of `to`.
    package init(of contents: VaultContents, me: IssuerID, to: IssuerKey, now: Instant) throws(LommeError) {
        self.to = to
        written = now
        made = contents.household.root?.made ?? now
        facts = try HouseholdFacts(of: contents, me: me, onlyMine: false)
        credentialKey = contents.household.credentialKey
    }

    package var json: JSON {
        var members = [JSON.Member("format", .number(String(HandOver.format))), JSON.Member("to", .string(to.hex)),
                       JSON.Member("written", .string(written.text)), JSON.Member("made", .string(made.text))]
        if let credentialKey { members.append(JSON.Member("credentialKey", .string(SecretHex.encode(credentialKey)))) }
        return .object(members + facts.members(stamped: true))
    }

    package init(json: JSON) throws(LommeError) {
        guard json["format"]?.uint64Value == HandOver.format,
              let to = json["to"]?.stringValue.flatMap(IssuerKey.init(hex:)),
              let written = json["written"]?.stringValue.flatMap(Instant.init(text:)),
              let made = json["made"]?.stringValue.flatMap(Instant.init(text:)) else {
            throw LommeError.refused(.householdFileDamaged, "its household is not understood (format, recipient or times)")
        }
        self.to = to
        self.written = written
        self.made = made
        if let value = json["credentialKey"] {
            guard let key = value.stringValue.flatMap({ SecretHex.decode($0, count: Household.credentialKeySize) }) else {
                throw LommeError.refused(.householdFileDamaged, "its household is not understood (credentialKey)")
            }
            credentialKey = key
        }
        facts = try HouseholdFacts(json: json, writer: nil)
    }
}

extension HouseholdFacts {
    /// What `contents` holds of the household: this machine's own entries (`onlyMine`, a
    /// journal), or all of them (a hand-over); an entry made here is stamped with `me`.
    package init(of contents: VaultContents, me: IssuerID, onlyMine: Bool) throws(LommeError) {
        let household = contents.household
        guard let root = household.root else {
            throw LommeError.failure(.householdNone, "this vault has no household key, so there is no household to share; a parent's machine gets one from the recovery kit (`lomme-vault init --parent`) or from another parent (`lomme-vault init --parent --join`)")
        }
        self.init(household: root.publicKey, vouch: root.vouch, rotations: root.rotations)
        let take = { (by: IssuerID?) in !onlyMine || by == nil || by == me }
        if let config = contents.config, let revision = household.revision, take(household.configBy) {
            configs.append(ConfigFact(revision: revision, config: config, secretSet: household.secretSet, by: household.configBy ?? me))
        }
        configs += household.conflict.filter { take($0.by) }
        children = household.children.filter { take($0.by) }.map { var child = $0; child.by = child.by ?? me; return child }
        gone = household.gone.filter { take($0.by) }
        parents = household.parents.filter { take($0.by) }
        issued = household.issued.filter { take($0.by) }.map { var record = $0; record.by = record.by ?? me; return record }
    }
}
