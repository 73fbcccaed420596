import Glibc
import LommeCore
import LommeImages
import LommeScan
import LommeVaultKit

/// Where `import` gets a payload: standard input, or the photos in the order given, the
/// first one holding an importable code winning (front and back, or a sharp and a blurred
/// photo of the same code).
enum PayloadInput {
    /// A payload and, for photos, which photo held it and what was said of those before it.
    struct Found {
        /// What the payload is, decided once where it was read (the scanner's `Decoded`, or
        /// standard input here).
        var payload: ClassifiedPayload
        var notes: [String] = []
    }

    /// The payload's bytes: standard input (trailing white space dropped) or the first
    /// importable code found in the photos.
    static func read(photos: [String], stdin: Bool) throws(LommeError) -> Found {
        if stdin { return Found(payload: ClassifiedPayload(try standardInput())) }
        var skipped: [LommeError] = []
        for (index, photo) in photos.enumerated() {
            do throws(LommeError) {
                let payload = try code(in: photo)
                var notes = skipped.map { "Skipped: \($0.message)." }
                if photos.count > 1 {
                    let unread = photos.count - index - 1
                    notes.append("Using the code in \(ImageLimits.display(photo))"
                        + (unread > 0 ? " (the first photo holding a config; \(unread) more not read)." : "."))
                }
                return Found(payload: payload, notes: notes)
            } catch where error.code == .unreadableImage || error.code == .refused {
                skipped.append(error)
            }
        }
        guard skipped.count > 1 else { throw skipped.first ?? LommeError.image(.noCodeFound, "no QR code found") }
        let code: LommeError.Code = skipped.contains { $0.code == .refused } ? .refused : .unreadableImage
        throw LommeError(code, .noPhotoHoldsConfig, "none of the \(skipped.count) photos holds a lomme-vault config: "
            + skipped.map(\.message).joined(separator: "; "))
    }

    /// The first importable code the camera (or video file) shows; a code that is not one is
    /// said once on stderr and the camera goes on looking.
    static func read(camera: CameraOptions) throws(LommeError) -> Found {
        let decoded = try CameraInput.read(camera, sought: "QR code holding a lomme-vault config",
                                           accept: { $0.kind.isImportable },
                                           rejected: { decoded in
                                               ImportService.notAConfig(decoded.kind, "the QR code in view is").map { $0.message + "; still looking" }
                                                   ?? "the QR code in view is not a lomme-vault config; still looking (`lomme-vault scan --camera` shows what it holds)" })
        return Found(payload: decoded.code)
    }

    /// The importable code in one photo, as the scanner classified it; a file that is the
    /// payload as text (a config.json) is told to go through --stdin.
    static func code(in photo: String) throws(LommeError) -> ClassifiedPayload {
        let found: [Decoded]
        do throws(LommeError) {
            found = try Scanner.scan(path: photo) { $0.kind.isImportable }
        } catch where error.code == .unreadableImage {
            throw textFile(photo) ?? error
        }
        guard let first = found.first(where: \.kind.isImportable)?.code else {
            // One code of lomme-vault's own that is no config: named, with what to do with it.
            if found.count == 1, let refusal = ImportService.notAConfig(found[0].kind, "the QR code in \(ImageLimits.display(photo)) is") {
                throw refusal
            }
            throw LommeError.refused(.notAConfig, "the QR code in \(photo) is not a lomme-vault config (it holds \(found.count == 1 ? "other text" : "\(found.count) other codes")); `lomme-vault scan \(photo)` shows what it holds")
        }
        return first
    }

    /// For a file that is not a picture: the error saying it is JSON or a sealed code's
    /// text and how to import it; nil for anything else.
    static func textFile(_ path: String) -> LommeError? {
        guard let bytes = try? ConfigInput.readSmallFile(path, limit: ConfigInput.maximumSize, what: "file") else { return nil }
        let how = "import it with `lomme-vault import --stdin < \(shellWord(path))`"
        if (try? JSON.parse(bytes)) != nil {
            return LommeError.image(.imageIsText, "\(ImageLimits.display(path)) is a JSON file, not a picture; \(how)")
        }
        if ClassifiedPayload(Array(String(decoding: bytes, as: UTF8.self).trimmingASCIIWhitespace().utf8)).kind == .sealed {
            return LommeError.image(.imageIsText, "\(ImageLimits.display(path)) holds a sealed code as text, not a picture; \(how)")
        }
        return nil
    }

    /// `path` as a shell word: as it is when it needs no quoting, else in single quotes.
    static func shellWord(_ path: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+-,:@%")
        let plain = !path.isEmpty && path.allSatisfy(safe.contains)
        return plain ? path : ShellExport.quote(path)
    }

    /// Standard input, at most 64 KiB, trailing white space dropped.
    static func standardInput() throws(LommeError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(STDIN_FILENO, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > 65536 { throw LommeError.refused(.inputTooLarge, "the payload on standard input is larger than 64 KiB; it is not a config") }
        }
        SecureBytes.wipe(&chunk)
        while let last = bytes.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { bytes.removeLast() }
        guard !bytes.isEmpty else { throw LommeError.refused(.inputEmpty, "standard input was empty; pipe the payload text (the QR code's content) into it") }
        return bytes
    }
}
