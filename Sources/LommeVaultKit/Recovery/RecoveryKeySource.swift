import LommeCore

/// Where the recovery key comes from, read like a passphrase: the terminal (no echo), a
/// file holding the text as printed (`--recovery-file`: refused when another user owns it,
/// warned of when others may read it, as `SecretFile` says), or a photo of the kit whose QR
/// code the CLI read (`--recovery-image`). Never the command line.
package enum RecoveryKeySource: Sendable, Equatable {
    case terminal
    case file(String)
    /// The text of a kit's QR code, and the photo it came from (for messages).
    case photo(text: String, path: String)

    /// The key. On a terminal a typo is told (naming its group) and asked again, three
    /// times at most; a file or photo with a typo is exit 64.
    package func read(_ interaction: any Interaction, noPrompt: Bool) throws(LommeError) -> RecoveryKey {
        switch self {
        case .file(let path):
            // Another user's file (or a link to one) is refused; one others may read, warned of.
            var bytes = try ConfigInput.readSmallFile(path, limit: 4096, what: "recovery key file") { (info) throws(LommeError) in
                try SecretFile.checkOwner(info, path: path, noun: "recovery key")
                if let warning = SecretFile.readableWarning(info, path: path, noun: "recovery key") { interaction.warning(warning) }
            }
            defer { SecureBytes.wipe(&bytes) }
            return try RecoveryKey(bytes: bytes)
        case .photo(let text, let path):
            do throws(LommeError) { return try RecoveryKey(text: text) } catch {
                throw error.with(message: "the recovery kit in \(path): \(error.message)")
            }
        case .terminal:
            guard !noPrompt, interaction.canAsk else {
                throw LommeError(.locked, .noTerminalToAsk, "no terminal to type the recovery key on; give it with --recovery-file PATH (the text as printed) or --recovery-image PHOTO (a photo of the kit)")
            }
            var last: LommeError?
            for _ in 0..<3 {
                let typed = try interaction.askSecret("Recovery key (as printed on the recovery kit; dashes and spaces as you like): ")
                do throws(LommeError) { return try RecoveryKey(bytes: typed.bytes) } catch {
                    interaction.notice("lomme-vault: " + error.message)
                    last = error
                }
            }
            throw last!
        }
    }
}
