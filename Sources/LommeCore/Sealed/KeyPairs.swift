/// A device's receiving key pair (X25519), kept in the vault. The secret key lives in
/// `SecureBytes` (sodium-allocated, locked, wiped on free) from the moment it is read.
package struct ReceivingKeyPair: Sendable {
    package let publicKey: ReceivingKey
    package let secretKey: SecureBytes

    package static func generate(seed: [UInt8]? = nil) -> ReceivingKeyPair {
        let pair = PublicKeyCrypto.boxKeyPair(seed: seed)
        return ReceivingKeyPair(publicKey: ReceivingKey(bytes: pair.publicKey)!, secretKey: pair.secretKey)
    }

    /// nil unless both keys have their sizes and the secret key really belongs to the package one.
    package init?(publicKey: [UInt8], secretKey: SecureBytes) {
        guard let key = ReceivingKey(bytes: publicKey), secretKey.count == PublicKeyCrypto.boxSecretKeySize,
            PublicKeyCrypto.boxPublicKey(of: secretKey) == publicKey
        else { return nil }
        self.init(publicKey: key, secretKey: secretKey)
    }

    init(publicKey: ReceivingKey, secretKey: SecureBytes) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// A device's signing key pair (Ed25519), for issuing sealed codes; kept in the vault.
package struct SigningKeyPair: Sendable {
    package let publicKey: [UInt8]
    package let secretKey: SecureBytes

    package static func generate(seed: [UInt8]? = nil) -> SigningKeyPair {
        let pair = PublicKeyCrypto.signKeyPair(seed: seed)
        return SigningKeyPair(checkedPublicKey: pair.publicKey, secretKey: pair.secretKey)
    }

    /// nil unless both keys have their sizes.
    package init?(publicKey: [UInt8], secretKey: SecureBytes) {
        guard publicKey.count == PublicKeyCrypto.signPublicKeySize, secretKey.count == PublicKeyCrypto.signSecretKeySize else {
            return nil
        }
        self.init(checkedPublicKey: publicKey, secretKey: secretKey)
    }

    init(checkedPublicKey: [UInt8], secretKey: SecureBytes) {
        publicKey = checkedPublicKey
        self.secretKey = secretKey
    }

    package var fingerprint: String { Fingerprint.of(publicKey) }
}
