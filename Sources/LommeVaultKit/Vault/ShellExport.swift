import LommeCore

/// `export NAME='value'` lines, quoted for any POSIX shell.
package enum ShellExport {
    package static func variables(_ config: Config) -> [(String, String)] {
        [("LOMME_CLIENT_ID", config.clientId), ("LOMME_CLIENT_SECRET", config.clientSecret),
         ("LOMME_USER_ID", config.userId), ("LOMME_ACCOUNT_NR", config.accountNr)]
    }

    package static func quote(_ value: String) -> String {
        "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    package static func lines(_ config: Config) -> String {
        variables(config).map { "export \($0.0)=\(quote($0.1))\n" }.joined()
    }
}
