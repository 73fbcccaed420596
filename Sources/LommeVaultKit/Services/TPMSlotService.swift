import LommeCore

/// Placeholder until the TPM layer lands (replaced in this branch before merging).
package struct TPMSlotService {
    let context: VaultContext
    package init(_ context: VaultContext) { self.context = context }
    package var opener: PassphraseChange.SlotOpener { { _, _ in nil } }
}
