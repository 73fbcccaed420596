import LommeCore

extension SlotKind {
    /// The passphrase slot (PassphraseSlot: Argon2id of the passphrase): every vault has one,
    /// the way in when a TPM or a key file is gone. `init` makes it and `passwd` changes it,
    /// so `enroll` does not; `unlock` without `--with` (UnlockService.unlock) uses it. Its
    /// slots take no new file key from `rewrap`: `passwd` re-makes the one the old
    /// passphrase opened itself.
    package static let passphrase = SlotKind(
        name: "passphrase", byte: .passphrase, enrollable: false,
        help: Help(unlock: "--with passphrase (the default) asks the passphrase."),
        facts: { parameters in
            PassphraseSlot(parameters: parameters).map { SlotFacts(details: $0.limits.description, provesAPerson: true, enrollAgain: "lomme-vault passwd") }
        },
        make: { _, _ throws(LommeError) in
            throw LommeError.usage(.slotKindNotEnrollable, "the passphrase slot is made by `lomme-vault init`; `lomme-vault passwd` changes it")
        },
        open: { context, sealed, request throws(LommeError) in
            let (key, slot) = try Session.passphraseKey(context, sealed, UnlockOptions(noPrompt: request.noPrompt))
            return (key, slot ?? 0)
        })
}
