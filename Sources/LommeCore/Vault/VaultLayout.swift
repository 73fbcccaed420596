/// What a version 2 vault's header holds besides the nonce: its salt (the vault's id),
/// the public keys shown while locked, and the key slots (docs/FORMAT.md):
///
///     magic (8) · version 2 · flags 0 · salt (16) · nonce (24) · public length (u16) ·
///     public keys · key check (32) · slot count (1…8) · slot records · body
///
/// The key check (keyed by the file key) covers everything before it; the body's
/// associated data is everything up to and including the check. The slots come after:
/// each authenticates itself (its wrapped key's AEAD), so a damaged slot leaves the
/// others working.
package struct VaultLayout: Sendable, Equatable {
    package var salt: [UInt8]
    package var publicKeys: VaultPublicKeys
    package var slots: [VaultSlot]

    static let fixedLength = 52

    package init(salt: [UInt8], publicKeys: VaultPublicKeys, slots: [VaultSlot]) {
        self.salt = salt
        self.publicKeys = publicKeys
        self.slots = slots
    }

    /// The layout of a parsed version 2 vault.
    package init(_ sealed: VaultFormat.Sealed) {
        precondition(sealed.version == VaultFormat.version2)
        self.init(salt: sealed.salt, publicKeys: sealed.publicKeys ?? VaultPublicKeys(), slots: sealed.slots)
    }

    /// Bytes 0..<checkedEnd: what the key check covers.
    func checkedPart(nonce: [UInt8]) -> [UInt8] {
        precondition(salt.count == KDF.saltLength && nonce.count == XChaCha.nonceLength)
        var out = VaultFormat.magic + [VaultFormat.version2, 0] + salt + nonce
        out.appendLengthPrefixed(publicKeys.bytes)
        return out
    }

    var slotTable: [UInt8] {
        precondition((1...VaultFormat.maximumSlots).contains(slots.count))
        return [UInt8(slots.count)] + slots.flatMap(\.record)
    }

    /// The lowest id no slot of this vault has (a vault holds at most `maximumSlots`, so
    /// one is always free; ids never wrap round onto a slot that is there).
    package var nextSlotID: UInt8 {
        let taken = Set(slots.map(\.id))
        return (0...UInt8.max).first { !taken.contains($0) }!
    }

    /// The most passphrase slots a vault may have: one. Each costs a KDF run per guess, so a
    /// file edited to hold more would multiply what one wrong passphrase costs.
    package static let maximumPassphraseSlots = 1

    static func parse(_ bytes: [UInt8]) throws(LommeError) -> VaultFormat.Sealed {
        var reader = ByteReader(bytes)
        _ = reader.take(9)  // magic and version, checked by VaultFormat.parse
        guard reader.byte() == 0 else { throw VaultFormat.damaged("unknown header flags") }
        guard let salt = reader.take(KDF.saltLength), let nonce = reader.take(XChaCha.nonceLength),
              let publicBytes = reader.lengthPrefixed()
        else { throw VaultFormat.damaged("its header is cut short") }
        guard let publicKeys = VaultPublicKeys(bytes: publicBytes) else { throw VaultFormat.damaged("its public keys are not understood") }
        let checkedEnd = reader.offset
        guard reader.take(VaultFormat.checkLength) != nil, let count = reader.byte() else { throw VaultFormat.damaged("its header is cut short") }
        guard (1...VaultFormat.maximumSlots).contains(Int(count)) else { throw VaultFormat.damaged("it has \(count) key slots") }
        var slots: [VaultSlot] = []
        for _ in 0..<count {
            guard let slot = VaultSlot.read(&reader) else { throw VaultFormat.damaged("its key slots are cut short") }
            guard !slots.contains(where: { $0.id == slot.id }) else { throw VaultFormat.damaged("two key slots have the id \(slot.id)") }
            slots.append(slot)
        }
        let passphraseSlots = slots.filter { $0.kindByte == VaultSlot.passphraseKindByte }.count
        guard passphraseSlots <= maximumPassphraseSlots else {
            throw VaultFormat.damaged("it has \(passphraseSlots) passphrase slots, and lomme-vault makes one")
        }
        guard reader.remaining >= VaultFormat.tagLength else { throw VaultFormat.damaged("its sealed body is cut short") }
        return VaultFormat.Sealed(version: VaultFormat.version2, bytes: bytes, salt: salt, nonce: nonce, checkedEnd: checkedEnd,
                                  bodyStart: reader.offset, slots: slots, publicKeys: publicKeys, v1Limits: nil)
    }

    /// Tries `passphrase` on each passphrase slot in turn: the file key and the slot that
    /// opened, or nil when none did. Exit 5 when the vault has no passphrase slot that
    /// can be read at all.
    static func key(_ sealed: VaultFormat.Sealed, passphrase: SecureBytes) throws(LommeError) -> (key: SecureBytes, slot: UInt8?)? {
        var tried = 0
        var problem: LommeError?
        for slot in sealed.slots where slot.kind == .passphrase {
            guard let parameters = PassphraseSlot(parameters: slot.parameters) else {
                problem = VaultFormat.damaged("passphrase slot \(slot.id) is not understood")
                continue
            }
            guard parameters.limits.isWithinCaps else {
                problem = VaultFormat.damaged("passphrase slot \(slot.id)'s KDF limits, \(parameters.limits.opslimit) passes and \(parameters.limits.memlimit) bytes, are outside what lomme-vault allows")
                continue
            }
            let kek: SecureBytes
            do { kek = try parameters.kek(passphrase) } catch {
                problem = error
                continue
            }
            tried += 1
            if let key = slot.unwrap(kek: kek, vaultSalt: sealed.salt) { return (key, slot.id) }
        }
        if tried == 0 {
            throw problem ?? VaultFormat.damaged("it has no passphrase slot")
        }
        return nil
    }
}
