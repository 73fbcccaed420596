import LommeCore

/// The passphrase slot (PassphraseSlot: Argon2id of the passphrase): every vault has one,
/// the way in when a TPM or a key file is gone. `init` makes it and `passwd` changes it,
/// so `enroll` does not; `unlock` without `--with` (UnlockService.unlock) uses it.
package struct PassphraseSlotKind: SlotKind {
    package static let kind = VaultSlot.Kind.passphrase
    package static let name = "passphrase"
    package static let argument: String? = nil
    package static let options: Set<SlotOption> = []
    package static let enrollable = false

    package static func describe(_ parameters: [UInt8]) -> String? {
        PassphraseSlot(parameters: parameters)?.limits.description
    }

    package static func enrollAgain(_ parameters: [UInt8]) -> String { "lomme-vault passwd" }

    package static func provesAPerson(_ parameters: [UInt8]) -> Bool { true }

    let context: VaultContext
    package init(_ context: VaultContext) { self.context = context }

    package func make(vaultSalt: [UInt8], _ request: SlotRequest) throws(LommeError) -> SlotEnrollment {
        throw LommeError.usage("the passphrase slot is made by `lomme-vault init`; `lomme-vault passwd` changes it")
    }

    package func open(_ sealed: VaultFormat.Sealed, _ request: SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let (key, slot) = try Session.passphraseKey(context, sealed, UnlockOptions(noPrompt: request.noPrompt))
        return (key, slot ?? 0)
    }

    /// Only the slot the old passphrase opened is re-made, by `passwd` itself.
    package func rewrapKEK(_ slot: VaultSlot, from oldSalt: [UInt8], to newSalt: [UInt8], _ request: SlotRequest, asking: Bool) throws(LommeError) -> SecureBytes? { nil }
}
