import Glibc
import LommeCore

/// The folder the parents' machines share (`sync DIR`): opened once, read and written
/// relative to that descriptor, never following a link. Each machine writes files of its
/// own only — `lomme-FINGERPRINT.journal`, and `lomme-FINGERPRINT.handover-FINGERPRINT` for a
/// new parent — atomically (a temp file, fsync, rename, fsync the folder), so a sync tool
/// never carries half a file; every other file (`.git/`, `.stfolder`, Syncthing's temp and
/// conflict copies, anything else) is left alone. The folder is refused as an output folder
/// is (FolderCheck): another user who can write into it could swap the files. What it holds
/// is untrusted all the same: every file is checked when it is read (SyncService).
package final class SyncFolder {
    package let path: String
    let descriptor: Int32

    /// Opens `path`, made (mode 0700) when it does not exist yet.
    package init(_ path: String) throws(LommeError) {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.path = trimmed
        if mkdir(trimmed, 0o700) != 0 && errno != EEXIST {
            throw LommeError.failure(.syncFolderUnusable, "cannot make the sync folder \(path): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(trimmed, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR
                ? "is not a folder (a file, or a symbolic link, which sync does not follow); give the folder itself"
                : "cannot be opened: \(String(cString: strerror(errno)))"
            throw LommeError.failure(.syncFolderUnusable, "the sync folder \(path) \(reason)")
        }
        self.descriptor = descriptor
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LommeError.failure(.syncFolderUnusable, "cannot read the sync folder \(path): \(String(cString: strerror(errno)))")
        }
        if let problem = FolderCheck.problem(trimmed, owner: info.st_uid, mode: info.st_mode, isVaultFolder: false, what: "the household's files") {
            throw LommeError.failure(.syncFolderUnusable, problem)
        }
    }

    deinit { close(descriptor) }

    /// This machine's journal's name, and a new parent's hand-over's.
    package static func journalName(_ issuer: IssuerKey) -> String { "lomme-" + stem(issuer) + ".journal" }
    package static func handOverName(from issuer: IssuerKey, to recipient: IssuerKey) -> String {
        "lomme-" + stem(issuer) + ".handover-" + stem(recipient)
    }

    static func stem(_ issuer: IssuerKey) -> String { Fingerprint.normalized(issuer.fingerprint).lowercased() }

    /// What a file of the folder is to lomme-vault, by its name alone.
    package enum Entry: Equatable, Sendable {
        /// `lomme-FP.journal`: the journal of the machine of that fingerprint.
        case journal(writer: String)
        /// `lomme-FP.handover-FP2`: a hand-over from FP to FP2.
        case handOver(writer: String, to: String)
    }

    /// The name's meaning; nil for every file lomme-vault leaves alone.
    package static func entry(_ name: String) -> Entry? {
        guard name.hasPrefix("lomme-") else { return nil }
        let rest = name.dropFirst("lomme-".count)
        let valid = { (text: Substring) in text.count == 16 && text.allSatisfy { "abcdefghjklmnpqrstuvwxyz23456789".contains($0) } }
        if rest.hasSuffix(".journal") {
            let stem = rest.dropLast(".journal".count)
            return valid(stem) ? .journal(writer: String(stem)) : nil
        }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 2, valid(parts[0]), parts[1].hasPrefix("handover-") {
            let to = parts[1].dropFirst("handover-".count)
            return valid(to) ? .handOver(writer: String(parts[0]), to: String(to)) : nil
        }
        return nil
    }

    /// The names of the folder's files lomme-vault reads, sorted.
    package func entries() throws(LommeError) -> [(name: String, entry: Entry)] {
        let copy = dup(descriptor)
        guard copy >= 0, let dir = fdopendir(copy) else {
            throw LommeError.failure(.syncFolderUnusable, "cannot list the sync folder \(path): \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var found: [(String, Entry)] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if let entry = Self.entry(name) { found.append((name, entry)) }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    /// The bytes of the file `name` (a regular file, not a link, at most `limit` bytes).
    package func read(_ name: String, limit: Int) throws(LommeError) -> [UInt8] {
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else {
            throw LommeError.refused(.householdFileDamaged, errno == ELOOP ? "it is a symbolic link, which sync does not follow" : "it cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw LommeError.refused(.householdFileDamaged, "it is not a regular file")
        }
        guard info.st_size <= off_t(limit) else { throw LommeError.refused(.householdFileDamaged, "it is larger than any household file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= limit {
            let count = Glibc.read(file, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw LommeError.refused(.householdFileDamaged, "it cannot be read: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        guard bytes.count <= limit else { throw LommeError.refused(.householdFileDamaged, "it is larger than any household file") }
        return bytes
    }

    /// Replaces this machine's file `name` with `bytes`: a temp file (`.NAME.tmp-PID-RANDOM`,
    /// never following a link), written, synced, renamed over it, the folder synced. A temp
    /// file of `name` a killed writer left is removed first, so the folder (which a sync tool
    /// carries to every machine) keeps no half-written file.
    package func replace(_ name: String, with bytes: [UInt8]) throws(LommeError) {
        removeLeftovers(of: name)
        try FileIO.replace(name, in: descriptor, path: path, with: bytes, mode: 0o600, reason: .syncFolderUnusable)
    }

    /// Removes the temp files of `name` whose writer is gone (killed between making one and
    /// renaming it): only this machine writes files of its names, and a temp file of a
    /// writer still running (another sync of this machine) is left to it. Returns the names
    /// removed.
    @discardableResult
    func removeLeftovers(of name: String) -> [String] {
        let prefix = "." + name + ".tmp-"
        let copy = dup(descriptor)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var removed: [String] = []
        while let item = readdir(dir) {
            let entry = withUnsafeBytes(of: item.pointee.d_name) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard entry.hasPrefix(prefix), let pid = entry.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }) else { continue }
            let gone = pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
            if gone, unlinkat(descriptor, entry, 0) == 0 { removed.append(entry) }
        }
        return removed
    }
}
