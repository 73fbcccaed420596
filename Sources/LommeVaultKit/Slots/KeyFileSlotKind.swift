import Glibc
import LommeCore

extension SlotKind {
    /// A key-file slot, the `keyfile` kind: the LUKS key file or age identity file of this
    /// tool, for a USB stick or a machine without a TPM. `enroll keyfile PATH` creates PATH
    /// (never over an existing file) holding 32 random bytes, mode 0400; `unlock --with
    /// keyfile PATH` opens the vault with it, no question asked. Whoever copies the file
    /// opens the vault: it is a bearer secret (docs/threat-model.md). A key-file slot needs
    /// its file to take a new file key, so it has no `rewrap`: `passwd` keeps the file key,
    /// `passwd --rotate` removes the slot.
    ///
    /// Kind byte 3. Parameters: a salt (16). Key-encryption key: keyed BLAKE2b-256 of a
    /// domain, the vault's salt and the slot's salt, keyed by the file's 32 bytes, so one
    /// file gives another key in every slot and every vault (docs/FORMAT.md). A file
    /// readable by group or others, or owned by another user, is refused, as OpenSSH
    /// refuses such a private key.
    package static let keyFile = SlotKind(
        name: "keyfile", byte: VaultSlot.Kind(rawValue: 3), argument: "PATH", enrollable: true,
        help: Help(
            enroll: """
            `enroll keyfile PATH` creates PATH (never over an existing file) with 32 random bytes, mode 0400; \
            `unlock --with keyfile PATH` opens the vault with it and no question, so whoever copies the file opens the \
            vault: keep it on a USB stick, out of backups and synced folders.
            """,
            unlock: "--with keyfile PATH reads the key file `enroll keyfile` made (mode 0400; a file others may read is refused)."),
        facts: { parameters in
            // Any program that can read the file opens the vault with it: no person is proven.
            parameters.count == KeyFileSlotKind.saltLength
                ? SlotFacts(details: "key file", provesAPerson: false, enrollAgain: "lomme-vault enroll keyfile NEW-PATH") : nil
        },
        make: { context, request throws(LommeError) in try KeyFileSlotKind.make(request) },
        open: { context, sealed, request throws(LommeError) in try KeyFileSlotKind.open(context, sealed, request) })
}

/// What the `keyfile` kind does.
enum KeyFileSlotKind {
    static let fileLength = 32
    static let saltLength = 16
    static let domain: [UInt8] = Array("lomme-vault keyfile v2".utf8) + [0]

    static func kek(file: SecureBytes, slotSalt: [UInt8], vaultSalt: [UInt8]) -> SecureBytes {
        SecureBytes(copying: Sodium.blake2b(domain + vaultSalt + slotSalt, length: XChaCha.keyLength, key: file))
    }

    static func path(_ request: SlotRequest) throws(LommeError) -> String {
        guard let path = request.argument, !path.isEmpty else {
            throw LommeError.usage(.keyFilePathMissing, "a key-file slot needs the file's path: `lomme-vault enroll keyfile PATH` or `lomme-vault unlock --with keyfile PATH`")
        }
        return path
    }

    /// A path that exists already is said before the passphrase is asked; the second step
    /// checks again, creating the file with O_EXCL.
    static func make(_ request: SlotRequest) throws(LommeError) -> SlotKind.Maker {
        let path = try Self.path(request)
        var info = stat()
        if lstat(path, &info) == 0 { throw exists(path) }
        return { vaultSalt throws(LommeError) in try KeyFileSlotKind.make(path, vaultSalt: vaultSalt) }
    }

    static func exists(_ path: String) -> LommeError {
        LommeError.failure(.outputFileExists, "\(TerminalText.line(path)) exists; lomme-vault never overwrites a key file: name a new file")
    }

    static func make(_ path: String, vaultSalt: [UInt8]) throws(LommeError) -> SlotEnrollment {
        let shown = TerminalText.line(path)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o400)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw exists(path) }
            throw LommeError.failure(.keyFileNotWritten, "cannot create the key file \(shown): \(String(cString: strerror(code)))")
        }
        let file = SecureBytes.random(count: fileLength)
        let written = file.withUnsafeBytes { raw in Glibc.write(descriptor, raw.baseAddress, raw.count) == raw.count }
        guard written, fchmod(descriptor, 0o400) == 0, fsync(descriptor) == 0 else {
            let code = errno
            close(descriptor)
            unlink(path)
            throw LommeError.failure(.keyFileNotWritten, "cannot write the key file \(shown): \(String(cString: strerror(code))); nothing was enrolled")
        }
        close(descriptor)
        let slotSalt = Sodium.randomBytes(saltLength)
        return SlotEnrollment(
            parameters: slotSalt, kek: kek(file: file, slotSalt: slotSalt, vaultSalt: vaultSalt), summary: "keyfile \(shown)",
            notes: ["Whoever copies \(shown) opens the vault with it: keep it off this machine (a USB stick), never in a backup or a synced folder, and if it may have been copied run `lomme-vault unenroll keyfile` and `lomme-vault passwd --rotate`."],
            undo: { unlink(path) })
    }

    /// The key file's 32 bytes, after checking who may read it.
    static func read(_ path: String) throws(LommeError) -> SecureBytes {
        let shown = TerminalText.line(path)
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw LommeError.failure(.keyFileUnreadable, "cannot read the key file \(shown): \(String(cString: strerror(code)))\(code == ENOENT ? "; give the path `lomme-vault enroll keyfile` created (is the USB stick mounted?)" : "")")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw LommeError.failure(.keyFileNotAFile, "\(shown) is not a regular file; give the key file `lomme-vault enroll keyfile` created")
        }
        try SecretFile.checkOwner(info, path: path, noun: "key")
        guard info.st_mode & 0o077 == 0 else {
            throw LommeError.failure(.keyFileReadableByOthers, "the key file \(shown) has mode \(String(info.st_mode & 0o777, radix: 8)), so other users may read it; run `chmod 400 \(shown)`, and since it may have been copied, `lomme-vault passwd --rotate` (then enroll a new key file)")
        }
        guard info.st_size == off_t(fileLength) else {
            throw LommeError(.wrongPassphrase, .keyFileNotOne, "\(shown) is not a lomme-vault key file (\(info.st_size) bytes; a key file holds \(fileLength))")
        }
        let file = SecureBytes(count: fileLength)
        let count = file.withUnsafeMutableBytes { raw in Glibc.read(descriptor, raw.baseAddress, fileLength) }
        guard count == fileLength else {
            throw LommeError.failure(.keyFileUnreadable, "cannot read the key file \(shown): it was cut short while being read")
        }
        return file
    }

    static func open(_ context: VaultContext, _ sealed: VaultFormat.Sealed, _ request: SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let slots = sealed.slots.filter { $0.kind == SlotKind.keyFile.byte }
        guard !slots.isEmpty else {
            throw LommeError.failure(.keyFileSlotMissing, "this vault has no key-file slot; add one with `lomme-vault enroll keyfile PATH`, or unlock with the passphrase (`lomme-vault unlock`)")
        }
        let path = try Self.path(request)
        let file = try Self.read(path)
        for slot in slots where slot.parameters.count == saltLength {
            if let key = slot.unwrap(kek: kek(file: file, slotSalt: slot.parameters, vaultSalt: sealed.salt), vaultSalt: sealed.salt) {
                return (key, slot.id)
            }
        }
        throw LommeError(.wrongPassphrase, .keyFileWrong, "the key file \(TerminalText.line(path)) opens no key-file slot of \(context.store.path); give the file `enroll keyfile` made for this vault, or unlock with the passphrase")
    }
}
