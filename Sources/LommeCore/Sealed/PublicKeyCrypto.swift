import CSodium

/// libsodium's public-key boxes and signatures, behind Swift arrays. Secret keys stay in
/// `SecureBytes`; every libsodium return value is checked.
enum PublicKeyCrypto {
    static let boxPublicKeySize = Int(crypto_box_PUBLICKEYBYTES)
    static let boxSecretKeySize = Int(crypto_box_SECRETKEYBYTES)
    static let sealOverhead = crypto_box_sealbytes()
    static let signPublicKeySize = Int(crypto_sign_PUBLICKEYBYTES)
    static let signSecretKeySize = Int(crypto_sign_SECRETKEYBYTES)
    static let signatureSize = Int(crypto_sign_BYTES)
    static let seedSize = 32

    static func ready() { Sodium.initialize() }

    static func randomBytes(_ count: Int) -> [UInt8] { Sodium.randomBytes(count) }

    typealias Seeded = (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>, UnsafePointer<UInt8>) -> Int32
    typealias Random = (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Int32

    /// An X25519 key pair, from a 32-byte seed (fixed keys for test vectors) or at random.
    static func boxKeyPair(seed: [UInt8]? = nil) -> (publicKey: [UInt8], secretKey: SecureBytes) {
        keyPair(publicSize: boxPublicKeySize, secretSize: boxSecretKeySize, seed: seed, seeded: crypto_box_seed_keypair, random: crypto_box_keypair)
    }

    /// An Ed25519 key pair, from a 32-byte seed or at random.
    static func signKeyPair(seed: [UInt8]? = nil) -> (publicKey: [UInt8], secretKey: SecureBytes) {
        keyPair(publicSize: signPublicKeySize, secretSize: signSecretKeySize, seed: seed, seeded: crypto_sign_seed_keypair, random: crypto_sign_keypair)
    }

    /// A key pair from libsodium's `seeded` or `random` generator, the secret key made in place in `SecureBytes`.
    private static func keyPair(publicSize: Int, secretSize: Int, seed: [UInt8]?, seeded: Seeded, random: Random)
        -> (publicKey: [UInt8], secretKey: SecureBytes)
    {
        ready()
        var publicKey = [UInt8](repeating: 0, count: publicSize)
        let secretKey = SecureBytes(count: secretSize)
        let result = secretKey.withUnsafeMutableBytes { secret in
            let target = secret.baseAddress!.assumingMemoryBound(to: UInt8.self)
            guard let seed else { return random(&publicKey, target) }
            precondition(seed.count == seedSize)
            return seed.withUnsafeBufferPointer { seeded(&publicKey, target, $0.baseAddress!) }
        }
        Sodium.require(result, "key generation")
        return (publicKey, secretKey)
    }

    /// The X25519 package key of `secretKey`, nil when libsodium refuses it.
    static func boxPublicKey(of secretKey: SecureBytes) -> [UInt8]? {
        ready()
        guard secretKey.count == boxSecretKeySize else { return nil }
        var publicKey = [UInt8](repeating: 0, count: boxPublicKeySize)
        let result = secretKey.withUnsafeBytes { crypto_scalarmult_base(&publicKey, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        return result == 0 ? publicKey : nil
    }

    /// False for an X25519 package key no one can receive with: all zeros or any point of
    /// small order (any encoding of it). Multiplying such a point by a clamped scalar gives
    /// the all-zero point, which `crypto_scalarmult` reports as failure.
    static func isUsableBoxKey(_ publicKey: [UInt8]) -> Bool {
        ready()
        guard publicKey.count == boxPublicKeySize else { return false }
        // A throwaway scalar, secret to no one: plain arrays, wiped, no locked pages to map.
        var scalar = randomBytes(Int(crypto_scalarmult_SCALARBYTES))
        var shared = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        defer {
            wipe(&scalar)
            wipe(&shared)
        }
        return crypto_scalarmult(&shared, scalar, publicKey) == 0
    }

    /// `crypto_box_seal`; nil when libsodium refuses the key (a low-order point).
    static func seal(_ message: [UInt8], to publicKey: [UInt8]) -> [UInt8]? {
        ready()
        guard publicKey.count == boxPublicKeySize else { return nil }
        var output = [UInt8](repeating: 0, count: message.count + sealOverhead)
        guard crypto_box_seal(&output, message, UInt64(message.count), publicKey) == 0 else { return nil }
        return output
    }

    static func openSealed(_ box: [UInt8], publicKey: [UInt8], secretKey: SecureBytes) -> [UInt8]? {
        ready()
        guard box.count >= sealOverhead, publicKey.count == boxPublicKeySize, secretKey.count == boxSecretKeySize else { return nil }
        var output = [UInt8](repeating: 0, count: box.count - sealOverhead)
        let result = secretKey.withUnsafeBytes { secret in
            crypto_box_seal_open(&output, box, UInt64(box.count), publicKey, secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard result == 0 else {
            wipe(&output)
            return nil
        }
        return output
    }

    static func sign(_ message: [UInt8], secretKey: SecureBytes) -> [UInt8] {
        ready()
        precondition(secretKey.count == signSecretKeySize)
        var signature = [UInt8](repeating: 0, count: signatureSize)
        let result = secretKey.withUnsafeBytes { secret in
            crypto_sign_detached(&signature, nil, message, UInt64(message.count), secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        Sodium.require(result, "crypto_sign_detached")
        return signature
    }

    static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        ready()
        guard signature.count == signatureSize, publicKey.count == signPublicKeySize else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// BLAKE2b of `count` bytes (the key ids and fingerprints).
    static func hash(_ bytes: [UInt8], count: Int = 32) -> [UInt8] { Sodium.blake2b(bytes, length: count) }
}

extension PublicKeyCrypto {
    /// Overwrites `bytes` with zeros in a way the compiler cannot drop.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}

// MARK: - Authenticated boxes between two static keys (receipts)

extension PublicKeyCrypto {
    static let boxNonceSize = Int(crypto_box_NONCEBYTES)
    static let boxMACSize = Int(crypto_box_MACBYTES)

    /// The X25519 form of an Ed25519 public key (`crypto_sign_ed25519_pk_to_curve25519`),
    /// nil for a key libsodium refuses (not a point, or of small order).
    static func boxKey(ofSigningKey publicKey: [UInt8]) -> [UInt8]? {
        ready()
        guard publicKey.count == signPublicKeySize else { return nil }
        var output = [UInt8](repeating: 0, count: boxPublicKeySize)
        guard crypto_sign_ed25519_pk_to_curve25519(&output, publicKey) == 0 else { return nil }
        return output
    }

    /// The X25519 form of an Ed25519 secret key (`crypto_sign_ed25519_sk_to_curve25519`).
    static func boxSecretKey(ofSigningKey secretKey: SecureBytes) -> SecureBytes {
        ready()
        precondition(secretKey.count == signSecretKeySize)
        let output = SecureBytes(count: boxSecretKeySize)
        let result = output.withUnsafeMutableBytes { out in
            secretKey.withUnsafeBytes { secret in
                crypto_sign_ed25519_sk_to_curve25519(out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                     secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        Sodium.require(result, "crypto_sign_ed25519_sk_to_curve25519")
        return output
    }

    /// `crypto_box_easy`: `message` from `secretKey`'s owner to `publicKey`, under `nonce`.
    /// nil when libsodium refuses the keys (a low-order point).
    static func box(_ message: [UInt8], nonce: [UInt8], to publicKey: [UInt8], from secretKey: SecureBytes) -> [UInt8]? {
        ready()
        guard nonce.count == boxNonceSize, publicKey.count == boxPublicKeySize, secretKey.count == boxSecretKeySize else { return nil }
        var output = [UInt8](repeating: 0, count: message.count + boxMACSize)
        let result = secretKey.withUnsafeBytes { secret in
            crypto_box_easy(&output, message, UInt64(message.count), nonce, publicKey,
                            secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return result == 0 ? output : nil
    }

    /// `crypto_box_open_easy`: nil unless the box was made by `publicKey`'s owner for `secretKey`'s.
    static func openBox(_ box: [UInt8], nonce: [UInt8], from publicKey: [UInt8], to secretKey: SecureBytes) -> [UInt8]? {
        ready()
        guard box.count >= boxMACSize, nonce.count == boxNonceSize, publicKey.count == boxPublicKeySize,
            secretKey.count == boxSecretKeySize
        else { return nil }
        var output = [UInt8](repeating: 0, count: box.count - boxMACSize)
        let result = secretKey.withUnsafeBytes { secret in
            crypto_box_open_easy(&output, box, UInt64(box.count), nonce, publicKey,
                                 secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard result == 0 else {
            wipe(&output)
            return nil
        }
        return output
    }
}
