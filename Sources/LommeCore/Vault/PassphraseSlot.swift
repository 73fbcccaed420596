/// A passphrase slot's parameters: KDF id (1 = Argon2id13), opslimit (u32), memlimit
/// (u64), salt (16). Its key-encryption key is Argon2id(passphrase, salt, limits) — the
/// same derivation as a version 1 vault's master key, which is how a v1 vault becomes a
/// v2 one without asking for the passphrase (`VaultSealing.reseal` in LommeVaultKit).
package struct PassphraseSlot: Sendable, Equatable {
    package var limits: KDFLimits
    package var salt: [UInt8]

    package init(limits: KDFLimits, salt: [UInt8]) {
        self.limits = limits
        self.salt = salt
    }

    package var parameters: [UInt8] {
        [VaultFormat.kdfArgon2id13] + limits.opslimit.littleEndianBytes + limits.memlimit.littleEndianBytes + salt
    }

    /// Nil when the parameters are not such a slot's.
    package init?(parameters: [UInt8]) {
        var reader = ByteReader(parameters)
        guard reader.byte() == VaultFormat.kdfArgon2id13, let ops = reader.little(UInt32.self),
              let mem = reader.little(UInt64.self), let salt = reader.take(KDF.saltLength), reader.isAtEnd
        else { return nil }
        self.init(limits: KDFLimits(opslimit: ops, memlimit: mem), salt: salt)
    }

    /// The key-encryption key (runs Argon2id; refuses limits beyond the caps first).
    package func kek(_ passphrase: SecureBytes) throws(LommeError) -> SecureBytes {
        try KDF.derive(passphrase: passphrase, salt: salt, limits: limits)
    }

    /// A new slot for `passphrase` holding `fileKey`: fresh salt.
    package static func make(_ fileKey: SecureBytes, kek: SecureBytes, slot: PassphraseSlot, id: UInt8, created: UInt64,
                             vaultSalt: [UInt8]) -> VaultSlot {
        VaultSlot.wrap(fileKey, kind: .passphrase, id: id, created: created, parameters: slot.parameters, kek: kek, vaultSalt: vaultSalt)
    }
}
