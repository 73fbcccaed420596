import Glibc
import LommeCore

/// `parent add | list | remove`: the household's parents' machines (docs/SYNC.md). Adding
/// or removing one needs the recovery kit: the household key signs a new vouch (version +
/// 1) naming every parent's issuer but a removed one's. Adding hands the household over,
/// sealed to the new machine and signed by this one; without the kit nothing is vouched
/// and nothing is written.
package struct ParentService {
    package let context: VaultContext
    package let unlock: UnlockOptions

    package init(_ context: VaultContext, _ unlock: UnlockOptions) {
        self.context = context
        self.unlock = unlock
    }

    func open() throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); create the parent's with `lomme-vault init --parent`")
        }
        return try Session.open(context, unlock)
    }

    /// The household key's root of `contents`, or exit 6 saying where a household comes from.
    static func root(_ contents: VaultContents) throws(LommeError) -> HouseholdRoot {
        guard let root = contents.household.root else {
            if contents.household.joining {
                throw LommeError(.notFound, .notJoining, "this machine is waiting to be handed the household: on the other parent's machine run `lomme-vault parent add NAME --key KEY` with this machine's `lomme-vault key --parent`, then `lomme-vault import FILE` or `lomme-vault sync DIR` here")
            }
            throw LommeError(.notFound, .householdNone, "this vault has no household key (no recovery kit), so it has no household to share; make one with `lomme-vault recovery kit --output kit.pdf` first")
        }
        return root
    }

    package struct Addition: Sendable {
        package var name: String
        package var key: ParentKey
        /// This machine's name in the household, when it has none yet (the first `parent add`).
        package var ownName: String
        package var recovery: RecoveryKeySource
        package var yes = false
        /// The caller can hand the household over by itself (a file, a QR code on a
        /// terminal); else only a sync folder can, and without one nothing is done.
        package var byHand = true

        package init(name: String, key: ParentKey, ownName: String, recovery: RecoveryKeySource) {
            self.name = name
            self.key = key
            self.ownName = ownName
            self.recovery = recovery
        }
    }

    /// What `parent add` made: the new parent's entry, and the household handed over to it
    /// (a household file's bytes, sealed to it).
    package struct Added: Sendable {
        package var parent: Parent
        package var handOver: [UInt8]
        package var vouch: Vouch
        package var ownName: String
        /// The hand-over's path in the sync folder, when one is set.
        package var inFolder: String?
    }

    /// `parent add`: checked, the fingerprints shown and confirmed, the kit read, the new
    /// vouch signed and stored with the new parent's entry, the household handed over.
    package func add(_ request: Addition) throws(LommeError) -> Added {
        try Child.checkName(request.name, what: "a parent's name")
        let opened = try open()
        var root = try Self.root(opened.contents)
        guard let identity = opened.contents.identity else { throw LommeError.failure(.noDeviceKeys, "this vault has no device keys; run `lomme-vault key` once") }
        let me = identity.issuerID
        try checkNew(request, in: opened.contents, me: me)
        // The clock, before anything is asked (again when the vouch is signed).
        _ = try VouchClock.version(now: VaultContents.nowMilliseconds(), after: root.vouch.version, kit: nil, seen: opened.contents)
        guard request.byHand || opened.contents.household.sync?.folder != nil else {
            throw LommeError.failure(.handOverNowhere, "nowhere to hand the household over: give --output FILE, run it on a terminal (a QR code), or set a sync folder first (`lomme-vault sync DIR`); nothing changed")
        }
        let (receiving, issuer) = request.key.fingerprints
        if !request.yes {
            guard context.interaction.canAsk, !unlock.noPrompt else {
                throw LommeError.failure(.noTerminalToConfirm, "no terminal to compare the fingerprints on; compare them with the other parent's `lomme-vault key --parent`, then run again with --yes")
            }
            context.interaction.notice("Parent \(request.name)'s machine:\n  receiving key  \(receiving)\n  issuer         \(issuer)")
            guard try context.interaction.confirm("Are these the fingerprints `lomme-vault key --parent` shows on \(request.name)'s machine? Vouch for it with the recovery kit and hand it the household?") else {
                throw LommeError.failure(.declined, "not added; nothing changed")
            }
        }
        let key = try request.recovery.read(context.interaction, noPrompt: unlock.noPrompt)
        guard key.householdKey.publicKey == root.publicKey else {
            throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key is not this household's (household \(root.fingerprint)); give this household's kit; nothing changed")
        }
        let now = Instant.now()
        let planned = root
        var added: Parent?
        var ownName = request.ownName
        let written = try VaultActions.updated(opened) { (contents: inout VaultContents) throws(LommeError) in
            // Again under the write lock: the household key, its vouch and the parents are as read.
            guard contents.household.root == planned else {
                throw LommeError.failure(.householdChangedMeanwhile, "the household's vouch or key was changed meanwhile; nothing was written, run it again")
            }
            try checkNew(request, in: contents, me: me)
            var household = contents.household
            if let own = household.parent(id: me) {
                ownName = own.name
            } else {
                let ownKey = ParentKey(receiving: identity.receiving.publicKey, issuer: identity.signing.publicKey)
                household.parents.append(Parent(name: ownName, key: ownKey, added: now, version: 1, by: me))
            }
            let previous = household.parents.first { $0.key.issuer == request.key.issuer }
            let parent = Parent(name: request.name, key: request.key, added: now, version: (previous?.version ?? 0) + 1, by: me)
            household.parents.removeAll { $0.key.issuer == request.key.issuer }
            household.parents.append(parent)
            root.vouch = try Self.vouch(key, root: root, issuers: household.parents.filter { !$0.removed }.map(\.key.issuer), seen: contents)
            household.root = root
            if household.revision == nil, contents.config != nil { household.revision = 1 }
            if household.credentialKey == nil { household.credentialKey = SecureBytes.random(count: 32) }
            contents.household = household
            added = parent
        }
        guard let added else { throw LommeError.failure(.internalError, "the parent was not added; nothing changed") }
        let handOver = try HandOver(of: written.contents, me: me, to: request.key.issuer, now: now)
        let body = SecureBytes(copying: Array(handOver.json.text.utf8))
        let bytes = try HouseholdFile.seal(body, kind: .handOver, to: [request.key.receiving], writer: identity.signing)
        var inFolder: String?
        if let path = written.contents.household.sync?.folder {
            let name = SyncFolder.handOverName(from: identity.signing.publicKey, to: request.key.issuer)
            try SyncFolder(path).replace(name, with: bytes)
            inFolder = path + "/" + name
        }
        return Added(parent: added, handOver: bytes, vouch: root.vouch, ownName: ownName, inFolder: inFolder)
    }

    /// A new vouch of the household key naming `issuers`, a version newer than the held one,
    /// on a clock not behind what `seen` (the vault) has seen (`VouchClock`).
    static func vouch(_ key: RecoveryKey, root: HouseholdRoot, issuers: [IssuerKey], seen: VaultContents) throws(LommeError) -> Vouch {
        guard issuers.count <= Vouch.maximumIssuers else {
            throw LommeError.failure(.parentsTooMany, "a household has at most \(Vouch.maximumIssuers) parents' machines; remove one first (`lomme-vault parent remove NAME`)")
        }
        let version = try VouchClock.version(now: VaultContents.nowMilliseconds(), after: root.vouch.version, kit: nil, seen: seen)
        return try Vouch.make(key.householdKey, version: version, issuers: issuers.map(\.id))
    }

    func checkNew(_ request: Addition, in contents: VaultContents, me: IssuerID) throws(LommeError) {
        if request.key.issuer.id == me {
            throw LommeError.failure(.parentIsThisMachine, "that parent key is this machine's own; run `lomme-vault key --parent` on the other parent's machine and use the key it shows")
        }
        let parents = contents.household.parents.filter { !$0.removed }
        // The same machine under the same name again: vouched again and handed the household
        // again (a hand-over lost on the way).
        if let same = parents.first(where: { $0.name.lowercased() == request.name.lowercased() }), same.key != request.key {
            throw LommeError.failure(.parentNameTaken, "there is already a parent's machine called \(same.name) (`lomme-vault parent list`); give another name")
        }
        if let same = parents.first(where: { $0.key.issuer == request.key.issuer }), same.name.lowercased() != request.name.lowercased() {
            throw LommeError.failure(.parentKeyTaken, "that machine is in the household already, as \(same.name)")
        }
    }

    /// One parent's machine as `parent list` shows it.
    package struct Listed: Sendable {
        package var parent: Parent
        package var thisMachine: Bool
        /// When its last journal taken here was written (its clock); nil: never heard from.
        package var heard: Instant?
    }

    /// `parent list`: every parent's machine of the household, this one too.
    package func list() throws(LommeError) -> [Listed] {
        let contents = try open().contents
        _ = try Self.root(contents)
        let me = contents.identity?.issuerID
        return contents.household.parents.map { parent in
            Listed(parent: parent, thisMachine: parent.id == me, heard: contents.household.sync?.heard[parent.id.hex])
        }
    }

    /// `parent remove`: a new vouch without that machine's issuer, its entry marked removed
    /// with the last sequence of its journal taken here.
    package func remove(_ name: String, recovery: RecoveryKeySource, yes: Bool) throws(LommeError) -> Parent {
        let opened = try open()
        var root = try Self.root(opened.contents)
        let me = opened.contents.identity?.issuerID
        guard let parent = opened.contents.household.parents.first(where: { !$0.removed && $0.name.lowercased() == name.lowercased() }) else {
            let names = opened.contents.household.parents.filter { !$0.removed }.map(\.name)
            throw LommeError(.notFound, .parentUnknown, "there is no parent's machine called \(JSON.printable(name)); \(names.isEmpty ? "there are none yet" : "the parents are " + names.joined(separator: ", "))")
        }
        if parent.id == me {
            throw LommeError.failure(.parentIsThisMachine, "\(parent.name) is this machine; remove it from another parent's machine (`lomme-vault parent remove \(parent.name)` there)")
        }
        _ = try VouchClock.version(now: VaultContents.nowMilliseconds(), after: root.vouch.version, kit: nil, seen: opened.contents)
        if !yes {
            guard context.interaction.canAsk, !unlock.noPrompt else {
                throw LommeError.failure(.noTerminalToConfirm, "no terminal to confirm on; run again with --yes to remove \(parent.name)")
            }
            guard try context.interaction.confirm("Stop vouching for \(parent.name)'s machine (\(parent.key.issuer.fingerprint))? The children refuse its codes from their next code on.") else {
                throw LommeError.failure(.declined, "not removed; nothing changed")
            }
        }
        let key = try recovery.read(context.interaction, noPrompt: unlock.noPrompt)
        guard key.householdKey.publicKey == root.publicKey else {
            throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key is not this household's (household \(root.fingerprint)); give this household's kit; nothing changed")
        }
        let planned = root
        var removed = parent
        try VaultActions.update(opened) { (contents: inout VaultContents) throws(LommeError) in
            guard contents.household.root == planned, let index = contents.household.parents.firstIndex(where: { $0.id == parent.id && !$0.removed }) else {
                throw LommeError.failure(.householdChangedMeanwhile, "the household's parents or vouch were changed meanwhile; nothing was written, run it again")
            }
            removed = contents.household.parents[index]
            removed.removed = true
            removed.until = contents.household.sync?.seen[parent.id.hex]?.sequence
            removed.version += 1
            removed.by = me ?? removed.by
            contents.household.parents[index] = removed
            root.vouch = try Self.vouch(key, root: root, issuers: contents.household.parents.filter { !$0.removed }.map(\.key.issuer), seen: contents)
            contents.household.root = root
        }
        return removed
    }
}
