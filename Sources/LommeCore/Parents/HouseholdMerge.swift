/// How one parent's machine takes what another says of the household (docs/SYNC.md,
/// "Merging"): the same facts give every machine the same household, in any order, and no
/// wall clock decides anything.
///
/// - The household key: the same one, or one the held key rotated to (a new kit made on
///   another machine: the chain is followed, as a child's device does); the newer vouch.
/// - The config: the highest revision wins; one revision made two ways is a conflict — of
///   those, the made-by id lowest is stored, the others kept in `conflict`, and issuing
///   refuses until `set` makes a higher revision.
/// - A child, a parent's entry: per name (any case) or per machine, the change of the
///   higher version, at an equal one of the higher made-by id; a removal is a change too.
/// - The record: the union by code id; a record is its issuing machine's, which alone
///   changes it (handed out, confirmed). Records sort by issue time, then id.
extension VaultContents {
    /// What `merge` changed, for `sync` to say.
    package struct MergeReport: Sendable, Equatable {
        /// The stored config was replaced by a higher revision.
        package var revision: UInt64?
        /// A revision made two ways is (still) in conflict.
        package var conflict = false
        /// A newer vouch, or a new household key, was taken.
        package var vouch = false
        package var children = 0
        package var parents = 0
        package var records = 0
        /// The household key moved on (a new recovery kit, made on another machine), and this
        /// vault's recovery slot, which opened with the kit it replaces, was removed with it.
        package var kitSlotRemoved = false

        package init() {}

        package var changedAnything: Bool { revision != nil || vouch || children > 0 || parents > 0 || records > 0 || conflict }
    }

    /// Takes `facts` (said by the machine whose issuer key is `writer`, whose id is
    /// `writerID`) into this vault; `me` is this machine's issuer id, which entries made
    /// here (no `by`) stand for. The caller checked that `facts` is of this household and
    /// that the writer may speak for it.
    package mutating func merge(_ facts: HouseholdFacts, writer: IssuerKey, me: IssuerID, now: Instant) -> MergeReport {
        var report = MergeReport()
        report.vouch = household.mergeRoot(facts)
        for fact in facts.configs { mergeConfig(fact, writer: writer, me: me, now: now, into: &report) }
        report.conflict = !household.conflict.isEmpty
        report.children = household.mergeChildren(facts.children.map { .present($0) } + facts.gone.map { .removed($0) }, me: me)
        for parent in facts.parents where household.mergeParent(parent) { report.parents += 1 }
        if report.children > 0 || report.parents > 0 { household.sortMerged() }
        report.records = household.mergeRecords(facts.issued, me: me)
        return report
    }

    /// The config of `fact` against the stored one (see above).
    mutating func mergeConfig(_ fact: ConfigFact, writer: IssuerKey, me: IssuerID, now: Instant, into report: inout MergeReport) {
        guard let stored = config, let revision = household.revision else {
            adopt(fact, writer: writer, now: now)
            report.revision = fact.revision
            return
        }
        if fact.revision > revision {
            adopt(fact, writer: writer, now: now)
            report.revision = fact.revision
            return
        }
        guard fact.revision == revision else { return }
        let current = ConfigFact(revision: revision, config: stored, secretSet: household.secretSet, by: household.configBy ?? me)
        if fact.sameConfig(as: current) {
            // The same revision made the same way on two machines: no conflict, and its maker
            // is the one of the lower id, as of a conflict, whichever came first.
            if fact.by < current.by {
                household.configBy = fact.by
                household.secretSet = fact.secretSet ?? household.secretSet
            }
            return
        }
        if household.conflict.contains(where: { $0.sameConfig(as: fact) && $0.by == fact.by }) { return }
        // The same revision made two ways: the one of the lowest made-by id is stored, the
        // others wait in `conflict` until a `set` makes a higher revision.
        if fact.by < current.by {
            household.conflict.removeAll { $0.by == fact.by }
            household.conflict.append(current)
            adopt(fact, writer: writer, now: now, keepConflict: true)
            report.revision = fact.revision
        } else {
            household.conflict.removeAll { $0.by == fact.by }
            household.conflict.append(fact)
        }
        household.conflict.sort { $0.by < $1.by }
    }

    /// Stores `fact`'s config as another parent's machine made it.
    mutating func adopt(_ fact: ConfigFact, writer: IssuerKey, now: Instant, keepConflict: Bool = false) {
        let secretSet = fact.secretSet
        store(fact.config, source: .parent(issuer: writer), now: now)
        household.secretSet = secretSet ?? household.secretSet
        household.revision = fact.revision
        household.configBy = fact.by
        if !keepConflict { household.conflict = [] }
    }
}

extension Household {
    /// A child's change or removal, as `merge` weighs it.
    enum ChildChange {
        case present(Child)
        case removed(ChildTombstone)

        var name: String {
            switch self {
            case .present(let child): child.name
            case .removed(let tombstone): tombstone.name
            }
        }

        func order(me: IssuerID) -> (UInt64, IssuerID) {
            switch self {
            case .present(let child): (child.version, child.by ?? me)
            case .removed(let tombstone): (tombstone.version, tombstone.by)
            }
        }
    }

    /// The highest version this household knows for the child called `name` (any case),
    /// present or removed: a change made here takes this + 1.
    package func childVersion(_ name: String) -> UInt64 {
        let present = children.filter { $0.matches(name) }.map(\.version).max() ?? 0
        let removed = gone.filter { $0.name.lowercased() == name.lowercased() }.map(\.version).max() ?? 0
        return Swift.max(present, removed)
    }

    /// Takes each of `changes` that is later than what is held for its name (any case), in
    /// one pass over what is held (a household of a thousand children takes another
    /// machine's journal in one pass too); returns how many were taken.
    mutating func mergeChildren(_ changes: [ChildChange], me: IssuerID) -> Int {
        var held: [String: ChildChange] = [:]
        for child in children { held[child.name.lowercased()] = .present(child) }
        for tombstone in gone where held[tombstone.name.lowercased()] == nil { held[tombstone.name.lowercased()] = .removed(tombstone) }
        var taken = 0
        for change in changes {
            let name = change.name.lowercased()
            if let current = held[name], !Versioned.later(change.order(me: me), than: current.order(me: me)) { continue }
            held[name] = change
            taken += 1
        }
        guard taken > 0 else { return 0 }
        children = held.values.compactMap { if case .present(let child) = $0 { child } else { nil } }
        gone = held.values.compactMap { if case .removed(let tombstone) = $0 { tombstone } else { nil } }
        return taken
    }

    /// One order of the children, the removed children and the parents, whatever order
    /// their changes were taken in: by when each was added, then by name (any case) or
    /// machine id — so the same changes give every machine the same household.
    mutating func sortMerged() {
        children.sort { ($0.added, $0.name.lowercased()) < ($1.added, $1.name.lowercased()) }
        gone.sort { $0.name.lowercased() < $1.name.lowercased() }
        parents.sort { $0.added != $1.added ? $0.added < $1.added : $0.id < $1.id }
    }

    /// Takes a parent's entry when it is later than the one held for that machine. A
    /// machine's receiving key never changes once held: an entry that says otherwise (a
    /// co-parent's machine that would have the others seal their journals to a key of its
    /// choosing) keeps the held key.
    mutating func mergeParent(_ parent: Parent) -> Bool {
        if let index = parents.firstIndex(where: { $0.key.issuer == parent.key.issuer }) {
            guard parent.supersedes(parents[index]) else { return false }
            var taken = parent
            taken.key = parents[index].key
            parents[index] = taken
        } else {
            parents.append(parent)
        }
        return true
    }

    /// Takes the household key's newer vouch, or a new household key the held one rotated
    /// to; true when either was taken.
    mutating func mergeRoot(_ facts: HouseholdFacts) -> Bool {
        guard var held = root else { return false }
        if facts.household != held.publicKey {
            guard RootRotation.links(after: held.publicKey, in: facts.rotations) != nil else { return false }
            held.publicKey = facts.household
            held.vouch = facts.vouch
            held.rotations = facts.rotations
        } else if facts.vouch.version > held.vouch.version {
            held.vouch = facts.vouch
        } else {
            return false
        }
        root = held
        return true
    }

    /// The order of the record: by the config's revision a code carried, then its issue
    /// time, then its id — so a child's last code is the one of the newest config, whatever
    /// two machines' clocks said.
    package static func recordOrder(_ a: IssueRecord, _ b: IssueRecord) -> Bool {
        (a.revision ?? 0, a.issued, a.id) < (b.revision ?? 0, b.issued, b.id)
    }

    /// Takes each record its issuing machine sent: a new one, or a newer state of one held
    /// (handed out, confirmed: never taken back, so an older copy of a record changes
    /// nothing). Returns how many changed.
    mutating func mergeRecords(_ records: [IssueRecord], me: IssuerID) -> Int {
        var changed = 0
        var positions: [String: Int] = [:]
        for (index, record) in issued.enumerated() { positions[record.id] = index }
        for record in records {
            if let index = positions[record.id] {
                guard (issued[index].by ?? me) == record.by else { continue }
                var merged = issued[index]
                if !merged.handedOut.isHandedOut, record.handedOut.isHandedOut { merged.handedOut = record.handedOut }
                if let confirmed = record.confirmed, merged.confirmed.map({ confirmed > $0 }) ?? true { merged.confirmed = confirmed }
                guard merged != issued[index] else { continue }
                issued[index] = merged
            } else {
                positions[record.id] = issued.count
                issued.append(record)
            }
            changed += 1
        }
        if changed > 0 { issued.sort(by: Household.recordOrder) }
        return changed
    }
}
