import CSodium

/// The vault file's bytes (docs/FORMAT.md): pure bytes in, bytes out; no files, no prompts.
///
/// Version 2 (written): a random file key seals the body; key slots (passphrase, TPM 2.0)
/// each hold the file key wrapped under their own key. Version 1 (read, upgraded at the
/// next write): the body sealed under the passphrase's Argon2id output itself. Either way
/// the *vault key* — what the unlocked session keeps — is the key the body's AEAD and key
/// check are derived from: the file key (v2) or the master key (v1).
package enum VaultFormat {
    package static let magic: [UInt8] = Array("LOMMEVLT".utf8)
    package static let version1: UInt8 = 1
    package static let version2: UInt8 = 2
    package static let kdfArgon2id13: UInt8 = 1
    package static let nonceLength = XChaCha.nonceLength
    package static let tagLength = XChaCha.tagLength
    package static let checkLength = 32
    /// The largest vault read or written: far past any real household (two parents, 1000
    /// children and 10 000 records of their codes are about 4 MiB: bench/parents), and a
    /// bound on what a forged or absurd file can make `open` read and decrypt.
    package static let maximumFileLength = 8 << 20
    package static let maximumSlots = 8
    static let kdfContext: [CChar] = Array("lommevlt".utf8).map { CChar(bitPattern: $0) }

    /// A vault file read but not opened: everything checked that can be without a key.
    package struct Sealed: Sendable {
        package let version: UInt8
        package let bytes: [UInt8]
        /// The vault's salt: its id (`Session.vaultID`). In v1 also the Argon2id salt.
        package let salt: [UInt8]
        package let nonce: [UInt8]
        /// The key check covers bytes 0..<checkedEnd and is the 32 bytes after them; the
        /// body's associated data is bytes 0..<checkedEnd + 32.
        let checkedEnd: Int
        let bodyStart: Int
        /// v2: the key slots (v1 has none: its one passphrase is in the header).
        package let slots: [VaultSlot]
        /// v2: the public keys in the header (unauthenticated until the vault is opened).
        package let publicKeys: VaultPublicKeys?
        /// v1: the header's Argon2id limits.
        package let v1Limits: KDFLimits?

        var check: ArraySlice<UInt8> { bytes[checkedEnd..<checkedEnd + VaultFormat.checkLength] }
        var associatedData: [UInt8] { Array(bytes[0..<checkedEnd + VaultFormat.checkLength]) }
        var body: ArraySlice<UInt8> { bytes[bodyStart...] }

        package func slot(id: UInt8) -> VaultSlot? { slots.first { $0.id == id } }

        /// True when every key that opens `old` opens this file too: the same vault id
        /// (salt) and each of `old`'s slots here unchanged (its last-use time aside). A
        /// write for which this is false removes a key (`passwd`, `unenroll`, a new
        /// recovery kit): no file left in the folder may still open with it (docs/contract.md,
        /// "Unlocking"; VaultStore.write keeps no `.bak` of the old file then).
        package func keepsEveryKey(of old: Sealed) -> Bool {
            salt == old.salt && old.slots.allSatisfy { slot in
                slots.contains { $0.kindByte == slot.kindByte && $0.id == slot.id && $0.created == slot.created && $0.body == slot.body }
            }
        }
    }

    static func damaged(_ why: String, _ reason: LommeError.Reason = .vaultDamaged) -> LommeError {
        LommeError(.damaged, reason, "the vault file is damaged (\(why)); restore it from the .bak next to it or re-import")
    }

    /// Checks everything that can be checked without a key (FORMAT.md, steps 1–4); all
    /// failures are exit 5, and none of them runs the KDF.
    package static func parse(_ bytes: [UInt8]) throws(LommeError) -> Sealed {
        guard bytes.count <= maximumFileLength else { throw damaged("it is larger than 8 MiB") }
        guard bytes.count >= 9 + checkLength + tagLength else { throw damaged("it is too short") }
        guard Array(bytes[0..<8]) == magic else { throw damaged("it does not start with LOMMEVLT, so it is not a vault") }
        switch bytes[8] {
        case version1: return try VaultFormatV1.parse(bytes)
        case version2: return try VaultLayout.parse(bytes)
        default:
            throw LommeError(.damaged, .vaultNewerFormat, "the vault file has format version \(bytes[8]), which this lomme-vault does not know: it was made by a newer lomme-vault (upgrade to open it) or it is damaged")
        }
    }

    /// Subkey ids under `kdfContext`: the AEAD key and the key-check key.
    static let aeadKeyID: UInt64 = 1, checkKeyID: UInt64 = 2

    /// One subkey of the vault key (each is a locked allocation: derive only what is used).
    static func subkey(_ key: SecureBytes, _ id: UInt64) -> SecureBytes {
        precondition(key.count == KDF.keyLength)
        Sodium.initialize()
        let subkey = SecureBytes(count: 32)
        Sodium.require(subkey.withUnsafeMutableBytes { output in
            key.withUnsafeBytes { keyBuffer in
                crypto_kdf_derive_from_key(output.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, id,
                                           kdfContext, keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }, "crypto_kdf_derive_from_key")
        return subkey
    }

    /// The key check of `checked` (keyed BLAKE2b-256).
    static func check(_ checked: [UInt8], checkKey: SecureBytes) -> [UInt8] {
        Sodium.blake2b(checked, length: checkLength, key: checkKey)
    }

    /// True when `key` is this vault's key (no AEAD work).
    package static func matches(_ sealed: Sealed, master key: SecureBytes) -> Bool {
        matches(sealed, checkKey: subkey(key, checkKeyID))
    }

    static func matches(_ sealed: Sealed, checkKey: SecureBytes) -> Bool {
        let expected = check(Array(sealed.bytes[0..<sealed.checkedEnd]), checkKey: checkKey)
        return expected.withUnsafeBytes { a in
            Array(sealed.check).withUnsafeBytes { b in sodium_memcmp(a.baseAddress!, b.baseAddress!, checkLength) == 0 }
        }
    }

    /// Opens a parsed vault with its vault key. A key that fails the check is exit 4 in v1
    /// (it came from a passphrase); in v2 the key came out of an authenticated slot, so a
    /// failing check means the header was changed: exit 5. A body that does not
    /// authenticate is exit 5.
    package static func open(_ sealed: Sealed, master key: SecureBytes) throws(LommeError) -> SecureBytes {
        guard matches(sealed, checkKey: subkey(key, checkKeyID)) else {
            if sealed.version == version1 {
                throw LommeError(.wrongPassphrase, .passphraseWrong, "wrong passphrase for this vault; try again (a damaged header gives this message too)")
            }
            throw LommeError(.damaged, .vaultHeaderChanged, "the vault's header was changed or damaged (its key check does not match the key a slot holds); restore it from the .bak next to it")
        }
        guard let plaintext = XChaCha.open(sealed.body, ad: sealed.associatedData, nonce: sealed.nonce, key: subkey(key, aeadKeyID)) else {
            throw LommeError(.damaged, .vaultDamaged, "the vault file is damaged or was tampered with (the key is right, but the sealed body does not authenticate); restore it from the .bak next to it or re-import")
        }
        return plaintext
    }

    /// The vault key from a passphrase: v1 derives it; v2 tries each passphrase slot.
    /// Nil when the passphrase is wrong. Exit 5 when no passphrase slot can be read.
    package static func key(_ sealed: Sealed, passphrase: SecureBytes) throws(LommeError) -> (key: SecureBytes, slot: UInt8?)? {
        if sealed.version == version1 {
            let key = try KDF.derive(passphrase: passphrase, salt: sealed.salt, limits: sealed.v1Limits!)
            return matches(sealed, master: key) ? (key, nil) : nil
        }
        return try VaultLayout.key(sealed, passphrase: passphrase)
    }

    /// Derives the vault key from a passphrase and opens the vault (exit 4 when wrong).
    package static func open(_ sealed: Sealed, passphrase: SecureBytes) throws(LommeError) -> (master: SecureBytes, plaintext: SecureBytes) {
        guard let (key, _) = try key(sealed, passphrase: passphrase) else {
            throw LommeError(.wrongPassphrase, .passphraseWrong, "wrong passphrase for this vault; try again")
        }
        return (key, try open(sealed, master: key))
    }

    /// Seals `plaintext` as a version 2 vault under the file key `key`.
    package static func seal(_ plaintext: SecureBytes, master key: SecureBytes, layout: VaultLayout,
                             nonce: [UInt8] = Sodium.randomBytes(XChaCha.nonceLength)) -> [UInt8] {
        var out = layout.checkedPart(nonce: nonce)
        out += check(out, checkKey: subkey(key, checkKeyID))
        let associated = out
        out += layout.slotTable
        return out + XChaCha.seal(plaintext, ad: associated, nonce: nonce, key: subkey(key, aeadKeyID))
    }
}

extension VaultFormat {
    /// A version 2 file with another slot table and everything else — header, key check,
    /// nonce, body — byte for byte the same (slots are outside the body's associated data).
    /// For adding, removing or noting the use of a slot without re-encrypting.
    package static func replacingSlots(_ sealed: Sealed, with slots: [VaultSlot]) -> [UInt8] {
        precondition(sealed.version == version2)
        let layout = VaultLayout(salt: sealed.salt, publicKeys: sealed.publicKeys ?? VaultPublicKeys(), slots: slots)
        return sealed.associatedData + layout.slotTable + sealed.body
    }
}
