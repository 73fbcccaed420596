import ArgumentParser
import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

struct ReceiptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Show a receipt for the last sealed code imported, for the parent to photograph.",
        discussion: """
            A small QR code that only this device can make and only the parent's machine that \
            issued the code can open, naming the code and the credential it carried. The parent \
            photographs it and runs `lomme-vault child confirm PHOTO` (or `--camera`); their \
            `child list` then shows this device as confirmed for that code. The receipt holds no \
            secret. Drawn on the terminal, or written with --output FILE.png / FILE.svg; --text \
            prints its text. `lomme-vault import` offers it on a terminal after a sealed code. \
            Exit 6: no sealed code imported here (or the config since came from elsewhere).
            """
    )

    @Option(name: [.short, .long], help: ArgumentHelp("Write the receipt's QR code to FILE.png or FILE.svg instead of the terminal.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Print the receipt's text and a newline on stdout, nothing else.")
    var text = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if text && output != nil { throw ValidationError("give --text or --output, not both") }
        if let output, !output.lowercased().hasSuffix(".png"), !output.lowercased().hasSuffix(".svg") {
            throw ValidationError("--output must end in .png or .svg")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        try Self.show(ReceiptService(context, vault.unlockOptions).make(), output: output, textOnly: text)
    }

    static func show(_ receipt: (text: String, issued: Int64, issuer: String), output: String? = nil, textOnly: Bool = false) throws {
        if textOnly {
            try Terminal.output(receipt.text + "\n")
            return
        }
        let code = try IssuedCode(payload: receipt.text, kind: .receipt)
        let about = "Receipt for the code issued \(Instant(seconds: receipt.issued).shown) by \(receipt.issuer): the parent photographs it and runs `lomme-vault child confirm PHOTO`."
        if let output {
            try FileIO.replace(output, with: code.fileBytes(for: output), mode: code.kind.fileMode)
            Terminal.info("Wrote the receipt to \(output). " + about)
        } else {
            try TerminalCode.show(code, before: about, instead: "`lomme-vault receipt --output receipt.png`")
        }
    }
}
