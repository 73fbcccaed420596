/// A parent's machine in one text, for `parent add`: its receiving key (what the household
/// is handed over and journals are sealed to) and its issuer key (what signs its codes and
/// journals), `lvp1…` — Bech32 of the 32 X25519 bytes and the 32 Ed25519 bytes, with
/// Bech32's checksum (docs/SYNC.md, "The parent key"). `key --parent` prints it and draws
/// it as a QR code (upper case, alphanumeric mode).
package struct ParentKey: Sendable, Equatable {
    package static let textPrefix = "lvp"
    package let receiving: ReceivingKey
    /// The issuer's Ed25519 public key.
    package let issuer: IssuerKey

    package init(receiving: ReceivingKey, issuer: IssuerKey) {
        self.receiving = receiving
        self.issuer = issuer
    }

    package var text: String { Bech32.encode(prefix: ParentKey.textPrefix, data: receiving.bytes + issuer.bytes) }

    /// True when `text` looks like a parent key (`lvp1…`, any case, spaces around).
    package static func looksLikeKey(_ text: String) -> Bool {
        text.trimmingASCIIWhitespace().lowercased().hasPrefix(textPrefix + "1")
    }

    /// Reads the text `key --parent` prints (either case; spaces around ignored). A typo,
    /// another kind of key, or a receiving key no one can receive with is exit 64.
    package init(text: String) throws(LommeError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let data = Bech32.decode(trimmed, prefix: ParentKey.textPrefix), data.count == 64 else {
            if ParentKey.looksLikeKey(trimmed) {
                throw LommeError.usage(.parentKeyTypo, "the parent key has a typo (its checksum does not match); copy it again from `lomme-vault key --parent` on the other parent's machine")
            }
            if ReceivingKey.looksLikeKey(trimmed) {
                throw LommeError.usage(.parentKeyNotOne, "that is a receiving key (lvk1…), not a parent key; on the other parent's machine run `lomme-vault key --parent`, which prints one starting with lvp1")
            }
            throw LommeError.usage(.parentKeyNotOne, "that is not a parent key (one starts with lvp1); run `lomme-vault key --parent` on the other parent's machine")
        }
        guard let receiving = ReceivingKey(bytes: Array(data.prefix(32))), PublicKeyCrypto.isUsableBoxKey(receiving.bytes),
              ReceivingKey.isCanonical(receiving.bytes) else {
            throw LommeError.usage(.parentKeyNotOne, ReceivingKey.unusableMessage)
        }
        self.init(receiving: receiving, issuer: IssuerKey(bytes: Array(data.suffix(32)))!)
    }

    /// The two fingerprints a parent compares with the other machine's screen.
    package var fingerprints: (receiving: String, issuer: String) { (receiving.fingerprint, issuer.fingerprint) }
}
