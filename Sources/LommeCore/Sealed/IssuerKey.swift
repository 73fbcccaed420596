/// The Ed25519 public key a parent's machine signs its sealed codes with (`lomme-vault key
/// --issuer` shows its fingerprint): what a child pins on first use, what a vouch names (by
/// its `id`) and what a receipt is sealed to.
package struct IssuerKey: SigningPublicKey {
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == PublicKeyCrypto.signPublicKeySize else { return nil }
        self.bytes = bytes
    }

    /// The id a vouch names this issuer by.
    package var id: IssuerID { IssuerID(of: self) }
}
