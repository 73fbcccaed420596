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

    /// Replaces `path` with `bytes` through a temporary file in the same directory, fsync
    /// and rename, so a reader never sees half a file. `mode` 0600 for files with a secret.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t) throws(LommeError) {
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else {
            throw LommeError.failure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        var ok = writeAll(bytes, to: descriptor) && fsync(descriptor) == 0
        var error = errno
        close(descriptor)
        if ok {
            ok = rename(temporary, path) == 0
            error = errno
        }
        guard ok else {
            unlink(temporary)
            throw LommeError.failure("cannot write \(path): \(String(cString: strerror(error)))")
        }
    }
}
