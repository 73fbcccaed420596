import ArgumentParser
import Glibc
import LommeCore
import LommeScan
import LommeVaultKit

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Decode a config from QR photos (or --stdin), show it, confirm, and store it in the vault.",
        discussion: """
            Shows what will be stored (secret and personal number hidden) and what it replaces, \
            then asks on the terminal unless --yes. Creates the vault first when there is none \
            (asking for a new passphrase twice). The replaced config is kept for one step of rollback.

            A sealed code shows its issuer's fingerprint; the first one is pinned after the \
            question whether it is the one the parent's `issue` printed (none with \
            --expect-issuer, which refuses any other issuer). Once an issuer is pinned, a plain \
            code is refused unless --allow-plain (--yes alone never overrides it).

            With --camera the code is read live from the webcam (/dev/video0, or --device, \
            which may be a video file): on a terminal a small grey picture shows what the \
            camera sees; the first frame holding a config is used, and the rest is as for a \
            photo. Nothing seen within --timeout (default 2m; of a video file, its own first \
            2m), or the file's end, is exit 2; Ctrl-C is exit 130. With --every-frame a video \
            file's every frame is scanned, none dropped.
            """
    )

    @Argument(help: "Photos or images of the QR code, tried in order: the first holding a config is used.") var photos: [String] = []
    @Flag(name: .customLong("stdin"), help: "Read the payload text from standard input instead of a photo.") var stdin = false
    @OptionGroup var camera: CameraOptions
    @Flag(name: .customLong("yes"), help: "Store without asking.") var yes = false
    @Flag(name: .customLong("no-check"), help: "Skip the mod-11 check digit rules (for test numbers).") var noCheck = false
    @Flag(name: .customLong("trust-new-issuer"), help: "Accept a sealed code from another issuer than the pinned one, and pin it instead.")
    var trustNewIssuer = false
    @Option(name: .customLong("expect-issuer"), help: ArgumentHelp(
        "Accept a sealed code only from the issuer with this fingerprint (what the parent's `lomme-vault issue` printed), and pin it without asking.",
        valueName: "FINGERPRINT"))
    var expectIssuer: String?
    @Flag(name: .customLong("allow-plain"), help: "Store a plain code although sealed codes of a pinned issuer provided the config; drops the pin (asked again on a terminal).")
    var allowPlain = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        let sources = (stdin ? 1 : 0) + (photos.isEmpty ? 0 : 1) + (camera.camera ? 1 : 0)
        if sources != 1 { throw ValidationError("give one or more photos, --stdin or --camera") }
        if let expectIssuer, Fingerprint.normalized(expectIssuer).count != 16 {
            throw ValidationError("--expect-issuer takes a fingerprint such as K7QZ-M2XA-9PWD-RT4B (what the parent's `lomme-vault issue` printed)")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        let found = camera.camera ? try PayloadInput.read(camera: camera) : try PayloadInput.read(photos: photos, stdin: stdin)
        found.notes.forEach(Terminal.info)
        var request = ImportService.Request()
        request.checksums = !noCheck
        request.yes = yes
        request.trustNewIssuer = trustNewIssuer
        request.expectIssuer = expectIssuer
        request.allowPlain = allowPlain
        request.unlock = vault.unlockOptions
        let path = context.store.path
        switch try ImportService(context, request).run(found.payload) {
        case .alreadyHeld: Terminal.info("Unchanged: the vault already holds this config; nothing was written.")
        case .alreadyImported: Terminal.info("Unchanged: this sealed code was imported already; nothing was written.")
        case .stored: Terminal.info("Stored in \(path).")
        case .created: Terminal.info("Created the vault and stored the config in \(path).")
        }
    }
}
