import Glibc
import LommeCore

/// `child add | list | rekey | remove`: the parent's children, kept in its vault's
/// household. Adding or rekeying shows the receiving key's fingerprint to compare with the
/// child's screen and asks to confirm (unless `yes`); removing says what it does not undo.
package struct HouseholdService {
    package let context: VaultContext
    package let unlock: UnlockOptions

    package init(_ context: VaultContext, _ unlock: UnlockOptions) {
        self.context = context
        self.unlock = unlock
    }

    package struct Addition: Sendable {
        package var name: String
        package var key: ReceivingKey
        package var account: String
        /// `--field KEY=VALUE`, as typed.
        package var fields: [String] = []
        package var checksums = true
        package var yes = false
        package init(name: String, key: ReceivingKey, account: String) {
            self.name = name
            self.key = key
            self.account = account
        }
    }

    func open() throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); create the parent's with `lomme-vault init --parent`")
        }
        return try Session.open(context, unlock)
    }

    /// `--account`, checked by the mod-11 rule (`checksums`) as `child add` and `child set` take it.
    static func account(_ typed: String, checksums: Bool) throws(LommeError) -> String {
        let account = NorwegianNumbers.normalize(typed)
        do throws(LommeError) { try Config.check(accountNr: account, checksums: checksums) } catch {
            throw error.with(message: "--account: \(error.message)")
        }
        return account
    }

    /// `--field KEY=VALUE`, as `child add` and `child set` take it: the rules of `Child.field`,
    /// and a tokenUrl the rule of `set tokenUrl` (plain http:// to this machine only), exit 7 as there.
    static func field(_ text: String) throws(LommeError) -> JSON.Member {
        let field = try Child.field(text)
        if field.key == Config.Field.tokenUrl, let url = field.value.stringValue { do throws(LommeError) { _ = try TokenURL(url, source: "--field " + Config.Field.tokenUrl) } catch { throw error.with(code: .refused) } }
        return field
    }

    /// `child add`: checked, shown, confirmed, stored.
    package func add(_ request: Addition) throws(LommeError) -> Child {
        try Child.checkName(request.name)
        let account = try Self.account(request.account, checksums: request.checksums)
        var fields: [JSON.Member] = []
        for text in request.fields {
            let field = try Self.field(text)
            fields.removeAll { $0.key == field.key }
            fields.append(field)
        }
        let opened = try open()
        try checkNew(request.name, request.key, in: opened.contents)
        var child = Child(name: request.name, receivingKey: request.key, accountNr: account, fields: fields, added: .now())
        try confirm(["Child \(child.name):"] + Self.lines(child), question: "Is \(request.key.fingerprint) the fingerprint \(child.name)'s device shows (`lomme-vault key`)? Add \(child.name)?",
                    yes: request.yes, declined: "not added; nothing changed")
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            try checkNew(request.name, request.key, in: contents)  // again, under the write lock
            child.version = contents.household.childVersion(child.name) + 1
            contents.household.gone.removeAll { $0.name.lowercased() == child.name.lowercased() }
            contents.household.children.append(child)
        }
        return child
    }

    func checkNew(_ name: String, _ key: ReceivingKey, in contents: VaultContents) throws(LommeError) {
        if let same = contents.household.child(named: name) {
            throw LommeError.failure(.childNameTaken, "there is already a child called \(same.name); give another name, or run `lomme-vault child rekey \(same.name)` if their device is new")
        }
        if let owner = contents.household.child(with: key) {
            throw LommeError.failure(.childKeyTaken, "that receiving key (\(key.fingerprint)) is \(owner.name)'s already; each child's device has its own (`lomme-vault key` on it)")
        }
        try checkNotOwn(key, in: contents, device: "the child's device")
    }

    /// A child's key may not be this machine's own receiving key.
    func checkNotOwn(_ key: ReceivingKey, in contents: VaultContents, device: String) throws(LommeError) {
        if let own = contents.identity, own.receiving.publicKey == key {
            throw LommeError.failure(.childKeyOwn, "that receiving key (\(key.fingerprint)) is this machine's own; run `lomme-vault key` on \(device) and use the key it shows")
        }
    }

    /// The lines that show a child (never a secret: the key's fingerprint, the account, the fields).
    static func lines(_ child: Child) -> [String] {
        ["  receiving key  \(child.receivingKey.fingerprint)",
         "  accountNr      \(NorwegianNumbers.formatAccountNumber(child.accountNr))"]
            + child.fields.map { field in
                let key = JSON.printable(field.key)
                return "  " + key + String(repeating: " ", count: max(2, 15 - key.count)) + Config.shown(field)
            }
    }

    func confirm(_ shown: [String], question: String, yes: Bool, declined: String) throws(LommeError) {
        let interaction = context.interaction
        shown.forEach(interaction.notice)
        guard !yes else { return }
        guard !unlock.noPrompt, interaction.canAsk else {
            throw LommeError.failure(.noTerminalToConfirm, "no terminal to confirm on; compare the fingerprint with the child's device, then add --yes")
        }
        guard try interaction.confirm(question) else { throw LommeError.failure(.declined, declined) }
    }

    /// One child as `child list` shows it.
    package struct Listed: Sendable {
        package var child: Child
        package var state: ChildState
        /// The parent's machine that issued the last handed-out code (several parents).
        package var issuedBy: String? = nil

        package var json: JSON {
            let last = state.lastHandedOut
            func time(_ seconds: Int64?) -> JSON { seconds.map { .string(Instant(seconds: $0).text) } ?? .null }
            return .object([
                JSON.Member("name", .string(child.name)),
                JSON.Member("receivingKey", .string(child.receivingKey.fingerprint)),
                JSON.Member(Config.Field.accountNr, .string(child.accountNr)),
                JSON.Member("fields", .object(child.fields.map { JSON.Member($0.key, .string(Config.shown($0))) })),
                JSON.Member("lastIssued", time(last?.issued)),
                JSON.Member("expires", time(last?.expires)),
                JSON.Member("current", .bool(state.current)),
                JSON.Member("notCurrent", .array(state.reasons.map { .string($0.token) })),
                JSON.Member("confirmed", .bool(state.confirmed)),
                JSON.Member("confirmedAt", time(last?.confirmed)),
                JSON.Member("pending", time(state.pending?.issued)),
                JSON.Member("issuedBy", issuedBy.map(JSON.string) ?? .null),
            ])
        }
    }

    package struct Listing: Sendable {
        package var children: [Listed]
        package var warning: String?
        /// A parent's machine not heard from for a while, a config made two ways.
        package var householdWarnings: [String] = []
        /// The household has several parents' machines: `issuedBy` says whose code.
        package var severalParents = false
        /// A child's device (`VaultContents.isChildsDevice`): the pinned issuer's fingerprint.
        package var childsDeviceOf: String? = nil
    }

    /// `child list`.
    package func list() throws(LommeError) -> Listing {
        let contents = try open().contents
        let household = contents.household
        let index = Household.RecordIndex(household.issued)
        let me = contents.identity?.issuerID
        let listed = household.children.map { child in
            let state = household.state(of: child, config: contents.config, index: index)
            return Listed(child: child, state: state,
                          issuedBy: household.parents.isEmpty ? nil : state.lastHandedOut.map { household.machineName($0.by, me: me) })
        }
        return Listing(children: listed, warning: SecretExpiry.warning(contents.config, now: Int64(time(nil)), for: .parent),
                       householdWarnings: household.parentWarnings(now: .now(), me: me), severalParents: !household.parents.isEmpty,
                       childsDeviceOf: contents.isChildsDevice ? contents.identity?.pinnedIssuer?.fingerprint : nil)
    }

    /// `child rekey`: the child has a new device. Their next code goes to the new key.
    /// False when the key is the child's already (nothing changed).
    package func rekey(_ name: String, to key: ReceivingKey, yes: Bool) throws(LommeError) -> (child: Child, changed: Bool) {
        let opened = try open()
        let child = try opened.contents.household.require(name)
        if child.receivingKey == key { return (child, false) }
        try checkRekey(child, to: key, in: opened.contents)
        try confirm(["Child \(child.name): receiving key \(child.receivingKey.fingerprint) → \(key.fingerprint)"],
                    question: "Is \(key.fingerprint) the fingerprint \(child.name)'s new device shows (`lomme-vault key`)? Replace the key?",
                    yes: yes, declined: "not replaced; \(child.name)'s receiving key stays \(child.receivingKey.fingerprint)")
        var updated = child
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard let index = contents.household.children.firstIndex(where: { $0.matches(name) }) else {
                throw LommeError(.notFound, .childRemovedMeanwhile, "\(child.name) was removed meanwhile; nothing changed")
            }
            // Again under the write lock: a `child add` meanwhile may have taken the key.
            guard contents.household.children[index].receivingKey == child.receivingKey else {
                throw LommeError.failure(.childChangedMeanwhile, "\(child.name)'s receiving key was changed meanwhile; nothing changed, run `lomme-vault child list` and try again")
            }
            try checkRekey(child, to: key, in: contents)
            contents.household.children[index].receivingKey = key
            contents.household.children[index].version = contents.household.childVersion(child.name) + 1
            contents.household.children[index].by = nil
            updated = contents.household.children[index]
        }
        return (updated, true)
    }

    /// `child set NAME`: what changes of a child's own account and fields.
    package struct Change: Sendable {
        package var account: String?
        /// `--field KEY=VALUE`, as typed: added, or replacing the child's field of that name.
        package var fields: [String] = []
        /// `--unset-field NAME`: a field of the child's to remove (in any case).
        package var unset: [String] = []
        package var checksums = true
        package init() {}
    }

    /// `child set`: a child's account number and fields changed, checked as `child add`
    /// checks them, and recorded as `child rekey` records a new key (the child's next
    /// version, made on this machine), so a household of several parents' machines carries
    /// it (docs/SYNC.md). False when nothing changes (nothing written).
    package func change(_ name: String, _ request: Change) throws(LommeError) -> (child: Child, changed: Bool) {
        let account = try request.account.map { (typed) throws(LommeError) in try Self.account(typed, checksums: request.checksums) }
        var set: [JSON.Member] = []
        for text in request.fields {
            let field = try Self.field(text)
            set.removeAll { $0.key == field.key }
            set.append(field)
        }
        for gone in request.unset where set.contains(where: { $0.key.lowercased() == gone.lowercased() }) {
            throw LommeError.usage(.childFieldMalformed, "--field sets \(JSON.printable(gone)) and --unset-field removes it; give one of them")
        }
        func changed(_ child: Child) throws(LommeError) -> Child {
            var child = child
            if let account { child.accountNr = account }
            for gone in request.unset {
                guard let index = child.fields.firstIndex(where: { $0.key == gone }) ?? child.fields.firstIndex(where: { $0.key.lowercased() == gone.lowercased() }) else {
                    let theirs = child.fields.isEmpty ? "they have none" : "theirs: " + child.fields.map { JSON.printable($0.key) }.joined(separator: ", ")
                    throw LommeError(.notFound, .fieldUnknown, "\(child.name) has no field \(JSON.printable(gone)) (\(theirs)); nothing changed")
                }
                child.fields.remove(at: index)
            }
            for field in set {
                if let index = child.fields.firstIndex(where: { $0.key == field.key }) {
                    child.fields[index] = field
                } else {
                    child.fields.append(field)
                }
            }
            return child
        }
        let opened = try open()
        let child = try opened.contents.household.require(name)
        guard try changed(child) != child else { return (child, false) }
        var updated = child
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard let index = contents.household.children.firstIndex(where: { $0.matches(name) }) else {
                throw LommeError(.notFound, .childRemovedMeanwhile, "\(child.name) was removed meanwhile; nothing changed")
            }
            // Again under the write lock, on the child as it is now.
            var now = try changed(contents.household.children[index])
            now.version = contents.household.childVersion(child.name) + 1
            now.by = nil
            contents.household.children[index] = now
            updated = now
        }
        return (updated, true)
    }

    func checkRekey(_ child: Child, to key: ReceivingKey, in contents: VaultContents) throws(LommeError) {
        if let owner = contents.household.child(with: key), !owner.matches(child.name) {
            throw LommeError.failure(.childKeyTaken, "that receiving key (\(key.fingerprint)) is \(owner.name)'s; each child's device has its own (`lomme-vault key` on it)")
        }
        try checkNotOwn(key, in: contents, device: "\(child.name)'s new device")
    }

    /// `child remove`: the child is forgotten (their records stay, by key fingerprint).
    /// Asked on a terminal unless `yes`; with no terminal to ask on (or `--no-prompt`) and
    /// no `yes`, nothing is removed (exit 1), the rule of every yes-or-no question.
    package func remove(_ name: String, yes: Bool) throws(LommeError) -> Child {
        let opened = try open()
        let child = try opened.contents.household.require(name)
        if !yes {
            guard !unlock.noPrompt, context.interaction.canAsk else {
                throw LommeError.failure(.noTerminalToConfirm, "no terminal to confirm on; nothing was removed: check that \(child.name) is the child to forget (`lomme-vault child list`), then run again with --yes")
            }
            guard try context.interaction.confirm("Remove \(child.name) (receiving key \(child.receivingKey.fingerprint))? Their device keeps the credential until the secret is renewed at the bank.") else {
                throw LommeError.failure(.declined, "not removed; nothing changed")
            }
        }
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard contents.household.child(named: name) != nil else {
                throw LommeError(.notFound, .childRemovedMeanwhile, "\(child.name) was removed meanwhile; nothing changed")
            }
            let version = contents.household.childVersion(name) + 1
            contents.household.children.removeAll { $0.matches(name) }
            // Several parents' machines: the removal is kept, so it reaches the others (docs/SYNC.md).
            if !contents.household.parents.isEmpty, let me = contents.identity?.issuerID {
                contents.household.gone.append(ChildTombstone(name: child.name, version: version, by: me))
            }
        }
        return child
    }
}
