import LommeCore

/// `passwd` and `passwd --rotate` (docs/vault.md, "Key slots").
///
/// Rotating makes a new file key and vault salt (so a new vault id), re-seals the body,
/// and re-wraps the key for the new passphrase and for every other slot that can take it:
/// a copy of the vault or of its unlocked key taken before opens nothing now. `passwd`
/// rotates when every other slot opens without a question (a TPM slot without PIN, when
/// its TPM answers; the recovery slot when the kit is given with --recovery-file or
/// --recovery-image); otherwise it keeps the file key, wraps it for the new passphrase in
/// the slot the old one opened, and the other slots keep working. `passwd --rotate` always
/// rotates: the recovery slot takes the new key with the kit (given, or typed when asked;
/// no terminal and no kit: refused, nothing changed), so the sheet in the drawer goes on
/// opening the vault; a TPM slot with a PIN or a key file is removed and named, to be
/// enrolled again. Either way no file in the folder opens with the old passphrase (the
/// write removes a key: VaultStore.write), and the unlocked session and its cached tokens
/// end.
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

    /// Gives the key-encryption key of a slot for the vault salt `newSalt` (the slot read
    /// from the file of salt `oldSalt`): without a question, or, when `asking`, after one
    /// (the recovery key); nil when the slot cannot take a new file key.
    package typealias SlotOpener = (_ slot: VaultSlot, _ oldSalt: [UInt8], _ newSalt: [UInt8], _ asking: Bool) throws(LommeError) -> SecureBytes?

    /// The vault key `passwd` changes the passphrase of, and the passphrase slot it replaces:
    /// a session a kind that stands for the passphrase opened (`unlock --with recovery`, the
    /// way back from a forgotten passphrase) stands for it; else the current passphrase,
    /// asked or read, even while the vault is unlocked with it, so a program of the user's
    /// that finds the vault unlocked cannot lock its owner out.
    static func currentKey(_ context: VaultContext, _ sealed: VaultFormat.Sealed, _ old: UnlockOptions) throws(LommeError) -> (key: SecureBytes, slot: UInt8?) {
        if old.source == .terminal, let (master, state) = Session.fromKeyring(context, sealed, refresh: false) {
            if let kind = state.openedBy.flatMap(context.slotKinds.of), kind.standsForPassphrase {
                context.interaction.notice("The vault was unlocked with the \(kind.name) slot, which stands for the current passphrase: it is not asked.")
                return (master, sealed.slots.first { $0.kind == SlotKind.passphrase.byte }?.id)
            }
            if old.noPrompt || !context.interaction.canAsk {
                let standing = context.slotKinds.all.filter(\.standsForPassphrase).map { "`lomme-vault unlock --with \($0.name)`" }
                throw LommeError(.locked, .passphraseNeeded, "passwd needs the current passphrase even while the vault is unlocked (only a session \(SlotKinds.list(standing)) opened stands for it); give it with --passphrase-fd or --passphrase-file, or run passwd on a terminal")
            }
        }
        return try Session.passphraseKey(context, sealed, old, prompt: "Current passphrase for \(context.store.path): ")
    }

    package static func run(_ context: VaultContext, old: UnlockOptions, new: PassphraseSource, forceRotation: Bool,
                            opener: SlotOpener = { _, _, _, _ in nil }) throws(LommeError) -> Result {
        let store = context.store
        let sealed = try VaultFormat.parse(try store.read())
        let (oldKey, openedSlot) = try currentKey(context, sealed, old)
        if new == .terminal && old.noPrompt {
            throw LommeError(.locked, .passphraseNeeded, "--no-prompt: give the new passphrase with --new-passphrase-fd or --new-passphrase-file")
        }
        // Which other slots can take a new file key, asked before the new passphrase: those
        // that open without a question, and with --rotate those that open after one.
        let salt = Sodium.randomBytes(KDF.saltLength)
        let others = sealed.slots.filter { $0.id != openedSlot }
        var keks: [UInt8: SecureBytes] = [:]
        for slot in others {
            if let kek = try opener(slot, sealed.salt, salt, false) { keks[slot.id] = kek }
        }
        if forceRotation {
            for slot in others where keks[slot.id] == nil {
                if let kek = try opener(slot, sealed.salt, salt, true) { keks[slot.id] = kek }
            }
        }
        let stuck = others.filter { keks[$0.id] == nil }
        let rotate = forceRotation || stuck.isEmpty
        let phrase = try Passphrase.new(new, context.interaction)
        let parameters = VaultSealing.newPassphraseSlot(try VaultActions.newLimits(context))
        let kek = try VaultActions.derive(phrase, parameters, context.interaction)
        var result = Result(endedSession: false, rotated: rotate, removed: rotate ? stuck : [], kept: rotate ? [] : stuck)
        try store.withWriteLock { () throws(LommeError) in
            // Re-checked under the lock: the slots examined above are still the file's.
            let current = try VaultFormat.parse(try store.read())
            guard VaultFormat.matches(current, master: oldKey), current.keepsEveryKey(of: sealed), sealed.keepsEveryKey(of: current) else {
                throw LommeError.failure(.vaultChangedMeanwhile, "the vault changed while this command ran; nothing was written, run it again")
            }
            let contents = try VaultContents(plaintext: VaultFormat.open(current, master: oldKey))
            let fileKey = rotate ? SecureBytes.random(count: KDF.keyLength) : oldKey
            let vaultSalt = rotate ? salt : current.salt
            var slots: [VaultSlot] = []
            for slot in current.slots where slot.id != openedSlot {
                if !rotate {
                    slots.append(slot)
                } else if let slotKEK = keks[slot.id] {
                    slots.append(slot.rewrapped(fileKey, kek: slotKEK, vaultSalt: vaultSalt))
                }
            }
            let id = openedSlot ?? 0
            slots.insert(PassphraseSlot.make(fileKey, kek: kek, slot: parameters, id: id, created: VaultSealing.now(), vaultSalt: vaultSalt),
                         at: current.slots.firstIndex { $0.id == id } ?? 0)
            let layout = VaultLayout(salt: vaultSalt, publicKeys: try VaultSealing.publicKeys(contents), slots: slots)
            try store.write(VaultFormat.seal(contents.plaintext(), master: fileKey, layout: layout), key: fileKey)
        }
        TokenCache.forgetAll(vaultID: Session.vaultID(salt: sealed.salt), keyring: context.keyring)
        result.endedSession = (try? Session.lock(context.keyring, salt: sealed.salt)) ?? false
        return result
    }
}
