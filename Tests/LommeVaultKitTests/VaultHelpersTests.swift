import LommeCore
import LommeVaultKit
import Testing

/// Helpers the vault commands use: shell quoting for `export`, the weak-passphrase check.
@Suite("Vault helpers")
struct VaultHelpersTests {
    @Test func shellQuoting() {
        #expect(ShellExport.quote("plain") == "'plain'")
        #expect(ShellExport.quote("it's") == "'it'\\''s'")
        #expect(ShellExport.quote("") == "''")
    }

    @Test func weakPassphrases() {
        #expect(Passphrase.isWeak(SecureBytes(copying: Array("password".utf8))))
        #expect(Passphrase.isWeak(SecureBytes(copying: Array("aaaaaaaaaaaaaaaaaaaaaaaa".utf8))))
        #expect(!Passphrase.isWeak(SecureBytes(copying: Array("correct horse battery staple".utf8))))
    }
}
