import LommeCore

/// Reading the stored config: `get`, `export` and `exec`. Opens the vault itself (the
/// unlocked session, else a passphrase from `options`), so the CLI never does.
package struct ConfigService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    /// The stored config; exit 6 when the vault holds none yet.
    package func config(_ options: UnlockOptions) throws(LommeError) -> Config {
        try Self.config(Session.open(context, options))
    }

    /// The config and an access token for it, from one opening of the vault (`exec --token`).
    package func configAndToken(_ options: UnlockOptions, explicitURL: TokenURL?) throws(LommeError) -> (config: Config, token: TokenService.Outcome) {
        let opened = try Session.open(context, options)
        let config = try Self.config(opened)
        return (config, try TokenService(context).obtain(opened, config: config, explicitURL: explicitURL, refresh: false))
    }

    static func config(_ opened: OpenedVault) throws(LommeError) -> Config {
        guard let config = opened.contents.config else {
            throw LommeError(.notFound, .noConfig, "the vault holds no config yet; import one with `lomme-vault import PHOTO` or `--stdin`")
        }
        return config
    }

    /// Every field name a config has, in order (for `get`'s "no such field" message).
    package static func fieldNames(_ config: Config) -> [String] {
        Config.fieldNames + config.extras.map(\.key)
    }
}
