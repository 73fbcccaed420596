import CSodium

/// XChaCha20-Poly1305-IETF, the vault's one AEAD: the body under the file key, and the
/// file key under each slot's key-encryption key.
package enum XChaCha {
    package static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    package static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
    package static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)

    package static func seal(_ message: SecureBytes, ad: [UInt8], nonce: [UInt8], key: SecureBytes) -> [UInt8] {
        precondition(nonce.count == nonceLength && key.count == keyLength)
        Sodium.initialize()
        var out = [UInt8](repeating: 0, count: message.count + tagLength)
        var length: UInt64 = 0
        Sodium.require(message.withUnsafeBytes { plain in
            key.withUnsafeBytes { keyBuffer in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &out, &length, plain.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(plain.count),
                    ad, UInt64(ad.count), nil, nonce, keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }, "crypto_aead_xchacha20poly1305_ietf_encrypt")
        return out
    }

    /// The plaintext in locked memory, or nil when `box` does not authenticate.
    package static func open(_ box: ArraySlice<UInt8>, ad: [UInt8], nonce: [UInt8], key: SecureBytes) -> SecureBytes? {
        guard box.count >= tagLength, nonce.count == nonceLength, key.count == keyLength else { return nil }
        Sodium.initialize()
        let cipher = Array(box)
        let plain = SecureBytes(count: cipher.count - tagLength)
        var length: UInt64 = 0
        let result = plain.withUnsafeMutableBytes { output in
            key.withUnsafeBytes { keyBuffer in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, nil, cipher, UInt64(cipher.count),
                    ad, UInt64(ad.count), nonce, keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return result == 0 ? plain : nil
    }
}
