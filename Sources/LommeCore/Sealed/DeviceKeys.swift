/// A device's package receiving key (X25519) as people handle it: a checksummed text
/// (`lvk1…`, Bech32 like `age1…` keys) and a short fingerprint to compare by eye.
package struct ReceivingKey: Sendable, Equatable {
    package static let textPrefix = "lvk"
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == PublicKeyCrypto.boxPublicKeySize else { return nil }
        self.bytes = bytes
    }

    /// Parses the text `lomme-vault key` prints (either case; spaces around are ignored).
    /// A key no one can receive with (all zeros, a low-order point) is refused: exit 64.
    package init(text: String) throws(LommeError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let data = Bech32.decode(trimmed, prefix: ReceivingKey.textPrefix), let key = ReceivingKey(bytes: data) else {
            if trimmed.lowercased().hasPrefix(ReceivingKey.textPrefix + "1") {
                throw LommeError.usage("the receiving key has a typo (its checksum does not match); copy it again from `lomme-vault key`")
            }
            throw LommeError.usage("that is not a receiving key (one starts with lvk1); run `lomme-vault key` on the child's device")
        }
        guard PublicKeyCrypto.isUsableBoxKey(key.bytes) else { throw LommeError.usage(ReceivingKey.unusableMessage) }
        self = key
    }

    package static let unusableMessage =
        "the receiving key is not a usable X25519 key (all zeros or a low-order point, which would give a code anyone can read or no one can open); copy the key again from `lomme-vault key` on the child's device"

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
