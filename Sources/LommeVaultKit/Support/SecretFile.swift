import Glibc
import LommeCore

/// The checks on a file the user gives that holds a secret — a passphrase or PIN
/// (`--passphrase-file`, `--pin-file`), a key file (`unlock --with keyfile PATH`), a recovery
/// key (`--recovery-file`) — made on the open descriptor, so a link is judged by the file it
/// leads to. One place for all of them:
///
/// - `owner`: a file another user owns (or a link to one) is refused, as OpenSSH refuses
///   such a private key: its owner could have read the secret, or put one of their own there
///   (a recovery key of theirs would found a household they hold).
/// - `readableWarning`: a regular file that group or others may read is warned about
///   (`chmod 600`), as ssh warns of a key; it is still read.
package enum SecretFile {
    /// Refuses `info` (of the file `path` opened) when another user owns it. `noun`: what
    /// the file holds ("key", "recovery key"; the message says "the NOUN file").
    package static func checkOwner(_ info: stat, path: String, noun: String) throws(LommeError) {
        guard info.st_uid == getuid() else {
            throw LommeError.failure(.secretFileNotOwn,
                                     "the \(noun) file \(TerminalText.line(path)) belongs to another user (uid \(info.st_uid)); refusing it, since they could have read or replaced it")
        }
    }

    /// The warning for a regular file that other users may read (mode 644), nil otherwise;
    /// `noun` as for `checkOwner` ("passphrase", "PIN", "recovery key").
    package static func readableWarning(_ info: stat, path: String, noun: String) -> String? {
        guard info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o044 != 0 else { return nil }
        let shown = TerminalText.line(path)
        return "the \(noun) file \(shown) can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); make it yours alone: chmod 600 \(shown)"
    }
}
