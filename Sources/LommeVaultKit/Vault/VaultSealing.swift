import LommeCore

/// Writing the vault in format version 2: a new vault's first slot, re-sealing after a
/// change, and upgrading a version 1 file at its first write.
package enum VaultSealing {
    /// The public keys a vault holding `contents` shows while locked.
    static func publicKeys(_ contents: VaultContents) throws(LommeError) -> VaultPublicKeys {
        VaultPublicKeys(contents.identity)
    }

    static func now() -> UInt64 { UInt64(Session.now()) }

    /// A new vault's layout: a fresh salt (its id) and one passphrase slot (id 0) holding
    /// `fileKey` under `kek`, the Argon2id output of `slot`'s salt and limits.
    static func newLayout(fileKey: SecureBytes, kek: SecureBytes, slot: PassphraseSlot, contents: VaultContents) throws(LommeError) -> VaultLayout {
        let salt = Sodium.randomBytes(KDF.saltLength)
        let first = PassphraseSlot.make(fileKey, kek: kek, slot: slot, id: 0, created: now(), vaultSalt: salt)
        return VaultLayout(salt: salt, publicKeys: try publicKeys(contents), slots: [first])
    }

    /// A fresh passphrase slot's parameters (new salt) for `limits`.
    static func newPassphraseSlot(_ limits: KDFLimits) -> PassphraseSlot {
        PassphraseSlot(limits: limits, salt: Sodium.randomBytes(KDF.saltLength))
    }

    /// `contents` sealed for the file `current` opened with `key`: the same slots and a new
    /// nonce (v2), or (v1) the same file as a version 2 vault with a new file key whose one
    /// passphrase slot opens with the same passphrase: the v1 master key is exactly that
    /// slot's key-encryption key (same salt, same limits). Returns the bytes and the vault
    /// key they open with.
    /// `keep`: the slots that stay (nil: all); a version 1 file has only its passphrase.
    static func reseal(_ current: VaultFormat.Sealed, key: SecureBytes, contents: VaultContents,
                       keep: ((VaultSlot) -> Bool)? = nil) throws(LommeError) -> (bytes: [UInt8], key: SecureBytes) {
        var layout: VaultLayout
        var fileKey = key
        if current.version == VaultFormat.version1 {
            fileKey = SecureBytes.random(count: KDF.keyLength)
            let slot = PassphraseSlot(limits: current.v1Limits!, salt: current.salt)
            let first = PassphraseSlot.make(fileKey, kek: key, slot: slot, id: 0, created: now(), vaultSalt: current.salt)
            layout = VaultLayout(salt: current.salt, publicKeys: VaultPublicKeys(), slots: [first])
        } else {
            layout = VaultLayout(current)
            if let keep { layout.slots = layout.slots.filter(keep) }
        }
        layout.publicKeys = try publicKeys(contents)
        return (VaultFormat.seal(contents.plaintext(), master: fileKey, layout: layout), fileKey)
    }
}
