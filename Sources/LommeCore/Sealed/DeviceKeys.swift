/// A device's package receiving key (X25519) as people handle it: a checksummed text
/// (`lvk1…`, Bech32 like `age1…` keys) and a short fingerprint to compare by eye.
package struct ReceivingKey: Sendable, Hashable {
    package static let textPrefix = "lvk"
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == PublicKeyCrypto.boxPublicKeySize else { return nil }
        self.bytes = bytes
    }

    /// True when `text` looks like a receiving key's text (`lvk1…`, any case, spaces
    /// around): the one place that tells a key from a name (`issue --to`, a child's name).
    package static func looksLikeKey(_ text: String) -> Bool {
        text.trimmingASCIIWhitespace().lowercased().hasPrefix(textPrefix + "1")
    }

    /// Parses the text `lomme-vault key` prints (either case; spaces around are ignored).
    /// A key no one can receive with (all zeros, a low-order point) is refused, and so is a
    /// key not in its canonical encoding (bit 255 set, or a value of 2^255 − 19 or more):
    /// X25519 reads such a key as another 32 bytes would be read, so the same device would
    /// have two texts and compare as two keys. Both exit 64.
    package init(text: String) throws(LommeError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let data = Bech32.decode(trimmed, prefix: ReceivingKey.textPrefix), let key = ReceivingKey(bytes: data) else {
            if ReceivingKey.looksLikeKey(trimmed) {
                throw LommeError.usage(.receivingKeyTypo, "the receiving key has a typo (its checksum does not match); copy it again from `lomme-vault key`")
            }
            throw LommeError.usage(.receivingKeyMalformed, "that is not a receiving key (one starts with lvk1); run `lomme-vault key` on the child's device")
        }
        guard PublicKeyCrypto.isUsableBoxKey(key.bytes) else { throw LommeError.usage(.receivingKeyUnusable, ReceivingKey.unusableMessage) }
        guard ReceivingKey.isCanonical(key.bytes) else { throw LommeError.usage(.receivingKeyNotCanonical, ReceivingKey.nonCanonicalMessage) }
        self = key
    }

    /// A key as the vault stored it (a child's): a key stored before non-canonical keys were
    /// refused is read in its canonical form (what the device itself has), never refused, so
    /// such a vault still opens. Whether it is usable was checked when it was stored, and is
    /// again when a code is sealed to it (`isUsable`, crypto_box_seal): not at every read, which
    /// for a household of a thousand children was most of `child list`.
    package init?(stored text: String) {
        guard let data = Bech32.decode(text.trimmingASCIIWhitespace(), prefix: ReceivingKey.textPrefix),
              let key = ReceivingKey(bytes: ReceivingKey.canonical(data))
        else { return nil }
        self = key
    }

    package static let unusableMessage =
        "the receiving key is not a usable X25519 key (all zeros or a low-order point, which would give a code anyone can read or no one can open); copy the key again from `lomme-vault key` on the child's device"

    package static let nonCanonicalMessage =
        "the receiving key is not written the way `lomme-vault key` writes it (it is the non-canonical encoding of an X25519 key: bit 255 set, or 2^255 − 19 or more), so it could pass for another device's key; copy the key again from `lomme-vault key` on the child's device"

    /// True when `bytes` (little-endian) is below 2^255 − 19: bit 255 clear, and not one of
    /// the 19 values from 2^255 − 19 to 2^255 − 1 (0xed…0xff 0xff … 0x7f).
    package static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == PublicKeyCrypto.boxPublicKeySize, bytes[31] & 0x80 == 0 else { return false }
        let aboveP = bytes[31] == 0x7F && bytes[1...30].allSatisfy { $0 == 0xFF } && bytes[0] >= 0xED
        return !aboveP
    }

    /// The canonical encoding of the same X25519 u-coordinate: bit 255 cleared, then
    /// reduced modulo 2^255 − 19.
    static func canonical(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == PublicKeyCrypto.boxPublicKeySize else { return bytes }
        var out = bytes
        out[31] &= 0x7F
        if !isCanonical(out) {
            // 2^255 − 19 + k (k < 19) is k.
            out = [out[0] - 0xED] + [UInt8](repeating: 0, count: 31)
        }
        return out
    }

    /// False for a key no one can receive with (all zeros, a low-order point).
    package var isUsable: Bool { PublicKeyCrypto.isUsableBoxKey(bytes) }

    package var text: String { Bech32.encode(prefix: ReceivingKey.textPrefix, data: bytes) }

    /// The id an envelope names its recipient by.
    package var keyId: [UInt8] { Array(PublicKeyCrypto.hash(bytes).prefix(8)) }

    package var fingerprint: String { Fingerprint.of(bytes) }
}

/// Short, readable fingerprints: the first 10 bytes of BLAKE2b in Base32 (no look-alike
/// letters), grouped in fours: `K7QZ-M2XA-9PWD-RT4B`.
package enum Fingerprint {
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789".utf8)

    package static func of(_ key: [UInt8]) -> String {
        let digest = PublicKeyCrypto.hash(key).prefix(10)
        var bits = 0
        var value = 0
        var characters: [UInt8] = []
        for byte in digest {
            value = value << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(alphabet[(value >> bits) & 31])
            }
        }
        let text = String(decoding: characters.prefix(16), as: UTF8.self)
        return stride(from: 0, to: 16, by: 4).map { start in
            String(text.dropFirst(start).prefix(4))
        }.joined(separator: "-")
    }

    /// A fingerprint as typed, for comparing: capitals, without dashes or spaces.
    package static func normalized(_ text: String) -> String {
        String(text.uppercased().unicodeScalars.filter { $0 != "-" && $0 != " " })
    }
}

extension String {
    package func trimmingASCIIWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(scalars[first...last])
    }
}
