/// The stored config at one revision, and who made it: what a journal carries of the
/// config, and what a vault keeps of a revision made two ways (`conflict`):
///
///     {"revision": 7, "config": {…}, "secretSet": TIME, "by": HEX}
///
/// Every change of the shared config on any parent's machine takes the highest revision
/// it knows + 1 (docs/SYNC.md, "The revision"); codes carry it, and a child refuses a code
/// of an older revision than the config it holds.
package struct ConfigFact: Sendable, Equatable {
    package var revision: UInt64
    package var config: Config
    package var secretSet: Instant?
    /// The machine that made this revision.
    package var by: IssuerID

    package init(revision: UInt64, config: Config, secretSet: Instant?, by: IssuerID) {
        self.revision = revision
        self.config = config
        self.secretSet = secretSet
        self.by = by
    }

    init?(json: JSON) {
        guard let revision = json["revision"]?.uint64Value, let section = json["config"],
              let config = try? Config(json: section, checksums: false),
              let by = json["by"]?.stringValue.flatMap(IssuerID.init(hex:))
        else { return nil }
        self.init(revision: revision, config: config, secretSet: json["secretSet"]?.stringValue.flatMap(Instant.init(text:)), by: by)
    }

    var json: JSON {
        var members = [JSON.Member("revision", .number(String(revision))), JSON.Member("config", config.json)]
        if let secretSet { members.append(JSON.Member("secretSet", .string(secretSet.text))) }
        members.append(JSON.Member("by", .string(by.hex)))
        return .object(members)
    }

    /// True when the two are the same config (what a code would carry), whoever made it.
    func sameConfig(as other: ConfigFact) -> Bool { config.json.text == other.config.json.text }
}

/// A child removed, kept so that the removal reaches every machine and outranks an older
/// change of the child made elsewhere:
///
///     {"name": "ola", "version": 5, "by": HEX}
package struct ChildTombstone: Sendable, Equatable {
    package var name: String
    package var version: UInt64
    package var by: IssuerID

    package init(name: String, version: UInt64, by: IssuerID) {
        self.name = name
        self.version = version
        self.by = by
    }

    init?(json: JSON) {
        guard let name = json["name"]?.stringValue, Child.isValidName(name), let version = json["version"]?.uint64Value,
              let by = json["by"]?.stringValue.flatMap(IssuerID.init(hex:)) else { return nil }
        self.init(name: name, version: version, by: by)
    }

    var json: JSON {
        .object([JSON.Member("name", .string(name)), JSON.Member("version", .number(String(version))),
                 JSON.Member("by", .string(by.hex))])
    }
}

/// What a parent's vault remembers of its sync folder and of the other machines:
///
///     "sync": {"folder": PATH, "sequence": 12,
///              "seen": {HEX: {"sequence": 9, "digest": HEX}, …}, "heard": {HEX: TIME, …}}
///
/// `sequence` is the last of this machine's own journals (each written journal takes the
/// next); `seen` the last sequence of each other machine's journal taken and a digest of
/// that file's body, so an older copy of a file (a roll back) or another file of the same
/// sequence is refused; `heard` when each machine last wrote a journal taken here (its own
/// clock's word, for `parent list` and `status`).
package struct SyncState: Sendable, Equatable {
    package var folder: String?
    package var sequence: UInt64 = 0
    package var seen: [String: Seen] = [:]
    package var heard: [String: Instant] = [:]
    /// What this machine's last journal said (a digest of its entries and recipients), and
    /// when it was written: an unchanged journal is written again only once a day, so a
    /// folder in git does not grow at every sync, and "last heard from" stays true.
    package var journal: String?
    package var written: Instant?
    /// The digest of that journal's file as this machine sealed it: a folder holding any
    /// other copy (an older one, or none: a sync killed after the vault was written and
    /// before the journal was) gets it again.
    package var file: String?

    /// The digest `seen` and `file` keep of a household file: BLAKE2b-128 of its bytes.
    package static func digest(of bytes: [UInt8]) -> String { Sodium.hex(Sodium.blake2b(bytes, length: 16)) }

    package struct Seen: Sendable, Equatable {
        package var sequence: UInt64
        package var digest: String

        package init(sequence: UInt64, digest: String) {
            self.sequence = sequence
            self.digest = digest
        }
    }

    package init() {}

    init?(json: JSON) {
        guard case .object = json else { return nil }
        folder = json["folder"]?.stringValue
        sequence = json["sequence"]?.uint64Value ?? 0
        journal = json["journal"]?.stringValue
        written = json["written"]?.stringValue.flatMap(Instant.init(text:))
        file = json["file"]?.stringValue
        if case .object(let members)? = json["seen"] {
            for member in members {
                guard let sequence = member.value["sequence"]?.uint64Value, let digest = member.value["digest"]?.stringValue else { return nil }
                seen[member.key] = Seen(sequence: sequence, digest: digest)
            }
        }
        if case .object(let members)? = json["heard"] {
            for member in members {
                guard let time = member.value.stringValue.flatMap(Instant.init(text:)) else { return nil }
                heard[member.key] = time
            }
        }
    }

    var json: JSON {
        var members: [JSON.Member] = []
        if let folder { members.append(JSON.Member("folder", .string(folder))) }
        members.append(JSON.Member("sequence", .number(String(sequence))))
        if let journal { members.append(JSON.Member("journal", .string(journal))) }
        if let written { members.append(JSON.Member("written", .string(written.text))) }
        if let file { members.append(JSON.Member("file", .string(file))) }
        members.append(JSON.Member("seen", .object(seen.keys.sorted().map { key in
            JSON.Member(key, .object([JSON.Member("sequence", .number(String(seen[key]!.sequence))),
                                      JSON.Member("digest", .string(seen[key]!.digest))]))
        })))
        members.append(JSON.Member("heard", .object(heard.keys.sorted().map { JSON.Member($0, .string(heard[$0]!.text)) })))
        return .object(members)
    }
}

/// What one parent's machine says of the household — a journal's entries, or a whole
/// household handed over — each entry with the machine that made it (`by`): the one shape
/// `merge` takes (docs/SYNC.md, "Merging").
package struct HouseholdFacts: Sendable, Equatable {
    /// The household key, its newest vouch the writer knows and the chain of rotations to it.
    package var household: HouseholdKey
    package var vouch: Vouch
    package var rotations: [RootRotation]
    /// The config revisions: the writer's own (a journal), or the stored one and those in
    /// conflict with it (a hand-over).
    package var configs: [ConfigFact] = []
    package var children: [Child] = []
    package var gone: [ChildTombstone] = []
    package var parents: [Parent] = []
    package var issued: [IssueRecord] = []

    package init(household: HouseholdKey, vouch: Vouch, rotations: [RootRotation]) {
        self.household = household
        self.vouch = vouch
        self.rotations = rotations
    }

    /// The members a journal and a hand-over share. With `stamped`, every entry carries its
    /// `by` (a hand-over); without, none does (a journal: the writer made them all).
    package func members(stamped: Bool) -> [JSON.Member] {
        let unstamp = { (member: JSON.Member) in stamped || member.key != "by" }
        func strip(_ json: JSON) -> JSON {
            guard case .object(let members) = json else { return json }
            return .object(members.filter(unstamp))
        }
        return [
            JSON.Member("household", .string(household.hex)),
            JSON.Member("vouch", .string(Sodium.hex(vouch.bytes))),
            JSON.Member("rotations", .array(rotations.map { .string(Sodium.hex($0.bytes)) })),
            JSON.Member("configs", .array(configs.map { strip($0.json) })),
            JSON.Member("children", .array(children.map { strip($0.json) })),
            JSON.Member("gone", .array(gone.map { strip($0.json) })),
            JSON.Member("parents", .array(parents.map(\.json))),
            JSON.Member("issued", .array(issued.map { strip($0.json) })),
        ]
    }

    /// Reads the members: `writer` stamps every entry (a journal, whose entries carry no
    /// `by`; a parent's entry must name the writer), nil leaves each entry's own `by` (a
    /// hand-over, where each must carry one). Exit 7 for anything not understood.
    init(json: JSON, writer: IssuerID?) throws(LommeError) {
        func damaged(_ what: String) -> LommeError {
            LommeError.refused(.householdFileDamaged, "its household is not understood (\(what))")
        }
        guard let household = json["household"]?.stringValue.flatMap(HouseholdKey.init(hex:)),
              let vouch = json["vouch"]?.stringValue.flatMap(Sodium.unhex).flatMap(Vouch.init(bytes:)), vouch.isSigned(by: household)
        else { throw damaged("household key or vouch") }
        self.init(household: household, vouch: vouch, rotations: [])
        func items(_ key: String) throws(LommeError) -> [JSON] {
            guard case .array(let list)? = json[key] else { throw damaged(key) }
            return list
        }
        func stamp(_ item: JSON) throws(LommeError) -> JSON {
            guard let writer else { return item }
            guard case .object(let members) = item, item["by"] == nil else { throw damaged("an entry") }
            return .object(members + [JSON.Member("by", .string(writer.hex))])
        }
        for item in try items("rotations") {
            guard let rotation = item.stringValue.flatMap(Sodium.unhex).flatMap(RootRotation.init(bytes:)) else { throw damaged("rotations") }
            rotations.append(rotation)
        }
        guard RootRotation.leads(rotations, to: household) else { throw damaged("rotations") }
        for item in try items("configs") {
            guard let fact = ConfigFact(json: try stamp(item)) else { throw damaged("a config") }
            configs.append(fact)
        }
        for item in try items("children") {
            guard let child = Child(json: try stamp(item)), child.by != nil else { throw damaged("a child") }
            children.append(child)
        }
        for item in try items("gone") {
            guard let tombstone = ChildTombstone(json: try stamp(item)) else { throw damaged("a removed child") }
            gone.append(tombstone)
        }
        for item in try items("parents") {
            guard let parent = Parent(json: item), writer == nil || parent.by == writer else { throw damaged("a parent") }
            parents.append(parent)
        }
        for item in try items("issued") {
            guard let record = IssueRecord(json: try stamp(item)), record.by != nil else { throw damaged("a record") }
            issued.append(record)
        }
    }
}

extension DeviceIdentity {
    /// The id a vouch, a journal and the household's entries name this machine by.
    package var issuerID: IssuerID { signing.publicKey.id }
}

extension Household {
    /// The parent's machine of this id, as the household names it.
    package func parent(id: IssuerID) -> Parent? { parents.first { $0.id == id } }

    /// "mor's machine", or the fingerprint-free "this machine" / "another parent's machine".
    package func machineName(_ id: IssuerID?, me: IssuerID?) -> String {
        guard let id, id != me else { return "this machine" }
        return parent(id: id).map { "\($0.name)'s machine" } ?? "another parent's machine"
    }

    /// What `issue`, `child list` and `status` say while a revision of the config was made
    /// two ways (nil when it was not).
    package func conflictMessage(me: IssuerID?) -> String? {
        guard !conflict.isEmpty, let revision else { return nil }
        let makers = ([configBy] + conflict.map(\.by)).map { machineName($0, me: me) }
        return "the household's config was changed two ways between syncs (revision \(revision), on \(makers.joined(separator: " and "))); decide which is right and set it on one machine (`lomme-vault set FIELD`), then sync the others, before codes are issued"
    }
}

extension Household {
    /// How long another parent's machine may go unheard from before `status` says so.
    package static let silenceDays: Int64 = 14

    /// The other parents' machines not heard from (no journal of theirs taken) for
    /// `silenceDays` or more, by the day of their last journal (or of their adding), and how
    /// many days.
    package func silentParents(now: Instant, me: IssuerID?) -> [(parent: Parent, days: Int64)] {
        parents.compactMap { parent -> (Parent, Int64)? in
            guard !parent.removed, parent.id != me else { return nil }
            let since = sync?.heard[parent.id.hex] ?? parent.added
            // Counted in whole days (UTC), from the day of its last journal.
            let days = now.seconds / 86_400 - since.seconds / 86_400
            return days >= Household.silenceDays ? (parent, days) : nil
        }
    }

    /// What `status` and `child list` say of the household's parents: the ones not heard
    /// from for a while, and a config made two ways.
    package func parentWarnings(now: Instant, me: IssuerID?) -> [String] {
        silentParents(now: now, me: me).map { entry in
            "\(entry.parent.name)'s machine has not been heard from for \(entry.days) days (no journal of it taken here: `lomme-vault sync`); if it is lost, remove it with the recovery kit (`lomme-vault parent remove \(entry.parent.name)`) and renew the secret at the bank"
        } + (conflictMessage(me: me).map { [$0] } ?? [])
    }
}
