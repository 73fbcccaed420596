import Testing

extension CLI.Sandbox {
    /// Imports `config` (mod-11 rules off) into a new vault at `vault` through the built
    /// binary; returns the passphrase file.
    func importedVault(_ config: String) -> String {
        let passphrase = write("pw", "a passphrase long enough\n")
        let imported = CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", vault, "--passphrase-file", passphrase], stdin: config)
        #expect(imported.status == 0, "\(imported.stderr)")
        return passphrase
    }
}
