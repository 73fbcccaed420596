import ArgumentParser
import LommeCore

struct LommeVaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lomme-vault",
        abstract: "Move a bank API configuration by QR code and keep it sealed.",
        discussion: """
            A parent issues the configuration as a QR code (`issue`, sealed to the child's receiving key \
            with --to, or plain); the child photographs it and imports it (`import`) into a vault sealed \
            with a passphrase (Argon2id, XChaCha20-Poly1305); other programs read it with `get`, `exec` \
            or `token`. `unlock` keeps the derived key in the kernel keyring for the login, the way \
            Face ID unlocks the phone app; `lock` forgets it.

            Passphrases come from the terminal (no echo), --passphrase-fd N or --passphrase-file PATH; \
            never from the command line or a plain environment variable. Messages go to stderr; \
            stdout carries only data.

            FILES AND ENVIRONMENT: the vault is --vault PATH, else $LOMME_VAULT, else \
            $XDG_DATA_HOME/lomme-vault/vault (~/.local/share/lomme-vault/vault), mode 0600 in a 0700 \
            directory, with PATH.bak (the last good version) and PATH.lock. LOMME_VAULT_KDF \
            (calibrate, moderate, interactive, minimum) sets the key derivation cost of a new vault or \
            passphrase; LOMME_VAULT_KEYRING=off never keeps the vault unlocked.

            EXIT CODES: 0 success (also "unchanged": the value was stored already); 1 any other \
            failure (a question answered no, output that could not be written to stdout, a TPM \
            in lockout, a TPM without a lockout \
            authorization on `enroll tpm2 --pin`, a child's name or key taken); 2 no QR code found, or \
            the image cannot be read; 3 vault locked and no prompt possible; 4 wrong passphrase, TPM \
            PIN or key file; 5 vault file damaged or tampered with; 6 no vault (`lock` and `status` \
            too), no such field, no such child, no stored config; 7 payload or value refused (not a \
            config, a rule failed, expired, tampered, not for this device, older than the stored \
            one); 8 token endpoint unreachable or refused the credentials; 64 usage error.
            """,
        version: LommeVersion.string,
        subcommands: [
            Init.self, Issue.self, Import.self, Scan.self, Get.self, Exec.self, SetCommand.self, UnsetCommand.self, ChildCommand.self,
            ReceiptCommand.self, RecoveryCommand.self, ParentCommand.self, Sync.self, Unlock.self, Lock.self,
            Status.self, Passwd.self, Export.self, Key.self, Token.self, Enroll.self, Slots.self, Unenroll.self,
        ]
    )
}
