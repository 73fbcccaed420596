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

    /// `path` renamed to `path.old` (replacing an older one), when it exists: a file of an
    /// earlier run is never left where a new one is about to go. False when there was none.
    @discardableResult
    package static func moveAside(_ path: String) throws(LommeError) -> Bool {
        guard rename(path, path + ".old") == 0 else {
            if errno == ENOENT { return false }
            throw LommeError.failure(.fileNotMovedAside, "cannot move \(path) aside to \(path).old: \(String(cString: strerror(errno))); nothing was issued")
        }
        return true
    }

    /// Replaces `path` with `bytes` atomically (`AtomicFile`). `mode` 0600 for files with a secret.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(LommeError) {
        do {
            try AtomicFile.replace(path, with: bytes, mode: mode)
        } catch {
            throw LommeError.failure(.fileNotWritten, "cannot write \(path): \(error.reason)")
        }
    }
}
