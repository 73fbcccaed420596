/// An Ed25519 public key in one role: one type per role (`IssuerKey` signs sealed codes,
/// `HouseholdKey` signs the household's statements), so one cannot be passed where the
/// other is meant, though both are the same 32 bytes, written the same way. A new role is
/// a new struct of a few lines; everything below comes with it.
package protocol SigningPublicKey: Sendable, Hashable {
    /// The 32 bytes, exactly as the vault and the codes carry them.
    var bytes: [UInt8] { get }
    /// Nil unless `bytes` is 32 bytes long.
    init?(bytes: [UInt8])
}

extension SigningPublicKey {
    package static var size: Int { PublicKeyCrypto.signPublicKeySize }

    /// The key from its hex text (as the vault's JSON keeps it); nil when it is not 32 bytes of hex.
    package init?(hex: String) {
        guard let bytes = Sodium.unhex(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// Lower-case hex, as the vault's JSON keeps it.
    package var hex: String { Sodium.hex(bytes) }

    /// The short fingerprint people compare (`K7QZ-M2XA-9PWD-RT4B`).
    package var fingerprint: String { Fingerprint.of(bytes) }

    /// True when `signature` is this key's Ed25519 signature of `message`.
    package func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        PublicKeyCrypto.verify(signature, of: message, publicKey: bytes)
    }
}
