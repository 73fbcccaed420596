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
            then asks on the terminal unless --yes or --expect-issuer; with no terminal to ask \
            on (or --no-prompt) and neither, nothing is stored (exit 1), as every yes-or-no \
            question of lomme-vault is. Creates the vault first when there is none \
            (asking for a new passphrase twice). The replaced config is kept for one step of rollback.

            A sealed code shows its issuer's fingerprint; the first one is pinned after the \
            question whether it is the one the parent's `issue` printed. --expect-issuer \
            FINGERPRINT says that it was compared already (for scripts): a code of that issuer is \
            stored and pinned with no question at all, and any other issuer is refused. Once an issuer is pinned, a plain \
            code is refused unless --allow-plain (--yes alone never overrides it).

            A household file — the household handed over by another parent's machine (`lomme-vault \
            parent add --output FILE` there), or a parent's journal carried by hand (`lomme-vault \
            sync --output FILE`) — is taken as `lomme-vault sync` takes it (joining the household \
            is asked on a terminal; --yes skips).

            With --camera the code is read live from the webcam (/dev/video0, or --device, \
            which may be a video file): on a terminal a small grey picture shows what the \
            camera sees; the first frame holding a config is used, and the rest is as for a \
            photo. Nothing seen within --timeout (default 2m; of a video file, its own first \
            2m), or the file's end, is exit 2; Ctrl-C is exit 130. With --every-frame a video \
            file's every frame is scanned, none dropped.

            Exit 1: the question answered no, or no terminal to ask it on and neither --yes nor \
            --expect-issuer; 2: no QR code in the photos, or a picture that cannot be read; 3: \
            the vault is locked and no prompt is possible; 4: wrong passphrase; 5: the vault is \
            damaged; 6: a sealed code and no vault; 7: not a config, a rule failed, or a sealed \
            code refused (damaged, expired, not for this device, older than the stored one, an \
            issuer not trusted).
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
        "Accept a sealed code only from the issuer with this fingerprint (what the parent's `lomme-vault issue` printed), and store and pin it without asking: it says you compared it already (for scripts).",
        valueName: "FINGERPRINT"))
    var expectIssuer: String?
    @Flag(name: .customLong("allow-plain"), help: "Store a plain code although sealed codes of a pinned issuer provided the config; drops the pin (asked again on a terminal).")
    var allowPlain = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        let given = (photos.isEmpty ? [] : [photos.count == 1 ? "a photo (\(JSON.printable(photos[0])))" : "photos"])
            + (stdin ? ["--stdin"] : []) + (camera.camera ? ["--camera"] : [])
        if given.count > 1 {
            let both = given.dropLast().joined(separator: ", ") + " and " + given.last!
            throw ValidationError("\(both) were \(given.count == 2 ? "both" : "all") given; give one of them (photos, --stdin or --camera)")
        }
        if given.isEmpty { throw ValidationError("give one or more photos, --stdin or --camera") }
        if let expectIssuer, Fingerprint.normalized(expectIssuer).count != 16 {
            throw ValidationError("--expect-issuer takes a fingerprint such as K7QZ-M2XA-9PWD-RT4B (what the parent's `lomme-vault issue` printed)")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        if photos.count == 1, let bytes = try Self.householdFile(photos[0]) { return try takeHousehold(bytes, name: photos[0], context) }
        let found = camera.camera ? try PayloadInput.read(camera: camera) : try PayloadInput.read(photos: photos, stdin: stdin)
        found.notes.forEach(Terminal.info)
        if found.payload.kind == .household {
            // A household's QR code (what `parent add` shows on a terminal): taken as its file is.
            let name = stdin ? "standard input" : camera.camera ? "the camera's code" : photos.first ?? "the code"
            return try takeHousehold(found.payload.bytes, name: name, context)
        }
        var request = ImportService.Request()
        request.checksums = !noCheck
        request.yes = yes
        request.trustNewIssuer = trustNewIssuer
        request.expectIssuer = expectIssuer
        request.allowPlain = allowPlain
        request.fromStandardInput = stdin
        request.unlock = vault.unlockOptions
        let path = context.store.path
        let imported = try ImportService(context, request).importing(found.payload)
        switch imported.outcome {
        case .alreadyHeld: Terminal.info("Unchanged: the vault already holds this config; nothing was written.")
        case .alreadyImported: Terminal.info("Unchanged: this sealed code was imported already; nothing was written.")
        case .stored: Terminal.info("Stored in \(path).")
        case .created: Terminal.info("Created the vault and stored the config in \(path).")
        }
        if found.payload.kind == .sealed { try offerReceipt(imported.receipt, context) }
    }

    /// A household file or code (the household handed over, or a journal by hand), taken as
    /// `sync` takes a folder's file.
    func takeHousehold(_ bytes: [UInt8], name: String, _ context: VaultContext) throws {
        let result = try SyncService(context, vault.unlockOptions).importFile(bytes, name: name, yes: yes)
        Sync.say(result)
        if case .nothingNew = result.outcome { Terminal.info("Unchanged: \(name) was taken already; nothing was written.") }
    }

    /// The bytes of `path` when it is a household file (a hand-over or a journal), else nil:
    /// then it is read as a photo.
    static func householdFile(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        var head = [UInt8](repeating: 0, count: 5)
        let count = read(descriptor, &head, head.count)
        close(descriptor)
        guard count > 0, HouseholdFile.looksLikeOne(Array(head.prefix(count))) else { return nil }
        return try ConfigInput.readSmallFile(path, limit: HouseholdFile.maximumLength, what: "household file")
    }

    /// After a sealed code: the receipt for the parent (made from the vault the import
    /// opened: no passphrase asked again), offered on a terminal (not with --yes or
    /// --expect-issuer, which ask nothing), else told how to show it.
    func offerReceipt(_ receipt: ReceiptService.Made?, _ context: VaultContext) throws {
        let interaction = context.interaction
        // --expect-issuer is for scripts that compared already: they are asked nothing.
        guard let receipt, !yes, expectIssuer == nil, !vault.noPrompt, interaction.canAsk, Terminal.isTerminal(STDOUT_FILENO) else {
            Terminal.info("The parent can check that this device holds the code: `lomme-vault receipt` shows a receipt for them to photograph.")
            return
        }
        guard try interaction.confirm("Show a receipt for the parent to photograph (`lomme-vault child confirm` on their machine)?") else { return }
        try ReceiptCommand.show(receipt)
    }
}
