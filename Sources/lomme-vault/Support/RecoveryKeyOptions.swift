import ArgumentParser
import LommeCore
import LommeScan
import LommeVaultKit

/// `--recovery-file PATH` / `--recovery-image PHOTO`: where the household's recovery key
/// comes from when not the terminal (read like a passphrase, never from the command line).
struct RecoveryKeyOptions: ParsableArguments {
    @Option(name: .customLong("recovery-file"), help: ArgumentHelp(
        "Read the recovery key from this file, one of your own (another user's is refused): the text as printed on the kit (dashes and spaces as you like).", valueName: "path"))
    var recoveryFile: String?
    @Option(name: .customLong("recovery-image"), help: ArgumentHelp(
        "Read the recovery key from a photo of the recovery kit (its QR code).", valueName: "photo"))
    var recoveryImage: String?

    func validate() throws {
        if recoveryFile != nil && recoveryImage != nil { throw ValidationError("give --recovery-file or --recovery-image, not both") }
    }

    var isGiven: Bool { recoveryFile != nil || recoveryImage != nil }

    /// The source: the file, the kit's QR code read from the photo now, else the terminal.
    /// A photo without a QR code is exit 2; one whose code is not a kit, exit 7 saying what it is.
    func source() throws(LommeError) -> RecoveryKeySource {
        if let recoveryFile { return .file(recoveryFile) }
        guard let photo = recoveryImage else { return .terminal }
        let isKit: (Decoded) -> Bool = { $0.kind == .recoveryKey }
        let found = try Scanner.scan(path: photo, accept: isKit)
        guard let kit = found.first(where: isKit) else {
            let what = found.first?.kind.what ?? "it holds none"
            throw LommeError.refused(.notARecoveryKit, "the QR code in \(photo) is not a recovery kit's (\(what)); give a photo of the recovery kit's QR code")
        }
        return .photo(text: kit.text, path: photo)
    }
}
