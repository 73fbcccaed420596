import LommeCore

/// The configuration a front end gives the library as a value: which vault, the KDF
/// setting for new passphrases, whether the kernel keyring may be used. The CLI fills it
/// from `--vault` and the environment; the library never reads the environment itself.
package struct VaultSettings: Sendable {
    package var store: VaultStore
    /// `LOMME_VAULT_KDF`: calibrate (nil or empty too), moderate, interactive, minimum.
    package var kdf: String?
    /// Off with `LOMME_VAULT_KEYRING=off`: as if the kernel refused the keyring.
    package var keyring: Keyring
    /// `LOMME_VAULT_TPM`: the TCTI string of the TPM (nil: `device:/dev/tpmrm0`).
    package var tpm: String?

    package init(store: VaultStore, kdf: String? = nil, keyring: Keyring = Keyring(), tpm: String? = nil) {
        self.store = store
        self.kdf = kdf
        self.keyring = keyring
        self.tpm = tpm
    }

    /// The settings `option` (`--vault`) and `environment` (the variables' values) say.
    package init(option: String?, environment: [String: String]) throws(LommeError) {
        self.init(store: try VaultStore.resolve(option: option, environment: environment),
                  kdf: environment["LOMME_VAULT_KDF"],
                  keyring: Keyring(off: environment["LOMME_VAULT_KEYRING"] == "off"),
                  tpm: environment["LOMME_VAULT_TPM"])
    }

    /// The environment variables `init(option:environment:)` reads.
    package static let environmentNames = ["LOMME_VAULT", "XDG_DATA_HOME", "HOME", "LOMME_VAULT_KDF", "LOMME_VAULT_KEYRING", "LOMME_VAULT_TPM"]
}

/// What every service works with: the settings, the person (through `Interaction`), the
/// kinds of key slot it knows (every kind of this version, unless a test adds one), and
/// what has been said this run, so a notice that would repeat is said once.
package final class VaultContext {
    package let settings: VaultSettings
    package let interaction: any Interaction
    package let slotKinds: SlotKinds
    private var said: Set<String> = []

    package init(settings: VaultSettings, interaction: any Interaction, slotKinds: SlotKinds = .builtIn) {
        self.settings = settings
        self.interaction = interaction
        self.slotKinds = slotKinds
    }

    package var store: VaultStore { settings.store }
    package var keyring: Keyring { settings.keyring }

    /// Says `text` unless the notice named `key` was said already in this context.
    package func noticeOnce(_ key: String, _ text: String) {
        guard said.insert(key).inserted else { return }
        interaction.notice(text)
    }
}
