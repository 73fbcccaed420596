import Glibc
import LommeCore
import LommeScan

/// Where `import` gets a payload: standard input, or the first importable QR code in the photos.
enum PayloadInput {
    /// The payload's bytes: standard input (trailing white space dropped) or the first
    /// importable code found in the photos.
    static func read(photos: [String], stdin: Bool) throws(LommeError) -> [UInt8] {
        if stdin {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = Glibc.read(STDIN_FILENO, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                bytes += chunk[0..<count]
                if bytes.count > 65536 { throw LommeError.refused("the payload on standard input is larger than 64 KiB; it is not a config") }
            }
            SecureBytes.wipe(&chunk)
            while let last = bytes.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { bytes.removeLast() }
            guard !bytes.isEmpty else { throw LommeError.refused("standard input was empty; pipe the payload text (the QR code's content) into it") }
            return bytes
        }
        var lastError = LommeError.image("no QR code found")
        for photo in photos {
            do throws(LommeError) {
                let found = try Scanner.scan(path: photo) { Payload.isImportable($0.bytes) }
                guard let first = found.first(where: { Payload.isImportable($0.bytes) }) else {
                    throw LommeError.refused("the QR code in \(photo) is not a lomme-vault config (it holds \(found.count == 1 ? "other text" : "\(found.count) other codes")); `lomme-vault scan \(photo)` shows what it holds")
                }
                return first.bytes
            } catch where error.code == .unreadableImage {
                lastError = error
            }
        }
        throw lastError
    }
}
