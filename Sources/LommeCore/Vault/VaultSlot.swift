/// One key slot of a v2 vault: a way to the file key, as an age recipient stanza or a
/// LUKS2 keyslot. Every slot's body is its kind's parameters, then a nonce and the file
/// key sealed under the slot's key-encryption key (XChaCha20-Poly1305); the AEAD's
/// associated data binds the slot to its vault, kind, id, creation time and parameters,
/// so no field can be changed or moved to another slot without the unwrap failing.
///
/// Record: kind (1), id (1), created (u64), last used (u64, 0 = never), body length (u16),
/// body. `lastUsed` is outside every MAC: informational only (docs/FORMAT.md).
package struct VaultSlot: Sendable, Equatable {
    /// A slot's kind, as the file's kind byte holds it. Each kind of slot names its own in
    /// its file (LommeVaultKit's `Slots/NAME.swift`; docs/FORMAT.md, "Key slots"); a byte
    /// this version does not know is kept.
    package struct Kind: RawRepresentable, Hashable, Sendable {
        package var rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Argon2id of a passphrase (PassphraseSlot): the one kind the format itself knows,
        /// since every vault has such a slot (VaultLayout).
        package static let passphrase = Kind(rawValue: VaultSlot.passphraseKindByte)
    }

    /// A passphrase slot's kind byte, as the file holds it.
    static let passphraseKindByte: UInt8 = 1

    /// The kind byte; kinds this version does not know are kept as they are.
    package var kindByte: UInt8
    /// Unique within the vault; what `slots` shows and `unenroll` takes.
    package var id: UInt8
    package var created: UInt64
    package var lastUsed: UInt64
    package var body: [UInt8]

    package var kind: Kind { Kind(rawValue: kindByte) }

    static let recordHeaderLength = 20
    static let wrappedLength = XChaCha.keyLength + XChaCha.tagLength
    static let minimumBodyLength = XChaCha.nonceLength + wrappedLength
    static let domain: [UInt8] = Array("lomme-vault slot v2".utf8) + [0]

    package var record: [UInt8] {
        var out = [kindByte, id] + created.littleEndianBytes + lastUsed.littleEndianBytes
        out.appendLengthPrefixed(body)
        return out
    }

    /// Reads one record; nil past the end or when the body is too short to hold a key.
    static func read(_ reader: inout ByteReader) -> VaultSlot? {
        guard let kind = reader.byte(), let id = reader.byte(), let created = reader.little(UInt64.self),
              let lastUsed = reader.little(UInt64.self), let body = reader.lengthPrefixed(),
              body.count >= minimumBodyLength
        else { return nil }
        return VaultSlot(kindByte: kind, id: id, created: created, lastUsed: lastUsed, body: body)
    }

    /// The kind's parameters: the body without the nonce and the wrapped key.
    package var parameters: [UInt8] { Array(body.dropLast(Self.minimumBodyLength)) }
    var nonce: [UInt8] { Array(body.suffix(Self.minimumBodyLength).prefix(XChaCha.nonceLength)) }
    var wrapped: ArraySlice<UInt8> { body.suffix(Self.wrappedLength) }

    static func associatedData(vaultSalt: [UInt8], kind: UInt8, id: UInt8, created: UInt64, parameters: [UInt8], nonce: [UInt8]) -> [UInt8] {
        domain + vaultSalt + [kind, id] + created.littleEndianBytes + parameters + nonce
    }

    /// A slot of `kind` holding `fileKey` under `kek`, with a fresh nonce (a given one for
    /// test vectors only).
    package static func wrap(_ fileKey: SecureBytes, kind: Kind, id: UInt8, created: UInt64, parameters: [UInt8],
                             kek: SecureBytes, vaultSalt: [UInt8], nonce: [UInt8] = Sodium.randomBytes(XChaCha.nonceLength)) -> VaultSlot {
        let ad = associatedData(vaultSalt: vaultSalt, kind: kind.rawValue, id: id, created: created, parameters: parameters, nonce: nonce)
        let wrapped = XChaCha.seal(fileKey, ad: ad, nonce: nonce, key: kek)
        return VaultSlot(kindByte: kind.rawValue, id: id, created: created, lastUsed: 0, body: parameters + nonce + wrapped)
    }

    /// The file key, or nil when `kek` is not this slot's key (or the slot was changed).
    package func unwrap(kek: SecureBytes, vaultSalt: [UInt8]) -> SecureBytes? {
        let ad = Self.associatedData(vaultSalt: vaultSalt, kind: kindByte, id: id, created: created, parameters: parameters, nonce: nonce)
        guard let key = XChaCha.open(wrapped, ad: ad, nonce: nonce, key: kek), key.count == XChaCha.keyLength else { return nil }
        return key
    }

    /// The same slot holding another file key (a new nonce; parameters, id and times kept).
    package func rewrapped(_ fileKey: SecureBytes, kek: SecureBytes, vaultSalt: [UInt8]) -> VaultSlot {
        var slot = VaultSlot.wrap(fileKey, kind: kind, id: id, created: created, parameters: parameters, kek: kek, vaultSalt: vaultSalt)
        slot.lastUsed = lastUsed
        return slot
    }
}
