import ArgumentParser
import LommeVaultKit

/// The one reading of "where does this secret come from": `--NAME-fd N`, `--NAME-file PATH`,
/// or (neither) the terminal. Every option pair of the kind — the passphrase, the new
/// passphrase of `passwd`, a TPM PIN — goes through it, so they check and mean the same.
enum SecretSource {
    /// The source the two options give; throws the usage error every such pair gives.
    /// `noun` names the secret in messages ("passphrase", "new passphrase", "PIN"); `option`
    /// is the options' stem ("passphrase", "new-passphrase", "pin").
    static func from(fd: Int32?, file: String?, noun: String, option: String) throws(ValidationError) -> PassphraseSource {
        if fd != nil && file != nil {
            throw ValidationError("give the \(noun) with --\(option)-fd or --\(option)-file, not both")
        }
        if let fd, fd < 0 { throw ValidationError("--\(option)-fd must be a file descriptor number (0 or more)") }
        if let fd { return .descriptor(fd) }
        if let file { return .file(file) }
        return .terminal
    }
}
