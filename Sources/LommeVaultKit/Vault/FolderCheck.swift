import Glibc
import LommeCore

/// OpenSSH's StrictModes for the vault's folder: another user who can write into it, or
/// into a folder above it, could swap in an old vault, or hold the lock forever.
enum FolderCheck {
    /// The problem with a folder's owner and mode, or nil when it is safe. `isVaultFolder`:
    /// the folder holding the vault itself must be writable by its owner only; a folder
    /// above it may be writable by others when its sticky bit is set (as /tmp), since then
    /// they cannot rename or remove what is not theirs.
    /// `what` is what the folder holds ("the vault", "the codes").
    static func problem(_ path: String, owner: uid_t, mode: mode_t, isVaultFolder: Bool, user: uid_t = getuid(),
                        what: String = "the vault") -> String? {
        let shownMode = String(mode & 0o7777, radix: 8)
        let own = what == "the vault" ? "keep the vault in a folder of your own (--vault PATH)" : "use a folder of your own"
        if owner != user && owner != 0 {
            return "the folder \(path) belongs to another user (uid \(owner)), who could swap \(what); \(own)"
        }
        let writableByOthers = mode & mode_t(S_IWGRP | S_IWOTH) != 0
        let sticky = mode & mode_t(S_ISVTX) != 0
        if writableByOthers && (isVaultFolder || !sticky) {
            return "the folder \(path) has mode \(shownMode), so other users may write into it and swap \(what); run `chmod go-w \(path)` and try again"
        }
        return nil
    }

    /// Checks the vault's folder and every folder above it; a missing folder is no problem
    /// (the caller creates it 0700, or finds no vault).
    static func check(_ directory: String) throws(LommeError) {
        guard let resolved = realpath(directory, nil) else { return }
        var current = String(cString: resolved)
        free(resolved)
        var isVaultFolder = true
        while true {
            var info = stat()
            if stat(current, &info) == 0,
               let problem = problem(current, owner: info.st_uid, mode: info.st_mode, isVaultFolder: isVaultFolder) {
                throw LommeError.failure(.vaultFolderUnsafe, problem)
            }
            guard current != "/", let slash = current.lastIndex(of: "/") else { return }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
            isVaultFolder = false
        }
    }

    /// The lock file, opened without following a link: a regular file of this user.
    static func checkLockFile(_ descriptor: Int32, path: String) throws(LommeError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw LommeError.failure(.lockFileUnsafe, "the lock file \(path) is not a regular file; remove it and try again")
        }
        guard info.st_uid == getuid() else {
            throw LommeError.failure(.lockFileUnsafe, "the lock file \(path) belongs to another user (uid \(info.st_uid)), who could hold the lock forever; remove it (`rm \(path)`) and try again")
        }
    }
}
