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

    /// Replaces `name` in the folder open as `folder` (its path `path`, for messages) with
    /// `bytes`: a temp file (never following a link), written, synced, renamed over it, the
    /// folder synced. When this returns, the file is on disk; on failure no temp file stays.
    /// A failure is `reason`, saying what could not be done and why.
    package static func replace(_ name: String, in folder: Int32, path: String, with bytes: [UInt8], mode: mode_t,
                                reason: LommeError.Reason) throws(LommeError) {
        func failure(_ what: String) -> LommeError {
            LommeError.failure(reason, "cannot \(what): \(String(cString: strerror(errno)))")
        }
        let temp = "." + name + ".tmp-\(getpid())-" + Sodium.hex(Sodium.randomBytes(6))
        let file = openat(folder, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard file >= 0 else { throw failure("create a file in \(path)") }
        var done = false
        defer { if !done { unlinkat(folder, temp, 0) } }
        guard writeAll(bytes, to: file), fsync(file) == 0 else {
            let error = failure("write \(path)/\(name)")
            close(file)
            throw error
        }
        guard close(file) == 0 else { throw failure("write \(path)/\(name)") }
        guard renameat(folder, temp, folder, name) == 0 else { throw failure("write \(path)/\(name)") }
        done = true
        guard fsync(folder) == 0 else { throw failure("sync \(path)") }
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
