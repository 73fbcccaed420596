import Glibc
import LommeCore

/// The one way a file is replaced (the vault, `issue -o`, `key -o`): a temp file with a
/// random name in the same directory (`.NAME.tmp-PID-RANDOM`), written whole, fsync,
/// rename over the target, fsync the directory. A reader sees the old file or the new
/// one, never half of one, and after a crash the rename is on disk.
package enum AtomicFile {
    /// A step that failed, with its errno; callers word the message.
    package struct Failure: Error, Sendable {
        package var step: String
        package var code: Int32
        package var reason: String { String(cString: strerror(code)) }
    }

    /// The directory part of `path` ("." when there is none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// The file name part of `path`.
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Replaces `path` with `bytes` (`mode` for a new file). `beforeRename` runs with the
    /// synced temp file's path and the random suffix, just before the rename (the vault
    /// links its `.bak` there). The temp file is removed on every failure.
    package static func replace(_ path: String, with bytes: [UInt8], mode: mode_t,
                                beforeRename: (_ temp: String, _ suffix: String) throws(Failure) -> Void = { _, _ in })
        throws(Failure)
    {
        let directory = directory(of: path)
        let suffix = "\(getpid())-" + Sodium.hex(Sodium.randomBytes(6))
        let temp = directory + "/." + name(of: path) + ".tmp-" + suffix
        let descriptor = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw Failure(step: "create \(temp)", code: errno) }
        var keep = false
        defer { if !keep { unlink(temp) } }
        guard FileIO.writeAll(bytes, to: descriptor) else {
            let code = errno
            close(descriptor)
            throw Failure(step: "write", code: code)
        }
        guard fsync(descriptor) == 0 else {
            let code = errno  // before close() can change it
            close(descriptor)
            throw Failure(step: "fsync", code: code)
        }
        guard close(descriptor) == 0 else { throw Failure(step: "close", code: errno) }
        try beforeRename(temp, suffix)
        guard rename(temp, path) == 0 else { throw Failure(step: "rename", code: errno) }
        keep = true
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }
}
