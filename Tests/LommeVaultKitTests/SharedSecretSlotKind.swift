import LommeCore
import LommeVaultKit

/// A kind of slot LommeVaultKit does not know, made by the tests alone, as a new kind is
/// made in `Sources/LommeVaultKit/Slots`: one file, and one registration where a context
/// should know it (`SlotKinds.builtIn.adding(.sharedSecret)`). A 32-byte secret given in
/// the request (its own option, `SlotOption.sharedSecret`) opens the vault: the slot's
/// key-encryption key is keyed BLAKE2b-256 of a domain, the vault's salt and the slot's
/// salt, keyed by the secret. Kind byte 0x7f, no byte of this version's.
extension SlotKind {
    static let sharedSecret: SlotKind = SlotKind(
        name: "shared-secret", byte: VaultSlot.Kind(rawValue: 0x7F), options: [.sharedSecret], enrollable: true,
        help: Help(enroll: "`enroll shared-secret` takes a secret handed over.", unlock: "--with shared-secret opens with it."),
        facts: { parameters in
            parameters.count == SharedSecret.saltLength
                ? SlotFacts(details: "shared secret", provesAPerson: false, enrollAgain: "enroll shared-secret") : nil
        },
        make: { _, request throws(LommeError) in
            let secret = try SharedSecret.given(request)
            return { vaultSalt in
                let salt = Sodium.randomBytes(SharedSecret.saltLength)
                return SlotEnrollment(parameters: salt, kek: SharedSecret.kek(secret, vaultSalt: vaultSalt, slotSalt: salt), summary: "shared secret")
            }
        },
        open: { _, sealed, request throws(LommeError) in
            let secret = try SharedSecret.given(request)
            for slot in sealed.slots where slot.kind == SlotKind.sharedSecret.byte && slot.parameters.count == SharedSecret.saltLength {
                if let key = slot.unwrap(kek: SharedSecret.kek(secret, vaultSalt: sealed.salt, slotSalt: slot.parameters), vaultSalt: sealed.salt) {
                    return (key, slot.id)
                }
            }
            throw LommeError(.wrongPassphrase, .passphraseWrong, "that secret opens no shared-secret slot")
        })
}

extension SlotOption {
    /// The secret (`SecureBytes`).
    static let sharedSecret = SlotOption("shared-secret")
}

enum SharedSecret {
    static let saltLength = 16
    static let domain: [UInt8] = Array("lomme-vault test shared secret".utf8) + [0]

    static func given(_ request: SlotRequest) throws(LommeError) -> SecureBytes {
        guard let secret = request.options[.sharedSecret] as? SecureBytes, secret.count == 32 else {
            throw LommeError.usage(.usage, "a shared-secret slot needs its 32-byte secret")
        }
        return secret
    }

    static func kek(_ secret: SecureBytes, vaultSalt: [UInt8], slotSalt: [UInt8]) -> SecureBytes {
        SecureBytes(copying: Sodium.blake2b(domain + vaultSalt + slotSalt, length: XChaCha.keyLength, key: secret))
    }
}
