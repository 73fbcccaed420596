import LommeCore

/// The vault operations the commands are made of, each a few lines in the CLI.
package enum VaultActions {
    /// The KDF limits for a new vault or a new passphrase, from the settings' KDF value
    /// (`LOMME_VAULT_KDF`); calibrating takes a moment, shown as progress.
    package static func newLimits(_ context: VaultContext) throws(LommeError) -> KDFLimits {
        let setting = context.settings.kdf
        if setting == nil || setting == "calibrate" || setting == "" {
            return try context.interaction.progress("calibrating the key derivation…") { () throws(LommeError) in
                try KDF.limitsForNewVault(environment: setting)
            }
        }
        return try KDF.limitsForNewVault(environment: setting)
    }

    /// Creates a vault holding `contents`, sealed under a new passphrase, and with a slot of
    /// each of `slots` (a kind and what makes it: the recovery kit's). Refuses to replace an
    /// existing vault. Returns the limits used and how long one derivation took.
    @discardableResult
    package static func create(_ context: VaultContext, contents: VaultContents, source: PassphraseSource,
                               slots: [(kind: SlotKind, request: SlotRequest)] = []) throws(LommeError) -> (limits: KDFLimits, seconds: Double) {
        let store = context.store
        if store.exists {
            throw LommeError.failure(.vaultExists, "a vault already exists at \(store.path); use `lomme-vault passwd` to change its passphrase, or move it away first")
        }
        let phrase = try Passphrase.new(source, context.interaction)
        let slot = VaultSealing.newPassphraseSlot(try newLimits(context))
        let start = KDF.monotonicSeconds()
        let kek = try derive(phrase, slot, context.interaction)
        let seconds = KDF.monotonicSeconds() - start
        let fileKey = SecureBytes.random(count: KDF.keyLength)
        var layout = try VaultSealing.newLayout(fileKey: fileKey, kek: kek, slot: slot, contents: contents)
        for (kind, request) in slots {
            // In the same first write: the recovery kit opens the vault from the start.
            layout.slots.append(try kind.slot(context, request, fileKey: fileKey, id: layout.nextSlotID, vaultSalt: layout.salt))
        }
        let bytes = VaultFormat.seal(contents.plaintext(), master: fileKey, layout: layout)
        try store.withWriteLock { () throws(LommeError) in
            if store.exists {
                throw LommeError.failure(.vaultExists, "a vault appeared at \(store.path) meanwhile; nothing was written")
            }
            try store.write(bytes, key: fileKey)
        }
        return (slot.limits, seconds)
    }

    /// Runs Argon2id for a passphrase slot while the interaction shows "deriving the key…".
    static func derive(_ phrase: SecureBytes, _ slot: PassphraseSlot, _ interaction: any Interaction) throws(LommeError) -> SecureBytes {
        try interaction.progress("deriving the key…") { () throws(LommeError) in try slot.kek(phrase) }
    }

    /// The current file and its contents, under the write lock, for a change made with the
    /// vault key `key`: if the file changed since `opened` was read, the change applies to
    /// the current contents instead.
    static func current(_ opened: OpenedVault) throws(LommeError) -> (sealed: VaultFormat.Sealed, contents: VaultContents) {
        let current = try VaultFormat.parse(try opened.store.read())
        if current.bytes == opened.sealed.bytes { return (current, opened.contents) }
        guard VaultFormat.matches(current, master: opened.master) else {
            throw LommeError.failure(.vaultChangedMeanwhile, "the vault's key was changed while this command ran (by `lomme-vault passwd`); nothing was written, run it again")
        }
        return (current, try VaultContents(plaintext: VaultFormat.open(current, master: opened.master)))
    }

    /// Re-seals `opened` after `change`, under the write lock: same key and slots, fresh
    /// nonce (a version 1 file becomes version 2 here). Returns the vault key it is sealed
    /// under now.
    @discardableResult
    package static func update(_ opened: OpenedVault, _ change: (inout VaultContents) throws(LommeError) -> Void) throws(LommeError) -> SecureBytes {
        try updated(opened, change).master
    }

    /// `update`, returning the vault as it was written: a second change made with it finds
    /// the file as it left it and needs neither to read nor to open it again (`issue --all`
    /// writes each code's record, then its hand-out, for every child).
    /// `keep`, asked after `change`: the slots that stay (nil: all; a write that removes one
    /// leaves no `.bak` it opens, `VaultStore.write`).
    package static func updated(_ opened: OpenedVault, keep: ((VaultSlot) -> Bool)? = nil,
                                _ change: (inout VaultContents) throws(LommeError) -> Void) throws(LommeError) -> OpenedVault {
        let store = opened.store
        return try store.withWriteLock { () throws(LommeError) -> OpenedVault in
            var (current, contents) = try current(opened)
            try change(&contents)
            let (bytes, key) = try VaultSealing.reseal(current, key: opened.master, contents: contents, keep: keep)
            try store.write(bytes, key: key)
            if current.version == VaultFormat.version1 { keepSession(opened, bytes: bytes, key: key) }
            var written = OpenedVault(store: store, sealed: try VaultFormat.parse(bytes), master: key, contents: contents,
                                      fromKeyring: opened.fromKeyring)
            written.sessionDeadline = opened.sessionDeadline
            written.sessionIdle = opened.sessionIdle
            written.sessionOpenedBy = opened.sessionOpenedBy
            return written
        }
    }

    /// As `update`, with the slot table changed in the same write (`slots` gets the slots,
    /// the vault's salt and the file key): a recovery slot and the household key it
    /// derives go in together or not at all. A version 1 file becomes version 2 here.
    @discardableResult
    package static func update(_ opened: OpenedVault, slots: (inout [VaultSlot], _ salt: [UInt8], _ fileKey: SecureBytes) throws(LommeError) -> Void,
                               _ change: (inout VaultContents) throws(LommeError) -> Void) throws(LommeError) -> SecureBytes {
        let store = opened.store
        return try store.withWriteLock { () throws(LommeError) -> SecureBytes in
            var (current, contents) = try current(opened)
            var key = opened.master
            if current.version == VaultFormat.version1 {
                let upgraded = try VaultSealing.reseal(current, key: key, contents: contents)
                key = upgraded.key
                current = try VaultFormat.parse(upgraded.bytes)
                keepSession(opened, bytes: upgraded.bytes, key: key)
            }
            try change(&contents)
            var layout = VaultLayout(current)
            try slots(&layout.slots, layout.salt, key)
            guard (1...VaultFormat.maximumSlots).contains(layout.slots.count) else {
                throw LommeError.failure(.slotsFull, "this vault has \(VaultFormat.maximumSlots) slots, the most it can have; remove one with `lomme-vault unenroll SLOT` first")
            }
            layout.publicKeys = try VaultSealing.publicKeys(contents)
            try store.write(VaultFormat.seal(contents.plaintext(), master: key, layout: layout), key: key)
            return key
        }
    }

    /// After a version 1 file was upgraded, the unlocked session (which held the v1 master
    /// key) holds the new file key, with the same deadline and idle timeout.
    static func keepSession(_ opened: OpenedVault, bytes: [UInt8], key: SecureBytes) {
        guard opened.fromKeyring, let deadline = opened.sessionDeadline, let idle = opened.sessionIdle,
              let sealed = try? VaultFormat.parse(bytes) else { return }
        _ = try? Session.store(Keyring(), sealed, master: key, idle: idle, deadline: deadline, openedBy: opened.sessionOpenedBy)
    }
}
