import LommeCore

/// Notes when a key slot last unlocked the vault (the slot record's "last used", shown by
/// `slots`). Only the slot table changes: the body, its nonce and the key check stay
/// as they are, so nothing is re-encrypted, and the `.bak` keeps the version before the
/// last real change. Best effort: a vault that cannot be written now still unlocks.
package enum SlotUse {
    package static func note(_ store: VaultStore, slot id: UInt8, key: SecureBytes) {
        _ = try? store.withWriteLock { () throws(LommeError) in
            let current = try VaultFormat.parse(try store.read())
            guard current.version == VaultFormat.version2, VaultFormat.matches(current, master: key) else { return }
            var slots = current.slots
            guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
            slots[index].lastUsed = VaultSealing.now()
            try store.write(VaultFormat.replacingSlots(current, with: slots), key: key, backup: .keep)
        }
    }
}
