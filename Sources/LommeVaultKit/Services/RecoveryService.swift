import Glibc
import LommeCore

/// The parent's recovery kit and household key (docs/CODES.md, "Recovery key"): a new kit
/// (`recovery kit`), checking one against the vault (`recovery verify`), and a new laptop
/// made from one (`init --parent --restore`). The vault keeps the household key's public
/// half and what it signed, never the recovery key or the private half.
package struct RecoveryService {
    package let context: VaultContext
    package let unlock: UnlockOptions

    package init(_ context: VaultContext, _ unlock: UnlockOptions) {
        self.context = context
        self.unlock = unlock
    }

    /// A kit: the key, the household key it derives (its public half, vouch and the chain of
    /// rotations to it).
    package struct Kit: Sendable {
        package var key: RecoveryKey
        package var root: HouseholdRoot
        /// An older kit is replaced: its household key vouches for this one.
        package var replaced: Bool
        let previous: HouseholdRoot?
        let identity: DeviceIdentity?
        let opened: OpenedVault?
    }

    /// The household key of `key`, with a vouch naming `issuers` whose version
    /// is now (Unix milliseconds), at least `after` + 1, on a clock not behind the kit's
    /// day or what `seen` (the vault) has seen (`VouchClock`).
    /// The chain of rotations that leads to it is the key's own (`RecoveryKey.chain`: what
    /// the kit's QR code carries).
    package static func root(_ key: RecoveryKey, issuers: [IssuerID], after: UInt64?, seen: VaultContents?) throws(LommeError) -> HouseholdRoot {
        let household = key.householdKey
        let version = try VouchClock.version(now: VaultContents.nowMilliseconds(), after: after, kit: key.made, seen: seen)
        let vouch = try Vouch.make(household, version: version, issuers: issuers)
        return HouseholdRoot(publicKey: household.publicKey, vouch: vouch, rotations: key.chain, made: .now())
    }

    func open() throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); a new laptop restores the household with `lomme-vault init --parent --restore`")
        }
        return try Session.open(context, unlock)
    }

    /// `recovery kit`, first step: a new recovery key and its household key vouching for the
    /// issuers of the old vouch (this machine's when there was none). A vault with a
    /// household key already needs the old kit (`old`): the old household key vouches for
    /// the new one, and the new kit carries the whole chain of rotations since the
    /// household's first key, so every child follows, whichever key it pinned, and so does
    /// a laptop restored from the new kit. Nothing is written: the kit is given first (a
    /// file, or the terminal and the key typed back), then `store(_:)`.
    package func planKit(old: RecoveryKeySource?) throws(LommeError) -> Kit {
        let opened = try open()
        if opened.contents.isChildsDevice, let pinned = opened.contents.identity?.pinnedIssuer {
            throw LommeError.failure(.childsDevice, "this is a child's device (it takes the codes of the parent's machine \(pinned.fingerprint)); the household's recovery kit is made on a parent's machine: run `lomme-vault recovery kit` there; nothing was made")
        }
        let current = opened.contents.household.root
        var key = RecoveryKey.generate()
        if let current {
            guard let old else {
                throw LommeError.usage(.recoveryKitNeeded, "this household has a recovery kit already (household \(current.fingerprint)); a new one needs the old: give it with --recovery-file PATH or --recovery-image PHOTO, or type it when asked")
            }
            let oldKey = try old.read(context.interaction, noPrompt: unlock.noPrompt)
            guard oldKey.householdKey.publicKey == current.publicKey else {
                throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key is not this household's (household \(current.fingerprint)); give the kit printed for this vault; nothing changed")
            }
            key.chain = current.rotations + [RootRotation.make(from: oldKey.householdKey, to: key.householdKey.publicKey)]
        }
        // The issuers the household key vouched for go on; the first kit vouches for this machine.
        let identity = opened.contents.identity ?? DeviceIdentity.generate()
        let issuers = current?.vouch.issuers ?? [identity.signing.publicKey.id]
        let root = try Self.root(key, issuers: issuers, after: current?.vouch.version, seen: opened.contents)
        return Kit(key: key, root: root, replaced: current != nil, previous: current, identity: identity, opened: opened)
    }

    /// `recovery kit`, second step: the recovery slot of the new key (replacing the old
    /// one) and the household key, in one write.
    package func store(_ kit: Kit) throws(LommeError) {
        guard let opened = kit.opened, let identity = kit.identity else { throw LommeError.failure(.internalError, "this kit is for a new vault") }
        let (kind, request) = SlotKind.recoveryKit(kit.key)
        let context = context
        try VaultActions.update(opened, slots: { (slots: inout [VaultSlot], salt: [UInt8], fileKey: SecureBytes) throws(LommeError) in
            slots.removeAll { $0.kind == kind.byte }
            let id = VaultLayout(salt: salt, publicKeys: VaultPublicKeys(), slots: slots).nextSlotID
            slots.append(try kind.slot(context, request, fileKey: fileKey, id: id, vaultSalt: salt))
        }) { (contents: inout VaultContents) throws(LommeError) in
            guard contents.household.root == kit.previous, contents.identity == nil || contents.identity == identity else {
                throw LommeError.failure(.householdChangedMeanwhile, "the household's recovery kit or this machine's keys were changed meanwhile; nothing was written, run it again (and destroy the kit just made)")
            }
            contents.identity = identity
            contents.household.root = kit.root
        }
    }

    /// `recovery verify`: that `source`'s key is this household's and opens this vault.
    /// Changes nothing. Exit 4 when the key is another's (or of a replaced kit); 6 when the
    /// vault has no kit, or no slot the key opens (a vault from before kits, or one an
    /// earlier lomme-vault's `passwd --rotate` took it from).
    package func verify(_ source: RecoveryKeySource) throws(LommeError) -> HouseholdRoot {
        let store = context.store
        guard store.exists else { throw LommeError(.notFound, .noVault, "there is no vault at \(store.path)") }
        let sealed = try VaultFormat.parse(try store.read())
        let key = try source.read(context.interaction, noPrompt: unlock.noPrompt)
        let (kind, request) = SlotKind.recoveryKit(key)
        let slotted = sealed.version == VaultFormat.version2 && sealed.slots.contains { $0.kind == kind.byte }
        let contents: VaultContents
        if slotted {
            let (fileKey, _) = try kind.open(context, sealed, request)
            contents = try VaultContents(plaintext: VaultFormat.open(sealed, master: fileKey))
        } else {
            contents = try open().contents
        }
        guard let root = contents.household.root else {
            throw LommeError(.notFound, .recoveryNoKit, "this vault has no recovery kit yet; make one with `lomme-vault recovery kit --output kit.pdf`")
        }
        guard key.householdKey.publicKey == root.publicKey else {
            throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key is not this household's (household \(root.fingerprint)): another household's kit, or one a newer kit replaced")
        }
        guard slotted else {
            throw LommeError(.notFound, .recoverySlotMissing, "the recovery key is this household's (household \(root.fingerprint)), but this vault has no recovery slot, so it does not open it (an earlier `lomme-vault passwd --rotate` removed it); make a new kit that does with `lomme-vault recovery kit --output kit.pdf --recovery-file THIS-KIT`")
        }
        return root
    }

    /// `init --parent --restore`: a new vault on a new laptop, its household key from the
    /// kit, vouching (a newer version) for this laptop's new issuer only — the lost laptop's
    /// issuer is revoked as each child imports a code from this one. Never over a vault.
    package func restore(_ source: RecoveryKeySource) throws(LommeError) -> (identity: DeviceIdentity, root: HouseholdRoot, limits: KDFLimits, seconds: Double) {
        let store = context.store
        if store.exists {
            throw LommeError.failure(.vaultExists, "a vault already exists at \(store.path); --restore never overwrites one: move it away, or give another --vault")
        }
        let key = try source.read(context.interaction, noPrompt: unlock.noPrompt)
        var contents = VaultContents()
        let identity = contents.ensureDeviceIdentity()
        let root = try Self.root(key, issuers: [identity.signing.publicKey.id], after: nil, seen: nil)
        contents.household.root = root
        let made = try Provisioning(context).createVault(contents: contents, source: unlock.source, noPrompt: unlock.noPrompt,
                                                         refusal: "--no-prompt: give the new passphrase with --passphrase-fd or --passphrase-file",
                                                         recovery: key)
        return (identity, root, made.limits, made.seconds)
    }
}
