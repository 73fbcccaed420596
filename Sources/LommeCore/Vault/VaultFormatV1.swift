/// Version 1 vault files, read only (docs/FORMAT.md, "Version 1"): a 96-byte header —
/// magic, version 1, KDF id, flags, opslimit (u32), memlimit (u64), salt (16), nonce (24),
/// key check (32) — then the body, sealed under Argon2id(passphrase) itself. Upgraded to
/// version 2 at the next write (`VaultSealing.reseal` in LommeVaultKit).
enum VaultFormatV1 {
    static let checkedLength = 64
    static let headerLength = 96

    static func parse(_ bytes: [UInt8]) throws(LommeError) -> VaultFormat.Sealed {
        guard bytes.count >= headerLength + VaultFormat.tagLength else { throw VaultFormat.damaged("it is too short") }
        guard bytes[9] == VaultFormat.kdfArgon2id13 else { throw VaultFormat.damaged("unknown KDF id \(bytes[9])") }
        guard bytes[10] == 0, bytes[11] == 0 else { throw VaultFormat.damaged("unknown header flags") }
        let limits = KDFLimits(opslimit: UInt32(littleEndianBytes: bytes[12..<16]), memlimit: UInt64(littleEndianBytes: bytes[16..<24]))
        guard limits.isWithinCaps else {
            throw VaultFormat.damaged("its KDF limits, \(limits.opslimit) passes and \(limits.memlimit) bytes, are outside what lomme-vault allows", .kdfParametersOutOfRange)
        }
        return VaultFormat.Sealed(version: VaultFormat.version1, bytes: bytes, salt: Array(bytes[24..<40]), nonce: Array(bytes[40..<64]),
                                  checkedEnd: checkedLength, bodyStart: headerLength, slots: [], publicKeys: nil, v1Limits: limits)
    }
}
