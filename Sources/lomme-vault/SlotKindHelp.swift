import LommeVaultKit

/// What each kind of key slot does, in the words of `enroll --help`, `unlock --help` and the
/// man page: the help text, apart from the kinds' crypto (LommeVaultKit's `SlotKind`s).
enum SlotKindHelp {
    /// What `enroll NAME` does (one or two sentences); empty for a kind not enrolled.
    static func enroll(_ kind: any SlotKind.Type) -> String {
        switch kind.name {
        case "passphrase":
            return ""
        case "tpm2":
            return """
            `enroll tpm2` seals a slot to this machine's TPM 2.0 (/dev/tpmrm0, or the TCTI in LOMME_VAULT_TPM). With --pin \
            (asked twice, or --pin-fd/--pin-file; at least 6 characters) `unlock --with tpm2` asks the PIN and the TPM locks \
            out after a few wrong ones; a TPM whose lockout authorization is empty lets any local user reset that count, so \
            enroll refuses it, or a TPM that does not say, unless --force (`tpm2_changeauth -c lockout` sets one). No TPM is \
            said before anything is asked. Without --pin, the slot opens with no \
            question on this machine: a stolen copy of the vault file is useless elsewhere, but anyone who can run programs \
            as you here can open it. --pcrs binds the slot to those PCRs as they are now (as systemd-cryptenroll --tpm2-pcrs).
            """
        case "keyfile":
            return """
            `enroll keyfile PATH` creates PATH (never over an existing file) with 32 random bytes, mode 0400; \
            `unlock --with keyfile PATH` opens the vault with it and no question, so whoever copies the file opens the \
            vault: keep it on a USB stick, out of backups and synced folders.
            """
        case "recovery":
            return "A recovery slot is made with the recovery kit (`lomme-vault init --parent`, `lomme-vault recovery kit`), not by enroll."
        default: return ""
        }
    }

    /// What `unlock --with NAME` asks or reads.
    static func unlock(_ kind: any SlotKind.Type) -> String {
        switch kind.name {
        case "passphrase":
            return "--with passphrase (the default) asks the passphrase."
        case "tpm2":
            return "--with tpm2 asks only the TPM slot's PIN (or none)."
        case "keyfile":
            return "--with keyfile PATH reads the key file `enroll keyfile` made (mode 0400; a file others may read is refused)."
        case "recovery":
            return "--with recovery reads the household's recovery key (the terminal, --recovery-file PATH or --recovery-image PHOTO of the kit); then `lomme-vault passwd` sets a new passphrase."
        default: return ""
        }
    }
}
