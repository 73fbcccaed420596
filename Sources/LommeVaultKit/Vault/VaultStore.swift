import Glibc
import LommeCore

/// Where the vault lives and how it is read and written: mode 0600 in a 0700
/// directory that no other user can write (`FolderCheck`), atomic replace (temp file →
/// fsync → rename → fsync directory), one `.bak`, writers serialised by an exclusive
/// `flock` on `PATH.lock`.
package struct VaultStore: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// `--vault`, else `LOMME_VAULT`, else `$XDG_DATA_HOME/lomme-vault/vault`, else
    /// `~/.local/share/lomme-vault/vault`.
    package static func resolve(option: String?, environment: [String: String]) throws(LommeError) -> VaultStore {
        if let option, !option.isEmpty { return VaultStore(path: option) }
        if let value = environment["LOMME_VAULT"], !value.isEmpty { return VaultStore(path: value) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return VaultStore(path: data + "/lomme-vault/vault")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw LommeError.failure(.homeNotSet, "cannot find the vault: HOME is not set; pass --vault PATH or set LOMME_VAULT")
        }
        return VaultStore(path: home + "/.local/share/lomme-vault/vault")
    }

    package var directory: String { AtomicFile.directory(of: path) }

    var name: String { AtomicFile.name(of: path) }

    package var backupPath: String { path + ".bak" }
    package var lockPath: String { path + ".lock" }

    package var exists: Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The canonical path of the vault file (for naming its keyring key).
    package var realPath: String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads the vault file's bytes, refusing one that others can read. Exit 6 when
    /// there is none.
    package func read() throws(LommeError) -> [UInt8] {
        try FolderCheck.check(directory)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                throw LommeError(.notFound, .noVault, "no vault at \(path); create one with `lomme-vault init` or `lomme-vault import`")
            }
            if code == ELOOP {
                throw LommeError.failure(.vaultIsLink, "\(path) is a symbolic link; lomme-vault opens only a real file (pass the link's target with --vault)")
            }
            throw LommeError.failure(.vaultUnreadable, "cannot open the vault \(path): \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw LommeError.failure(.vaultNotAFile, "\(path) is not a regular file")
        }
        guard info.st_uid == getuid() else {
            throw LommeError.failure(.vaultNotOwn, "the vault \(path) belongs to another user (uid \(info.st_uid)); refusing to use it")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw LommeError.failure(.vaultReadableByOthers, "the vault \(path) has mode \(mode), so other users may read it; run `chmod 600 \(path)` and try again")
        }
        guard info.st_size <= off_t(VaultFormat.maximumFileLength) else {
            throw LommeError(.damaged, .vaultDamaged, "the vault file is damaged (it is larger than 8 MiB); restore it from the .bak next to it or re-import")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw LommeError.failure(.vaultUnreadable, "cannot read the vault \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > VaultFormat.maximumFileLength { break }
        }
        return bytes
    }

    /// Creates the vault's directory (0700) when it is missing.
    func makeDirectory() throws(LommeError) {
        var parts: [String] = []
        var current = directory
        var info = stat()
        while stat(current, &info) != 0 {
            guard errno == ENOENT else { break }
            parts.append(current)
            guard let slash = current.lastIndex(of: "/"), slash != current.startIndex else { break }
            current = String(current[..<slash])
        }
        for dir in parts.reversed() {
            if mkdir(dir, 0o700) != 0 && errno != EEXIST {
                throw LommeError.failure(.folderNotMade, "cannot create the directory \(dir): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Runs `body` holding the exclusive write lock (`PATH.lock`, `flock`).
    package func withWriteLock<R>(_ body: () throws(LommeError) -> R) throws(LommeError) -> R {
        try makeDirectory()
        try FolderCheck.check(directory)
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw LommeError.failure(.lockFileUnsafe, "the lock file \(lockPath) is a symbolic link; remove it (`rm \(lockPath)`) and try again")
            }
            throw LommeError.failure(.lockFailed, "cannot create the lock file \(lockPath): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }  // closing releases the lock
        try FolderCheck.checkLockFile(descriptor, path: lockPath)
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw LommeError.failure(.lockFailed, "cannot lock \(lockPath): \(String(cString: strerror(errno)))")
            }
        }
        removeLeftovers()
        return try body()
    }

    /// Temp files of writers that were killed (`kill -9`, a crash, power loss) between
    /// creating them and renaming them: `.NAME.tmp-PID-RANDOM` and `.NAME.bak-PID-RANDOM`.
    /// Only a writer holding the lock makes them, so whoever holds it may remove them.
    /// Returns the names removed.
    @discardableResult
    func removeLeftovers() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        let prefixes = ["." + name + ".tmp-", "." + name + ".bak-"]
        var removed: [String] = []
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard prefixes.contains(where: { entryName.hasPrefix($0) }) else { continue }
            if unlink(directory + "/" + entryName) == 0 { removed.append(entryName) }
        }
        return removed
    }

    /// What becomes of the `.bak` when the vault is replaced.
    package enum Backup: Sendable {
        /// The current vault becomes the `.bak` (every ordinary write).
        case previous
        /// The new vault becomes the `.bak` too, before it replaces the vault: chosen by
        /// `write` itself for a write that removes a key, so that no file under the removed
        /// key stays behind (`passwd`, `unenroll`, a new recovery kit).
        case same
        /// The `.bak` stays as it is: a write that changes nothing it would restore (a
        /// slot's "last unlock" time), so it does not push the last real change out of it.
        case keep
    }

    /// The `.bak` a write of `bytes` leaves: the one asked for, unless the write removes a
    /// key that opens the current file (`VaultFormat.Sealed.keepsEveryKey`): then the new
    /// file, whatever was asked. The one rule every slot change follows.
    func backup(writing bytes: [UInt8], asked: Backup) -> Backup {
        guard let current = try? VaultFormat.parse(try read()), let new = try? VaultFormat.parse(bytes) else { return asked }
        return new.keepsEveryKey(of: current) ? asked : .same
    }

    /// Replaces the vault with `bytes` atomically, keeping the current one as `.bak` (or the
    /// new one when the write removes a key, or none new with `.keep`: `backup(writing:asked:)`).
    /// Call inside `withWriteLock`. `key` is the vault key
    /// `bytes` are sealed under: the new file is read back from the disk before it is
    /// renamed over the old one, and refused unless it parses, its key check holds with
    /// `key` and its body opens, so a bad write (a bug, a short write the disk did not
    /// report) never replaces a good vault.
    package func write(_ bytes: [UInt8], key: SecureBytes, backup asked: Backup = .previous) throws(LommeError) {
        // Larger than any vault lomme-vault reads (VaultFormat.parse): said as what it is, not
        // found later as a new file that does not read back.
        guard bytes.count <= VaultFormat.maximumFileLength else {
            throw LommeError.failure(.vaultTooLarge, "the vault would grow to \(bytes.count / 1024) KiB, more than the 8 MiB a vault may hold, so nothing was written (the old vault is unchanged); make room first: remove a large extra field (`lomme-vault set FIELD` with a shorter value), or children (`lomme-vault child remove NAME`)")
        }
        try makeDirectory()
        let backup = self.backup(writing: bytes, asked: asked)
        var unreadable = false
        do {
            try AtomicFile.replace(path, with: bytes, mode: 0o600) { (temp, suffix) throws(AtomicFile.Failure) in
                guard Self.readsBack(temp, key: key) else {
                    unreadable = true
                    throw AtomicFile.Failure(step: "read back the new file", code: EIO)
                }
                try replaceBackup(newVault: temp, suffix: suffix, backup: backup)
            }
        } catch {
            if unreadable {
                throw LommeError.failure(.vaultNotReadBack, "the new vault read back from \(directory) did not parse or open with the vault's key, so it was not written; the old vault is unchanged (check the disk, and report this)")
            }
            throw LommeError.failure(.vaultNotWritten, "cannot write the vault \(path) (\(error.step): \(error.reason)); the old vault is unchanged")
        }
    }

    /// True when the file at `path` parses as a vault whose key check holds with `key` and
    /// whose body opens with it.
    static func readsBack(_ path: String, key: SecureBytes) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= VaultFormat.maximumFileLength {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        guard let sealed = try? VaultFormat.parse(bytes), VaultFormat.matches(sealed, master: key) else { return false }
        return (try? VaultFormat.open(sealed, master: key)) != nil
    }

    /// The current vault (or, with `.same`, the new one at `newVault`) becomes the .bak: a
    /// hard link under a temp name, renamed over the old .bak, so the .bak too is always
    /// whole. With `.same` this comes before the vault is replaced: a crash in between
    /// leaves the old vault and a .bak under the new passphrase, both whole.
    func replaceBackup(newVault: String, suffix: String, backup: Backup) throws(AtomicFile.Failure) {
        guard backup != .keep, backup == .same || exists else { return }
        let backupTemp = directory + "/." + name + ".bak-" + suffix
        var replaced = false
        if link(backup == .same ? newVault : path, backupTemp) == 0 {
            replaced = rename(backupTemp, backupPath) == 0
            // When the .bak already is the vault (a writer killed between its two
            // renames leaves them as one file), rename() succeeds without doing
            // anything and the temp name stays: remove it whatever happened.
            unlink(backupTemp)
        }
        // A .bak under the old passphrase must not outlive `passwd`: no .bak rather than that one.
        if backup == .same && !replaced && unlink(backupPath) != 0 && errno != ENOENT {
            throw AtomicFile.Failure(step: "replace \(backupPath)", code: errno)
        }
    }
}
