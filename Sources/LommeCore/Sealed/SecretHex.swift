import CSodium

/// Secret keys as the vault's JSON holds them (hex), read straight into and written
/// straight from `SecureBytes`, so no plain array of the key is made on the way.
enum SecretHex {
    /// The bytes of `hex`, nil unless it is exactly `count` bytes of hex digits.
    static func decode(_ hex: String, count: Int) -> SecureBytes? {
        Sodium.initialize()
        let digits = Array(hex.utf8)
        guard digits.count == 2 * count else { return nil }
        let output = SecureBytes(count: count)
        var length = 0
        let result = output.withUnsafeMutableBytes { target in
            digits.withUnsafeBufferPointer { source in
                sodium_hex2bin(target.baseAddress!.assumingMemoryBound(to: UInt8.self), count,
                               UnsafeRawPointer(source.baseAddress!).assumingMemoryBound(to: CChar.self), source.count,
                               nil, &length, nil)
            }
        }
        return result == 0 && length == count ? output : nil
    }

    /// `bytes` as lower-case hex.
    static func encode(_ bytes: SecureBytes) -> String {
        Sodium.initialize()
        let text = SecureBytes(count: bytes.count * 2 + 1)
        return text.withUnsafeMutableBytes { target in
            let characters = target.baseAddress!.assumingMemoryBound(to: CChar.self)
            bytes.withUnsafeBytes { source in
                _ = sodium_bin2hex(characters, target.count, source.baseAddress!.assumingMemoryBound(to: UInt8.self), source.count)
            }
            return String(cString: characters)
        }
    }
}
