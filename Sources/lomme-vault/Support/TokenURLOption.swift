import ArgumentParser
import LommeCore
import LommeVaultKit

/// `--token-url` (`token`, `exec`), checked in two steps. Text that is not a usable URL (no
/// http(s)://, a bad host or port) is a usage error (64) in `validate()`; a URL the rules
/// refuse (plain http:// off this machine, a password in it) is exit 1 from `resolve`,
/// which runs before the vault is opened and before libcurl is loaded: no connection is tried.
enum TokenURLOption {
    static func validate(_ text: String?, option: String) throws {
        guard let text else { return }
        do {
            _ = try TokenURL(text, source: option, malformed: .usage)
        } catch where error.code == .usage {
            throw ParserErrorLine.validationError(error)
        } catch {
            // Refused by the rules: exit 1 from `resolve`, not a usage error.
        }
    }

    static func resolve(_ text: String?, option: String) throws(LommeError) -> TokenURL? {
        try text.map { text throws(LommeError) in try TokenURL(text, source: option) }
    }
}
