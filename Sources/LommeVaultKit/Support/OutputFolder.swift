import Glibc
import LommeCore

/// A folder the tool writes files into that others must not swap — `issue --all
/// --output-dir` the children's codes, `init --parent --recovery-kit` and `recovery kit
/// --output` the recovery kit — opened once and written relative to that descriptor: a link
/// swapped in for the folder or a file later changes nothing. Refused as the vault's own
/// folder is (FolderCheck), with the reason `.outputFolderUnsafe`: owned by another user, or
/// writable by others without the sticky bit, or a symbolic link (with or without a
/// trailing slash) — whoever could write there could swap two children's codes, or replace
/// a kit with one of their own before it is printed. This is the one check for all of them.
package final class OutputFolder {
    package let path: String
    let descriptor: Int32
    /// What is left undone when a write fails ("nothing was issued"), said after the reason.
    let unchanged: String

    /// Opens `path`, made with any missing folder above it (each mode 0700, as the vault's
    /// folder) when it does not exist and `make`. `holding`: what the folder is for ("the
    /// codes"), `unchanged`: what a refusal leaves undone.
    package init(_ path: String, holding: String = "the codes", make: Bool = true, unchanged: String = "nothing was issued") throws(LommeError) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        self.unchanged = unchanged
        if make { try Self.makeMissing(trimmed, holding: holding, unchanged: unchanged) }
        let descriptor = open(trimmed, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP || errno == ENOTDIR {
                throw LommeError.failure(.outputFolderUnsafe, "\(path) is not a folder (a file, or a symbolic link, which is not followed); give a folder of your own; \(unchanged)")
            }
            throw LommeError.failure(.folderUnreadable, "the folder \(path) cannot be opened: \(String(cString: strerror(errno))); \(unchanged)")
        }
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LommeError.failure(.folderUnreadable, "cannot read \(path): \(String(cString: strerror(errno))); \(unchanged)")
        }
        if let problem = FolderCheck.problem(trimmed, owner: info.st_uid, mode: info.st_mode, isVaultFolder: false, what: holding) {
            throw LommeError.failure(.outputFolderUnsafe, problem + "; \(unchanged)")
        }
        guard faccessat(descriptor, ".", W_OK, AT_EACCESS) == 0 else {
            throw LommeError.failure(.folderNotWritable, "cannot write into \(path): \(String(cString: strerror(errno))); \(unchanged)")
        }
    }

    /// Makes `path` and the folders above it that are missing, each mode 0700. The nearest
    /// one that exists, which they go into, must pass the check every output folder passes
    /// (FolderCheck: this user's or root's, not writable by others unless sticky) and must
    /// not be a symbolic link: whoever could write there could swap the new folders.
    static func makeMissing(_ path: String, holding: String, unchanged: String) throws(LommeError) {
        var missing: [String] = []
        var current = path
        var info = stat()
        while lstat(current, &info) != 0 {
            guard errno == ENOENT else { return }  // opening it says what is wrong
            missing.append(current)
            guard let slash = current.lastIndex(of: "/") else { current = "."; break }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
        }
        guard !missing.isEmpty, lstat(current, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw LommeError.failure(.outputFolderUnsafe, "\(current) is a symbolic link, which is not followed; give a path through folders of your own; \(unchanged)")
        }
        if let problem = FolderCheck.problem(current, owner: info.st_uid, mode: info.st_mode, isVaultFolder: false, what: holding) {
            throw LommeError.failure(.outputFolderUnsafe, problem + "; \(unchanged)")
        }
        for folder in missing.reversed() where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw LommeError.failure(.folderNotMade, "cannot make the folder \(folder): \(String(cString: strerror(errno))); \(unchanged)")
        }
    }

    /// The folder that holds `file` (a path as given: `kit.pdf` is in ".") and the file's
    /// name in it.
    package static func split(_ file: String) -> (folder: String, name: String) {
        guard let slash = file.lastIndex(of: "/") else { return (".", file) }
        return (slash == file.startIndex ? "/" : String(file[..<slash]), String(file[file.index(after: slash)...]))
    }

    /// True when something (a file, a link, a folder) is called `name` in the folder.
    package func holds(_ name: String) -> Bool {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0
    }

    deinit { close(descriptor) }

    /// `name` moved aside to `name.old` (replacing an older one), when it exists: a code of
    /// a previous round is never left where the new one goes. False when there was none.
    @discardableResult
    package func moveAside(_ name: String) throws(LommeError) -> Bool {
        guard renameat(descriptor, name, descriptor, name + ".old") == 0 else {
            if errno == ENOENT { return false }
            throw LommeError.failure(.fileNotMovedAside, "cannot move \(path)/\(name) aside to \(name).old: \(String(cString: strerror(errno)))")
        }
        _ = fsync(descriptor)
        return true
    }

    /// Replaces `name` with `bytes`: a temp file (never following a link), written, synced,
    /// renamed over it, the folder synced. When this returns, the file is on disk.
    package func replace(_ name: String, with bytes: [UInt8], mode: mode_t) throws(LommeError) {
        try FileIO.replace(name, in: descriptor, path: path, with: bytes, mode: mode, reason: .fileNotWritten)
    }
}
