/// A TPM 2.0 slot's parameters: flags (bit 0: a PIN is needed), the SHA-256 PCRs the
/// object is bound to (a u32 mask, bit i = PCR i), the PIN salt (16), and the TPM's own
/// blobs, each after a u16 length: the storage primary key's Name at enrollment, the
/// sealed object's TPM2B_PUBLIC and TPM2B_PRIVATE (marshalled). The TPM holds a random
/// 32-byte key-encryption key; the slot's wrapped file key opens with it.
package struct TPM2Slot: Sendable, Equatable {
    package var withPIN: Bool
    package var pcrs: [Int]
    package var pinSalt: [UInt8]
    package var primaryName: [UInt8]
    package var publicArea: [UInt8]
    package var privateArea: [UInt8]

    package static let pcrCount = 24
    static let pinDomain: [UInt8] = Array("lomme-vault tpm2 pin v2".utf8) + [0]

    package init(withPIN: Bool, pcrs: [Int], pinSalt: [UInt8], primaryName: [UInt8], publicArea: [UInt8], privateArea: [UInt8]) {
        self.withPIN = withPIN
        self.pcrs = pcrs.sorted()
        self.pinSalt = pinSalt
        self.primaryName = primaryName
        self.publicArea = publicArea
        self.privateArea = privateArea
    }

    package var parameters: [UInt8] {
        let mask = pcrs.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
        var out = [UInt8(withPIN ? 1 : 0)] + mask.littleEndianBytes + pinSalt
        out.appendLengthPrefixed(primaryName)
        out.appendLengthPrefixed(publicArea)
        out.appendLengthPrefixed(privateArea)
        return out
    }

    /// Nil when the parameters are not such a slot's.
    package init?(parameters: [UInt8]) {
        var reader = ByteReader(parameters)
        guard let flags = reader.byte(), flags & ~1 == 0, let mask = reader.little(UInt32.self),
              mask >> UInt32(Self.pcrCount) == 0, let salt = reader.take(16),
              let name = reader.lengthPrefixed(), let publicArea = reader.lengthPrefixed(),
              let privateArea = reader.lengthPrefixed(), reader.isAtEnd
        else { return nil }
        self.init(withPIN: flags == 1, pcrs: (0..<Self.pcrCount).filter { mask & (1 << UInt32($0)) != 0 },
                  pinSalt: salt, primaryName: name, publicArea: publicArea, privateArea: privateArea)
    }

    /// The sealed object's auth value: keyed BLAKE2b-256 of the PIN, keyed by the vault's
    /// salt and this slot's PIN salt, so the same PIN gives another value in every slot
    /// and every vault. No slow KDF: the TPM's dictionary-attack lockout limits guesses,
    /// and without the TPM the sealed object cannot be tried at all.
    package static func authValue(pin: SecureBytes, pinSalt: [UInt8], vaultSalt: [UInt8]) -> SecureBytes {
        let key = SecureBytes(copying: vaultSalt + pinSalt)
        var message = pinDomain + pin.bytes
        defer { SecureBytes.wipe(&message) }
        return SecureBytes(copying: Sodium.blake2b(message, length: 32, key: key))
    }

    /// "PCR 7", "PCRs 0+7", or "no PCRs".
    package static func describe(_ pcrs: [Int]) -> String {
        switch pcrs.count {
        case 0: "no PCRs"
        case 1: "PCR \(pcrs[0])"
        default: "PCRs " + pcrs.map(String.init).joined(separator: "+")
        }
    }

    /// Reads `--pcrs`: "7", "0+7", "0,7"; nil when a number is outside 0…23 or repeated.
    package static func parsePCRs(_ text: String) -> [Int]? {
        let parts = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "+" || $0 == "," })
        var out: [Int] = []
        for part in parts {
            guard let value = Int(part), (0..<pcrCount).contains(value), !out.contains(value) else { return nil }
            out.append(value)
        }
        return out.isEmpty ? nil : out.sorted()
    }
}
