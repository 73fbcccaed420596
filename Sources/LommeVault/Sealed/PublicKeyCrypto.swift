import CSodium

/// libsodium's public-key boxes and signatures, behind Swift arrays.
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

    /// An X25519 key pair, from a 32-byte seed (fixed keys for test vectors) or at random.
    static func boxKeyPair(seed: [UInt8]? = nil) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        ready()
        var publicKey = [UInt8](repeating: 0, count: boxPublicKeySize)
        var secretKey = [UInt8](repeating: 0, count: boxSecretKeySize)
        if let seed {
            precondition(seed.count == seedSize)
            crypto_box_seed_keypair(&publicKey, &secretKey, seed)
        } else {
            crypto_box_keypair(&publicKey, &secretKey)
        }
        return (publicKey, secretKey)
    }

    /// An Ed25519 key pair, from a 32-byte seed or at random.
    static func signKeyPair(seed: [UInt8]? = nil) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        ready()
        var publicKey = [UInt8](repeating: 0, count: signPublicKeySize)
        var secretKey = [UInt8](repeating: 0, count: signSecretKeySize)
        if let seed {
            precondition(seed.count == seedSize)
            crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        } else {
            crypto_sign_keypair(&publicKey, &secretKey)
        }
        return (publicKey, secretKey)
    }

    static func seal(_ message: [UInt8], to publicKey: [UInt8]) -> [UInt8] {
        ready()
        var output = [UInt8](repeating: 0, count: message.count + sealOverhead)
        crypto_box_seal(&output, message, UInt64(message.count), publicKey)
        return output
    }

    static func openSealed(_ box: [UInt8], publicKey: [UInt8], secretKey: [UInt8]) -> [UInt8]? {
        ready()
        guard box.count >= sealOverhead else { return nil }
        var output = [UInt8](repeating: 0, count: box.count - sealOverhead)
        guard crypto_box_seal_open(&output, box, UInt64(box.count), publicKey, secretKey) == 0 else { return nil }
        return output
    }

    static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        ready()
        var signature = [UInt8](repeating: 0, count: signatureSize)
        crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
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
