import Glibc
import LommeCore

/// The folder `issue --all --output-dir` writes the codes into, opened once and written
/// relative to that descriptor: a link swapped in for the folder or a file later changes
/// nothing. Refused as the vault's own folder is (FolderCheck): owned by another user, or
/// writable by others without the sticky bit, or a symbolic link (with or without a
/// trailing slash) — whoever could write there could swap two children's codes.
package final class OutputFolder {
    package let path: String
    let descriptor: Int32

    /// Opens `path`, made (mode 0755) when it does not exist.
    package init(_ path: String) throws(LommeError) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        if mkdir(trimmed, 0o755) != 0 && errno != EEXIST {
            throw LommeError.failure("cannot make the folder \(path): \(String(cString: strerror(errno))); nothing was issued")
        }
        let descriptor = open(trimmed, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR
                ? "is not a folder (a file, or a symbolic link, which --output-dir does not follow); give a folder of your own"
                : "cannot be opened: \(String(cString: strerror(errno)))"
            throw LommeError.failure("\(path) \(reason); nothing was issued")
        }
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LommeError.failure("cannot read \(path): \(String(cString: strerror(errno))); nothing was issued")
        }
        if let problem = FolderCheck.problem(trimmed, owner: info.st_uid, mode: info.st_mode, isVaultFolder: false, what: "the codes") {
            throw LommeError.failure(problem + "; nothing was issued")
        }
        guard faccessat(descriptor, ".", W_OK, AT_EACCESS) == 0 else {
            throw LommeError.failure("cannot write into \(path): \(String(cString: strerror(errno))); nothing was issued")
        }
    }

    deinit { close(descriptor) }

    /// `name` moved aside to `name.old` (replacing an older one), when it exists: a code of
    /// a previous round is never left where the new one goes. False when there was none.
    @discardableResult
    package func moveAside(_ name: String) throws(LommeError) -> Bool {
        guard renameat(descriptor, name, descriptor, name + ".old") == 0 else {
            if errno == ENOENT { return false }
            throw LommeError.failure("cannot move \(path)/\(name) aside to \(name).old: \(String(cString: strerror(errno)))")
        }
        _ = fsync(descriptor)
        return true
    }

    /// Replaces `name` with `bytes`: a temp file (never following a link), written, synced,
    /// renamed over it, the folder synced. When this returns, the file is on disk.
    package func replace(_ name: String, with bytes: [UInt8], mode: mode_t) throws(LommeError) {
        let temp = "." + name + ".tmp-\(getpid())-" + Sodium.hex(Sodium.randomBytes(6))
        let file = openat(descriptor, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard file >= 0 else { throw failure("create a file in \(path)") }
        var done = false
        defer { if !done { unlinkat(descriptor, temp, 0) } }
        guard FileIO.writeAll(bytes, to: file), fsync(file) == 0 else {
            let error = failure("write \(path)/\(name)")
            close(file)
            throw error
        }
        guard close(file) == 0 else { throw failure("write \(path)/\(name)") }
        guard renameat(descriptor, temp, descriptor, name) == 0 else { throw failure("write \(path)/\(name)") }
        done = true
        guard fsync(descriptor) == 0 else { throw failure("sync \(path)") }
    }

    private func failure(_ what: String) -> LommeError {
        LommeError.failure("cannot \(what): \(String(cString: strerror(errno)))")
    }
}
