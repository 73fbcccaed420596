import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

/// Prints this machine's receiving key as `init --child` and `key` show it: a QR code of the
/// key (in capitals, so the code is alphanumeric) and the key as text, on stdout.
enum DeviceKeyOutput {
    /// `advice`: the paragraph on stderr saying what the key is for (`key` gives it only on
    /// a terminal: pipes get data, terminals get words).
    /// `instead`: what to run when the window is too small for the code (`key`'s own options).
    static func show(_ key: ReceivingKey, output: String? = nil, textOnly: Bool = false, advice: Bool = true,
                     instead: String = "`lomme-vault key --output key.png` (or `lomme-vault key --text`)") throws {
        if textOnly {
            try Terminal.output(key.text + "\n")
            return
        }
        let code = try IssuedCode(payload: key.text.uppercased(), kind: .receivingKey)
        let hint = """
            This machine's receiving key \(key.fingerprint). It is public: show it to the parent, who adds \
            this machine with `lomme-vault child add NAME --key-image PHOTO-OF-THIS-CODE --account ACCOUNTNR` \
            (or `--key \(key.text)`), or seals one code to it with `lomme-vault issue --to \(key.text)`.
            """
        if let output {
            try FileIO.replace(output, with: code.fileBytes(for: output), mode: code.kind.fileMode)
            Terminal.info("Wrote the receiving key's QR code to \(output).")
        } else {
            // The key's text and the hint go under the code: the window must hold all three.
            try TerminalCode.show(code, printedAfter: [key.text, hint], instead: instead)
        }
        try Terminal.output(key.text + "\n")
        if advice { Terminal.info(hint) }
    }
}

/// Prints this machine's parent key (`key --parent`): the receiving and the issuer key in
/// one text, `lvp1…`, for the other parent's `parent add`, as a QR code and as text.
enum ParentKeyOutput {
    static func show(_ key: ParentKey, output: String?, textOnly: Bool, advice: Bool) throws {
        if textOnly {
            try Terminal.output(key.text + "\n")
            return
        }
        let code = try IssuedCode(payload: key.text.uppercased(), kind: .parentKey)
        let (receiving, issuer) = key.fingerprints
        let hint = """
            This machine's parent key (receiving key \(receiving), issuer \(issuer)). It is public: show it to \
            the parent whose machine holds the household and the recovery kit, who runs `lomme-vault parent add NAME \
            --key-image PHOTO-OF-THIS-CODE` (or `--key \(key.text)`) and compares these fingerprints.
            """
        if let output {
            try FileIO.replace(output, with: code.fileBytes(for: output), mode: code.kind.fileMode)
            Terminal.info("Wrote the parent key's QR code to \(output).")
        } else {
            try TerminalCode.show(code, printedAfter: [key.text, hint], instead: "`lomme-vault key --parent --output key.png` (or `--text`)")
        }
        try Terminal.output(key.text + "\n")
        if advice { Terminal.info(hint) }
    }
}
