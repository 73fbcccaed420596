/// The public half of the household key (Ed25519), derived from the recovery key: it signs
/// the vouch that says which issuers speak for the household, and each rotation to the key
/// of a newer kit. A parent's vault keeps it in `root`, a child's device pins it beside the
/// issuer; the recovery kit and `status` show its fingerprint.
package struct HouseholdKey: SigningPublicKey {
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == PublicKeyCrypto.signPublicKeySize else { return nil }
        self.bytes = bytes
    }
}
