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

/// An Ed25519 key pair, its role named by its public half's type: the device's issuer pair
/// (`IssuerKeyPair`, kept in the vault, signs sealed codes) or the household key's
/// (`HouseholdKeyPair`, derived from the recovery key when it is typed, never kept).
package struct SigningKeyPair<PublicKey: SigningPublicKey>: Sendable {
    package let publicKey: PublicKey
    package let secretKey: SecureBytes

    package static func generate(seed: [UInt8]? = nil) -> SigningKeyPair {
        let pair = PublicKeyCrypto.signKeyPair(seed: seed)
        return SigningKeyPair(publicKey: PublicKey(bytes: pair.publicKey)!, secretKey: pair.secretKey)
    }

    /// nil unless both keys have their sizes.
    package init?(publicKey: [UInt8], secretKey: SecureBytes) {
        guard let key = PublicKey(bytes: publicKey), secretKey.count == PublicKeyCrypto.signSecretKeySize else { return nil }
        self.init(publicKey: key, secretKey: secretKey)
    }

    init(publicKey: PublicKey, secretKey: SecureBytes) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    package var fingerprint: String { publicKey.fingerprint }
}

/// This device's issuer key pair (`device.signing` in the vault).
package typealias IssuerKeyPair = SigningKeyPair<IssuerKey>
/// The household key's pair, derived from the recovery key (`RecoveryKey.householdKey`).
package typealias HouseholdKeyPair = SigningKeyPair<HouseholdKey>
