import Glibc
import LommeCore

/// Writing bytes out whole: short writes and EINTR retried, files replaced atomically.
package enum FileIO {
    /// Writes all of `bytes` to `descriptor`; false (with `errno` set) on failure.
    @discardableResult
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Replaces `path` with `bytes` atomically (`AtomicFile`). `mode` 0600 for files with a secret.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(LommeError) {
        do {
            try AtomicFile.replace(path, with: bytes, mode: mode)
        } catch {
            throw LommeError.failure("cannot write \(path): \(error.reason)")
        }
    }
}
