import LommeCore

/// The vault's key slots, whatever their kind (the context's `SlotKinds`): listing them (no key needed:
/// they are in the header), adding one (`enroll`) and removing one (`unenroll`), both of
/// which prove the vault key first.
package struct SlotService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// One slot as `slots` shows it.
    package struct Info: Sendable, Equatable {
        package var id: UInt8
        package var kind: String
        package var created: UInt64?
        package var lastUsed: UInt64?
        /// What the kind says of its parameters (`SlotFacts.details`).
        package var details: String
        package var readable: Bool
        /// The command that makes such a slot again; nil for a slot no kind here reads.
        package var enrollAgain: String? = nil
    }

    /// The slots of the vault, or for a version 1 file its one passphrase (in the header).
    package func list() throws(LommeError) -> (version: UInt8, slots: [Info]) {
        let sealed = try VaultFormat.parse(try context.store.read())
        if sealed.version == VaultFormat.version1 {
            return (sealed.version, [Info(id: 0, kind: SlotKind.passphrase.name, created: nil, lastUsed: nil,
                                          details: "\(sealed.v1Limits!) (format version 1; becomes a slot at the next write)", readable: true)])
        }
        return (sealed.version, sealed.slots.map(info))
    }

    /// One slot as `slots` shows it, read by its kind.
    package func info(_ slot: VaultSlot) -> Info {
        var info = Info(id: slot.id, kind: "unknown kind \(slot.kindByte)", created: slot.created,
                        lastUsed: slot.lastUsed == 0 ? nil : slot.lastUsed, details: "", readable: true)
        guard let kind = context.slotKinds.of(slot.kind) else {
            info.details = "made by a newer lomme-vault; kept as it is"
            info.readable = false
            return info
        }
        info.kind = kind.name
        if let facts = kind.facts(slot.parameters) {
            info.details = facts.details
            info.enrollAgain = facts.enrollAgain
        } else {
            info.details = "damaged"
            info.readable = false
        }
        return info
    }

    package struct Enrolled: Sendable {
        package var id: UInt8
        package var parameters: [UInt8]
        /// The kind's words for the slot, and its notes for the user.
        package var summary: String
        package var notes: [String]
    }

    /// `enroll KIND`: proves the vault key (an unlocked session or the passphrase), lets the
    /// kind make a key-encryption key (asking what it must), and adds the slot under the
    /// lowest free id. A version 1 vault becomes version 2 first.
    package func enroll(_ kind: SlotKind, _ options: UnlockOptions, _ request: SlotRequest) throws(LommeError) -> Enrolled {
        guard kind.enrollable else {
            throw LommeError.usage(.slotKindNotEnrollable, "lomme-vault can enroll \(SlotKinds.list(context.slotKinds.enrollableNames)) (the passphrase slot is made by init; `passwd` changes it)")
        }
        // What the kind can tell before anything is asked (no TPM, a key file that exists),
        // then the vault key.
        let make = try kind.make(context, request)
        let opened = try Session.open(context, options)
        if opened.sealed.slots.count >= VaultFormat.maximumSlots {
            throw LommeError.failure(.slotsFull, "this vault has \(VaultFormat.maximumSlots) slots, the most it can have; remove one with `lomme-vault unenroll SLOT` first")
        }
        let made = try make(opened.sealed.salt)
        let store = context.store
        let id: UInt8
        do {
            id = try store.withWriteLock { () throws(LommeError) -> UInt8 in
                var (current, contents) = try VaultActions.current(opened)
                var key = opened.master
                if current.version == VaultFormat.version1 {
                    let upgraded = try VaultSealing.reseal(current, key: key, contents: contents)
                    key = upgraded.key
                    current = try VaultFormat.parse(upgraded.bytes)
                    VaultActions.keepSession(opened, bytes: upgraded.bytes, key: key)
                }
                guard current.salt == opened.sealed.salt else {
                    throw LommeError.failure(.vaultChangedMeanwhile, "the vault's key was changed while this command ran; nothing was written, run it again")
                }
                let id = VaultLayout(current).nextSlotID
                let slot = kind.wrap(key, made, id: id, vaultSalt: current.salt)
                try store.write(VaultFormat.replacingSlots(current, with: current.slots + [slot]), key: key)
                return id
            }
        } catch {
            made.undo?()
            throw error
        }
        return Enrolled(id: id, parameters: made.parameters, summary: made.summary, notes: made.notes)
    }

    /// Which slot `unenroll` means: its id, or a kind that exactly one slot has.
    func resolve(_ text: String, in slots: [VaultSlot]) throws(LommeError) -> VaultSlot {
        if let id = UInt8(text) {
            guard let slot = slots.first(where: { $0.id == id }) else {
                throw LommeError(.notFound, .noSuchSlot, "this vault has no slot \(id); `lomme-vault slots` lists them")
            }
            return slot
        }
        let matching = slots.filter { context.slotKinds.of($0.kind)?.name == text }
        switch matching.count {
        case 1: return matching[0]
        case 0: throw LommeError(.notFound, .noSuchSlot, "this vault has no \(text) slot; `lomme-vault slots` lists them")
        default: throw LommeError.usage(.slotAmbiguous, "this vault has \(matching.count) \(text) slots; name one by its number (`lomme-vault slots` lists them)")
        }
    }

    /// Removes a slot, after the vault key is proven (session or passphrase), from the vault
    /// and its `.bak` alike. Never the last passphrase slot: it is the way back when a TPM
    /// is gone.
    package func unenroll(_ text: String, _ options: UnlockOptions) throws(LommeError) -> Info {
        let opened = try Session.open(context, options)
        let store = context.store
        return try store.withWriteLock { () throws(LommeError) -> Info in
            let (current, _) = try VaultActions.current(opened)
            guard current.version == VaultFormat.version2 else {
                throw LommeError.failure(.slotLastPassphrase, "this vault (format version 1) has only its passphrase, which stays; nothing was removed")
            }
            let slot = try resolve(text, in: current.slots)
            let remaining = current.slots.filter { $0.id != slot.id }
            guard remaining.contains(where: { $0.kind == SlotKind.passphrase.byte }) else {
                throw LommeError.failure(.slotLastPassphrase, "slot \(slot.id) is the vault's only passphrase slot, the way in when a TPM is gone; it stays (`lomme-vault passwd` changes the passphrase)")
            }
            // The write removes a key, so the .bak becomes the new file too (VaultStore.write).
            try store.write(VaultFormat.replacingSlots(current, with: remaining), key: opened.master)
            return info(slot)
        }
    }
}

extension SlotService.Info {
    /// As `slots --json` and `status --json` give it.
    package var json: JSON {
        var members = [JSON.Member("id", .number(String(id))), JSON.Member("kind", .string(kind)), JSON.Member("details", .string(details))]
        members.append(JSON.Member("created", created.map { .string(Instant(seconds: Int64(clamping: $0)).text) } ?? .null))
        members.append(JSON.Member("lastUsed", lastUsed.map { .string(Instant(seconds: Int64(clamping: $0)).text) } ?? .null))
        if !readable { members.append(JSON.Member("readable", .bool(false))) }
        return .object(members)
    }
}
