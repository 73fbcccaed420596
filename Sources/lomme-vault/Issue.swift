import ArgumentParser
import Foundation
import LommeVault

struct Issue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn a config into a QR code for the child's device to photograph.",
        discussion: """
            The config comes from --from FILE (JSON; - for standard input) or, on a terminal, from \
            questions (the client secret typed without echo). It is never taken from the command line.

            The QR code is drawn in the terminal (black on white, whatever the theme) or written to \
            --output FILE.png / FILE.svg. Before anything is shown, the drawing is read back by \
            lomme-vault's own scanner and compared with the payload.

            A plain code holds the client secret and the national id in clear: anyone who sees or \
            photographs it can use them. Files holding a plain code are written with mode 0600.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Read the config as JSON from FILE ('-' for standard input).", valueName: "FILE"))
    var from: String?

    @Option(name: .long, help: "Error correction: L, M, Q or H (the share of the code that may be damaged).")
    var level: QRMatrix.ErrorCorrection = .H

    @Option(name: [.short, .long], help: ArgumentHelp("Write the code to FILE.png (8 px per module) or FILE.svg instead of the terminal.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Skip the check-digit rules (for test numbers); the other rules still apply.")
    var noCheck = false

    func validate() throws {
        if let output, !output.lowercased().hasSuffix(".png"), !output.lowercased().hasSuffix(".svg") {
            throw ValidationError("--output must end in .png or .svg")
        }
    }

    func run() throws {
        Hardening.apply()  // the secret is in memory from here on: no core dumps
        let config = try from.map { try ConfigInput.read(from: $0, checksums: !noCheck) } ?? ConfigInput.prompt(checksums: !noCheck)
        let code = try IssuedCode(payload: PlainPayload.encode(config), level: level)
        if let output {
            try IssuedCode.write(code.fileBytes(for: output), to: output, mode: 0o600)
        } else {
            Terminal.output(try code.terminalText(term: ProcessInfo.processInfo.environment["TERM"]))
        }
        var lines = ["", "Plain config (QR version \(code.matrix.version), \(code.matrix.size)×\(code.matrix.size) modules, level \(level.rawValue)):"]
        lines += config.summaryLines
        lines.append("")
        lines.append("Warning: this code holds the client secret and national id in clear. Anyone who sees or photographs it can use them; show it only to the child's device.")
        if let output { lines.append("Wrote \(output) (mode 0600).") }
        Terminal.info(lines.joined(separator: "\n"))
    }
}

extension QRMatrix.ErrorCorrection: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument.uppercased())
    }
}
