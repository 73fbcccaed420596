import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

/// Prints this machine's receiving key as `init --child` and `key` show it: a QR code of the
/// key (in capitals, so the code is alphanumeric) and the key as text, on stdout.
enum DeviceKeyOutput {
    static func show(_ key: ReceivingKey, output: String? = nil, textOnly: Bool = false) throws {
        if textOnly {
            Terminal.output(key.text + "\n")
            return
        }
        let code = try IssuedCode(payload: key.text.uppercased(), level: .M)
        let hint = """
            This machine's receiving key \(key.fingerprint). It is public: show it to the parent, who seals \
            a code to it with `lomme-vault issue --to-image PHOTO-OF-THIS-CODE` or `--to \(key.text)`.
            """
        if let output {
            try FileIO.replace(output, with: code.fileBytes(for: output), mode: 0o644)
            Terminal.info("Wrote the receiving key's QR code to \(output).")
        } else {
            // The key's text and the hint go under the code: the window must hold all three.
            try TerminalCode.show(code, printedAfter: [key.text, hint])
        }
        Terminal.output(key.text + "\n")
        Terminal.info(hint)
    }
}
