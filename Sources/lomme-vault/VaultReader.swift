import LommeCore
import LommeVaultKit


/// Reading the stored config for get, exec and export.
enum VaultReader {
    static func config(_ context: VaultContext, _ options: UnlockOptions) throws(LommeError) -> Config {
        try config(Session.open(context, options))
    }

    static func config(_ opened: OpenedVault) throws(LommeError) -> Config {
        guard let config = opened.contents.config else {
            throw LommeError(.notFound, "the vault holds no config yet; import one with `lomme-vault import PHOTO` or `--stdin`")
        }
        return config
    }

    static func fieldNames(_ config: Config) -> [String] {
        Config.fieldNames + config.extras.map(\.key)
    }
}

