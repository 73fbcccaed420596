import Glibc
import ArgumentParser
import LommeCore
import LommeImages
import LommeScan
import LommeVaultKit

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode the QR code in each photo and print what it holds.",
        discussion: """
            A config is shown as fields with the client secret and the personal part of the \
            national id hidden, also when it fails a rule (any JSON object with a field whose \
            name says secret, password, token or key: clientSecret, apiKey, sessionToken, dbPasswd, \
            …, the rule `set` and every summary use); --raw prints the \
            exact text instead (on a terminal with control characters escaped). Text from the \
            code is shown with control characters escaped (\\x1b). No vault is needed.
            Reads PNG, JPEG (with EXIF orientation), WebP, PGM/PPM and HEIC, sniffed from the \
            bytes. Exit code 2 when a photo holds no QR code or cannot be read.

            With --camera the code is read live from the webcam (/dev/video0, or --device, \
            which may be a video file), showing on a terminal a small grey picture of what it \
            sees, until the first frame holding a QR code. Nothing seen within --timeout \
            (default 2m; of a video file, its own first 2m), or the file's end, is exit 2; \
            Ctrl-C is exit 130. With --every-frame a video file's every frame is scanned, none \
            dropped.
            """
    )

    @Argument(help: ArgumentHelp("Photos or images to decode.", valueName: "PHOTO"))
    var photos: [String] = []

    @OptionGroup var camera: CameraOptions

    @Flag(name: .long, help: "Print the exact decoded text (secrets included), nothing else.")
    var raw = false

    @Flag(name: .short, help: "With --raw: no newline after the text.")
    var noNewline = false

    func validate() throws {
        if camera.camera && !photos.isEmpty { throw ValidationError("give photos or --camera, not both") }
        if photos.isEmpty && !camera.camera { throw ValidationError("name at least one photo, or --camera") }
    }

    func run() throws {
        if camera.camera {
            Hardening.apply()  // the secret is in memory from here on: no core dumps
            return try runCamera()
        }
        if let firstError = try Self.show(photos, raw: raw, noNewline: noNewline) {
            Terminal.reason(firstError.reason)
            throw ExitCode(firstError.code.rawValue)
        }
    }

    /// Each photo's codes on stdout, a photo that holds none or cannot be read on stderr; the
    /// first such failure, if any (also FastPath's `scan --raw PHOTO…`). Throws when what was
    /// read did not reach stdout.
    static func show(_ photos: [String], raw: Bool, noNewline: Bool) throws(LommeError) -> LommeError? {
        Hardening.apply()  // the secret is in memory from here on: no core dumps
        var firstError: LommeError?
        for photo in photos {
            let found: [Decoded]
            do {
                found = try Scanner.scan(path: photo, accept: { $0.kind.isOurs })
            } catch {
                // A photo that cannot be read: said, and the next one tried.
                Terminal.error(error.message)
                firstError = firstError ?? error
                continue
            }
            // What was read and did not reach stdout ends the command (exit 1).
            for decoded in found {
                if raw {
                    let newline = !noNewline && (Terminal.isTerminal(1) || photos.count > 1 || found.count > 1)
                    try Terminal.data(decoded.text + (newline ? "\n" : ""))
                } else {
                    try Terminal.show(Self.describe(decoded, photo: TerminalText.line(photo)))
                }
            }
        }
        return firstError
    }

    /// The first code the camera (or the video file) shows, as for a photo.
    func runCamera() throws {
        let decoded = try CameraInput.read(camera, sought: "QR code", accept: { _ in true }, rejected: { _ in "" })
        if raw {
            try Terminal.data(decoded.text + (!noNewline && Terminal.isTerminal(1) ? "\n" : ""))
        } else {
            let device = camera.device.map { " --device " + PayloadInput.shellWord($0) } ?? ""
            try Terminal.show(Self.describe(decoded, photo: TerminalText.line(camera.path), arguments: "--camera" + TerminalText.line(device)))
        }
    }

    /// `arguments`: how `import` and `scan --raw` would read the same code again (the photo,
    /// or `--camera --device …`).
    static func describe(_ decoded: Decoded, photo: String, arguments: String? = nil) -> String {
        let again = arguments ?? photo
        switch decoded.code.payload {
        case .plain(let config?, let problem):
            var lines = ["\(photo): plain config (holds the secret in clear)"] + config.summaryLines
            if let problem { lines.append("  warning: \(problem.message)") }
            return lines.joined(separator: "\n") + "\n"
        case .sealed(let envelope?, _):
            return """
                \(photo): sealed lomme-vault code (the config inside is encrypted to one device)
                  issued   \(Instant(seconds: envelope.issued).shown)
                  \(envelope.expiry(now: Int64(time(nil))))
                Import it on the device it was issued to: `lomme-vault import \(again)`

                """
        case .sealed(nil, let problem):
            return "\(photo): a sealed lomme-vault code that cannot be read: \(problem?.message ?? "damaged")\n"
        case .receivingKey(let key?, _):
            return "\(photo): a lomme-vault receiving key, fingerprint \(key.fingerprint)\n\(key.text)\n"
        case .receivingKey(nil, let problem):
            return "\(photo): a lomme-vault receiving key that cannot be used: \(problem?.message ?? "damaged")\n"
        case .receipt(let receipt?, _):
            return "\(photo): a child's receipt for the sealed code \(receipt.codeIdHex); the parent checks it with `lomme-vault child confirm \(again)`\n"
        case .recoveryKey:
            return "\(photo): a household's recovery kit: its key is a secret (not shown; `lomme-vault scan --raw` prints it). Keep the sheet like a passport; `lomme-vault recovery verify --recovery-image \(again)` checks it against a vault\n"
        case .receipt(nil, let problem):
            return "\(photo): a lomme-vault receipt that cannot be read: \(problem?.message ?? "damaged")\n"
        case .parentKey(let key?, _):
            return "\(photo): a parent's machine key, receiving key \(key.fingerprints.receiving), issuer \(key.fingerprints.issuer); the parent with the household adds it with `lomme-vault parent add NAME --key-image \(again)`\n\(key.text)\n"
        case .parentKey(nil, let problem):
            return "\(photo): a lomme-vault parent key that cannot be used: \(problem?.message ?? "damaged")\n"
        case .household:
            return "\(photo): a household handed over by a parent's machine (sealed to the machine it names); on that machine run `lomme-vault import \(again)`\n"
        case .plain(nil, _):
            return other(decoded.text, photo: photo, again: again)
        case .other(let text):
            return other(text, photo: photo, again: again)
        }
    }

    /// A code that is none of lomme-vault's, or JSON naming a config's fields that is not one.
    static func other(_ text: String, photo: String, again: String) -> String {
        if let fields = SecretFields.summaryLines(text) {
            let head = "\(photo): JSON with a secret, but not a config lomme-vault accepts: \(Self.ruleFailed(text))"
            return ([head] + fields + ["Nothing is hidden from `lomme-vault scan --raw \(again)`."]).joined(separator: "\n") + "\n"
        }
        return "\(photo): not a lomme-vault config; the code holds:\n\(text)\n"
    }

    /// The rule a secret-holding JSON object fails, for the summary.
    static func ruleFailed(_ text: String) -> String {
        do {
            _ = try Config(jsonBytes: Array(text.utf8))
            return "no rule failed"
        } catch {
            return error.message
        }
    }
}
