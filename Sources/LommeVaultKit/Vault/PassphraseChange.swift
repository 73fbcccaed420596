import LommeCore

/// `passwd` and `passwd --rotate` (docs/vault.md, "Key slots").
///
/// Rotating makes a new file key and vault salt (so a new vault id), re-seals the body,
/// and re-wraps the key for the new passphrase and for every other slot that opens without
/// a question (a TPM slot without PIN, when its TPM answers): a copy of the vault or of its
/// unlocked key taken before opens nothing now. `passwd` rotates when that loses no slot;
/// otherwise it keeps the file key, wraps it for the new passphrase in the slot the old one
/// opened, and the other slots keep working. `passwd --rotate` always rotates, removing the
/// slots that could not take the new key (named, to be enrolled again). Either way the
/// `.bak` becomes the new vault, and the unlocked session and its cached tokens end.
package enum PassphraseChange {
    package struct Result: Sendable {
        /// True when an unlocked session was ended.
        package var endedSession: Bool
        /// True when the file key was replaced.
        package var rotated: Bool
        /// Slots `--rotate` could not re-wrap and removed.
        package var removed: [VaultSlot]
        /// Slots that kept `passwd` from rotating (it was not forced).
        package var kept: [VaultSlot]
    }

    /// Gives the key-encryption key of a slot that opens without a question, or nil.
    package typealias SlotOpener = (VaultSlot, _ vaultSalt: [UInt8]) -> SecureBytes?

    /// The vault key `passwd` changes the passphrase of, and the passphrase slot it replaces:
    /// an unlocked session proves the key when no current passphrase is given (after
    /// `unlock --with recovery`, the way back from a forgotten passphrase); else the current
    /// passphrase, asked or read.
    static func currentKey(_ context: VaultContext, _ sealed: VaultFormat.Sealed, _ old: UnlockOptions) throws(LommeError) -> (key: SecureBytes, slot: UInt8?) {
        if old.source == .terminal, let (master, _) = Session.fromKeyring(context, sealed, refresh: false) {
            context.interaction.notice("The vault is unlocked: its session stands for the current passphrase, which is not asked.")
            return (master, sealed.slots.first { $0.kind == .passphrase }?.id)
        }
        return try Session.passphraseKey(context, sealed, old, prompt: "Current passphrase for \(context.store.path): ")
    }

    package static func run(_ context: VaultContext, old: UnlockOptions, new: PassphraseSource, forceRotation: Bool,
                            opener: SlotOpener = { _, _ in nil }) throws(LommeError) -> Result {
        let store = context.store
        let sealed = try VaultFormat.parse(try store.read())
        let (oldKey, openedSlot) = try currentKey(context, sealed, old)
        if new == .terminal && old.noPrompt {
            throw LommeError(.locked, "--no-prompt: give the new passphrase with --new-passphrase-fd or --new-passphrase-file")
        }
        let phrase = try Passphrase.new(new, context.interaction)
        let parameters = VaultSealing.newPassphraseSlot(try VaultActions.newLimits(context))
        let kek = try VaultActions.derive(phrase, parameters, context.interaction)
        var result = Result(endedSession: false, rotated: false, removed: [], kept: [])
        try store.withWriteLock { () throws(LommeError) in
            let current = try VaultFormat.parse(try store.read())
            guard VaultFormat.matches(current, master: oldKey) else {
                throw LommeError.failure("the vault changed while this command ran; nothing was written, run it again")
            }
            let contents = try VaultContents(plaintext: VaultFormat.open(current, master: oldKey))
            let others = current.slots.filter { $0.id != openedSlot }.map { ($0, opener($0, current.salt)) }
            let stuck = others.filter { $0.1 == nil }.map(\.0)
            let rotate = forceRotation || stuck.isEmpty
            let fileKey = rotate ? SecureBytes.random(count: KDF.keyLength) : oldKey
            let salt = rotate ? Sodium.randomBytes(KDF.saltLength) : current.salt
            var slots: [VaultSlot] = []
            for (slot, slotKEK) in others {
                if !rotate {
                    slots.append(slot)
                } else if let slotKEK {
                    slots.append(slot.rewrapped(fileKey, kek: slotKEK, vaultSalt: salt))
                }
            }
            result.rotated = rotate
            if rotate { result.removed = stuck } else { result.kept = stuck }
            let id = openedSlot ?? 0
            slots.insert(PassphraseSlot.make(fileKey, kek: kek, slot: parameters, id: id, created: VaultSealing.now(), vaultSalt: salt),
                         at: current.slots.firstIndex { $0.id == id } ?? 0)
            let layout = VaultLayout(salt: salt, publicKeys: try VaultSealing.publicKeys(contents), slots: slots)
            try store.write(VaultFormat.seal(contents.plaintext(), master: fileKey, layout: layout), key: fileKey, backup: .same)
        }
        TokenCache.forgetAll(vaultID: Session.vaultID(salt: sealed.salt), keyring: context.keyring)
        result.endedSession = (try? Session.lock(context.keyring, salt: sealed.salt)) ?? false
        return result
    }
}
