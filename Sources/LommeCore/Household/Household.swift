/// The parent's side of a vault: the children it issues codes to, the record of every
/// sealed code it issued, and what it needs to tell whether a child's last code carries
/// the current credential. Kept in the vault's contents as `"household"` (docs/FORMAT.md):
///
///     "household": {"credentialKey": HEX, "secretSet": TIME,
///                   "children": [CHILD, …], "issued": [RECORD, …]}
///
/// Members this version does not know are kept as they are, here and in each child and
/// record. A vault without children or records has no `household` (a child's vault).
package struct Household: Sendable, Equatable {
    /// The key of the credential fingerprints (32 random bytes, made on first use): a keyed
    /// hash, so the record says whether two codes carried the same secret without being a
    /// way to test guesses of it.
    package var credentialKey: SecureBytes?
    /// When the stored config's clientSecret was set (import or `set`).
    package var secretSet: Instant?
    package var children: [Child] = []
    package var issued: [IssueRecord] = []
    /// The household key's public half and what it signed (a parent with a recovery kit).
    package var root: HouseholdRoot?
    // Two parents (docs/SYNC.md): the household's machines, the config's revision, what
    // was changed two ways, removed children, the sync folder.
    /// Every parent's machine of the household, this one too, once there are two.
    package var parents: [Parent] = []
    /// The stored config's revision (nil: none was counted yet; a code then carries none).
    package var revision: UInt64?
    /// The machine that made the stored config's revision; nil: this one.
    package var configBy: IssuerID?
    /// Other configs of the same revision as the stored one, made on other machines
    /// between syncs: issuing refuses until `set` makes a newer revision.
    package var conflict: [ConfigFact] = []
    /// Children removed, so the removal reaches every machine.
    package var gone: [ChildTombstone] = []
    package var sync: SyncState?
    /// Made by `init --parent --join`: waiting for the household to be handed over.
    package var joining = false
    package var unknown: [JSON.Member] = []

    static let key = "household"
    static let known: Set<String> = ["credentialKey", "secretSet", "children", "issued", "root",
                                     "parents", "revision", "configBy", "conflict", "gone", "sync", "joining"]

    package init() {}

    package var isEmpty: Bool {
        credentialKey == nil && secretSet == nil && children.isEmpty && issued.isEmpty && root == nil && unknown.isEmpty
            && parents.isEmpty && revision == nil && conflict.isEmpty && gone.isEmpty && sync == nil && !joining
    }

    package init(json: JSON) throws(LommeError) {
        func damaged(_ what: String) -> LommeError {
            LommeError(.damaged, .vaultHouseholdDamaged, "the vault's household is not understood (\(what)); restore the .bak")
        }
        guard case .object(let members) = json else { throw damaged("not an object") }
        if let hex = json["credentialKey"] {
            guard let text = hex.stringValue, let key = SecretHex.decode(text, count: Household.credentialKeySize) else {
                throw damaged("credentialKey")
            }
            credentialKey = key
        }
        if let set = json["secretSet"] {
            guard let time = set.stringValue.flatMap(Instant.init(text:)) else { throw damaged("secretSet") }
            secretSet = time
        }
        if let list = json["children"] {
            guard case .array(let items) = list else { throw damaged("children") }
            for item in items {
                guard let child = Child(json: item) else { throw damaged("a child") }
                children.append(child)
            }
        }
        if let list = json["issued"] {
            guard case .array(let items) = list else { throw damaged("issued") }
            for item in items {
                guard let record = IssueRecord(json: item) else { throw damaged("an issue record") }
                issued.append(record)
            }
        }
        if let section = json["root"] {
            guard let parsed = HouseholdRoot(json: section) else { throw damaged("root") }
            root = parsed
        }
        func list<T>(_ key: String, _ make: (JSON) -> T?) throws(LommeError) -> [T] {
            guard let value = json[key] else { return [] }
            guard case .array(let items) = value else { throw damaged(key) }
            var parsed: [T] = []
            for item in items {
                guard let one = make(item) else { throw damaged(key) }
                parsed.append(one)
            }
            return parsed
        }
        parents = try list("parents", Parent.init(json:))
        conflict = try list("conflict", ConfigFact.init(json:))
        gone = try list("gone", ChildTombstone.init(json:))
        if let value = json["revision"] {
            guard let number = value.uint64Value else { throw damaged("revision") }
            revision = number
        }
        if let value = json["configBy"] {
            guard let id = value.stringValue.flatMap(IssuerID.init(hex:)) else { throw damaged("configBy") }
            configBy = id
        }
        if let value = json["sync"] {
            guard let parsed = SyncState(json: value) else { throw damaged("sync") }
            sync = parsed
        }
        joining = json["joining"] == .bool(true)
        unknown = members.filter { !Household.known.contains($0.key) }
    }

    package var json: JSON {
        var members: [JSON.Member] = []
        if let credentialKey { members.append(JSON.Member("credentialKey", .string(SecretHex.encode(credentialKey)))) }
        if let secretSet { members.append(JSON.Member("secretSet", .string(secretSet.text))) }
        members.append(JSON.Member("children", .array(children.map(\.json))))
        members.append(JSON.Member("issued", .array(issued.map(\.json))))
        if let root { members.append(JSON.Member("root", root.json)) }
        if !parents.isEmpty { members.append(JSON.Member("parents", .array(parents.map(\.json)))) }
        if let revision { members.append(JSON.Member("revision", .number(String(revision)))) }
        if let configBy { members.append(JSON.Member("configBy", .string(configBy.hex))) }
        if !conflict.isEmpty { members.append(JSON.Member("conflict", .array(conflict.map(\.json)))) }
        if !gone.isEmpty { members.append(JSON.Member("gone", .array(gone.map(\.json)))) }
        if let sync { members.append(JSON.Member("sync", sync.json)) }
        if joining { members.append(JSON.Member("joining", .bool(true))) }
        return .object(members + unknown)
    }

    static let credentialKeySize = 32

    package static func == (a: Household, b: Household) -> Bool {
        a.credentialKey?.bytes == b.credentialKey?.bytes && a.secretSet == b.secretSet && a.children == b.children
            && a.issued == b.issued && a.root == b.root && a.unknown == b.unknown && a.parents == b.parents
            && a.revision == b.revision && a.configBy == b.configBy && a.conflict == b.conflict && a.gone == b.gone
            && a.sync == b.sync && a.joining == b.joining
    }

    // MARK: - Children

    /// The child called `name` (compared without regard to case), if there is one.
    package func child(named name: String) -> Child? {
        children.first { $0.matches(name) }
    }

    /// The child whose receiving key is `key`, if there is one.
    package func child(with key: ReceivingKey) -> Child? {
        children.first { $0.receivingKey == key }
    }

    /// "anna, ola" or "none yet", for messages naming the children there are.
    package var childNames: String {
        children.isEmpty ? "there are none yet (`lomme-vault child add`)" : "the children are " + children.map(\.name).joined(separator: ", ")
    }

    /// The child called `name`, or exit 6 naming the ones there are.
    package func require(_ name: String) throws(LommeError) -> Child {
        guard let child = child(named: name) else {
            throw LommeError(.notFound, .noSuchChild, "there is no child called \(JSON.printable(name)); \(childNames)")
        }
        return child
    }

    // MARK: - The record

    /// The credential fingerprint of `config`'s clientId and clientSecret under this
    /// household's key, made now when there is none.
    package mutating func credentialFingerprint(of config: Config) -> String {
        if credentialKey == nil { credentialKey = SecureBytes.random(count: Household.credentialKeySize) }
        return Household.fingerprint(config, key: credentialKey!)
    }

    /// Domain-separated keyed BLAKE2b-128 of the id and secret, each length-prefixed.
    static func fingerprint(_ config: Config, key: SecureBytes) -> String {
        var input = Array("lomme-vault credential v1".utf8) + [0]
        for part in [config.clientId, config.clientSecret] {
            let bytes = Array(part.utf8)
            input += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init) + bytes
        }
        defer { SecureBytes.wipe(&input) }
        return Sodium.hex(Sodium.blake2b(input, length: 16, key: key))
    }

    /// The keyed hashes of what `config` carries besides its credential, under this
    /// household's key (made now when there is none).
    package mutating func carried(by config: Config) -> CarriedFields {
        if credentialKey == nil { credentialKey = SecureBytes.random(count: Household.credentialKeySize) }
        return CarriedFields(config, key: credentialKey!)
    }

    /// Adds a record. Records of expired codes are dropped then, but for the last code
    /// recorded and the last one handed out to each key: every child's last code is kept
    /// however many there are.
    package mutating func record(_ entry: IssueRecord, now: Int64) {
        issued.append(entry)
        prune(now: now)
    }

    /// Drops the records of expired codes, but for each key's last code recorded and last
    /// one handed out (`record`, and `sync` after it took another machine's records).
    package mutating func prune(now: Int64) {
        let index = RecordIndex(issued)
        var position = 0
        issued.removeAll { record in
            defer { position += 1 }
            guard record.expires < now, let last = index.last[record.recipient] else { return false }
            return position != last.recorded && position != last.handedOut
        }
    }

    /// The record of the code with this id (hex), and where it is.
    package func record(id: String) -> (index: Int, record: IssueRecord)? {
        guard let index = issued.lastIndex(where: { $0.id == id }) else { return nil }
        return (index, issued[index])
    }

    /// Marks the code with this id handed out (its file written and synced, or its
    /// drawing finished). False when the record has no such code.
    @discardableResult
    package mutating func markHandedOut(id: String, at time: Int64) -> Bool {
        guard let (index, record) = record(id: id) else { return false }
        if !record.handedOut.isHandedOut { issued[index].handedOut = .at(time) }
        return true
    }

    /// Where each key's last code and last handed-out code are in `issued`: one pass, so a
    /// household of a thousand children is listed in one pass too.
    package struct RecordIndex: Sendable {
        package var last: [String: (recorded: Int, handedOut: Int?)] = [:]

        package init(_ records: [IssueRecord]) {
            for (position, record) in records.enumerated() {
                let handedOut = record.handedOut.isHandedOut ? position : last[record.recipient]?.handedOut
                last[record.recipient] = (position, handedOut)
            }
        }
    }

    /// Where `child` stands: their last handed-out code, a newer one recorded but not
    /// handed out, whether the last handed-out one carries everything `config` (the stored
    /// config) now gives them, and if not, why.
    package func state(of child: Child, config: Config?, index: RecordIndex? = nil) -> ChildState {
        let index = index ?? RecordIndex(issued)
        let positions = index.last[child.receivingKey.fingerprint]
        let handedOut = positions?.handedOut.map { issued[$0] }
        let last = positions.map { issued[$0.recorded] }
        let pending = last.flatMap { $0.handedOut.isHandedOut ? nil : $0 }
        var state = ChildState(lastHandedOut: handedOut, pending: pending, reasons: [])
        guard let config else {
            state.reasons = [.noConfig]
            return state
        }
        guard let handedOut else {
            if last != nil {
                state.reasons = [.neverHandedOut]
            } else {
                let earlier = issued.contains { $0.child.map(child.matches) ?? false }
                state.reasons = [earlier ? .newDevice : .noCodeYet]
            }
            return state
        }
        let now = child.config(from: config)
        if let key = credentialKey, handedOut.credential != Household.fingerprint(now, key: key) {
            state.reasons.append(.secretRenewed)
        }
        guard let carried = handedOut.carried, let key = credentialKey else {
            if state.reasons.isEmpty { state.reasons = [.carriedNotRecorded] }
            return state
        }
        state.reasons += CarriedFields(now, key: key).changed(since: carried).map(\.reason)
        return state
    }
}

extension VaultContents {
    /// True when this vault issues codes to children (it has some, or issued to them).
    package var isParent: Bool { !household.children.isEmpty || !household.issued.isEmpty }

    /// The secret-expiry warning for whoever uses this vault now: a parent's wording when
    /// it has children, a child's otherwise.
    package func secretWarning(now: Int64) -> String? {
        SecretExpiry.warning(config, now: now, for: isParent ? .parent : .child)
    }
}
