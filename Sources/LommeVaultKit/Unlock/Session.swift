import Glibc
import LommeCore

/// How a command may get the vault key.
package struct UnlockOptions: Sendable {
    /// Where a passphrase comes from when one is needed (default: the terminal).
    package var source: PassphraseSource
    /// Never prompt: locked means exit 3.
    package var noPrompt: Bool

    package init(source: PassphraseSource = .terminal, noPrompt: Bool = false) {
        self.source = source
        self.noPrompt = noPrompt
    }
}

/// A vault opened with its key.
package struct OpenedVault: Sendable {
    package let store: VaultStore
    package let sealed: VaultFormat.Sealed
    package let master: SecureBytes
    package var contents: VaultContents
    /// True when the key came from an unlocked session.
    package let fromKeyring: Bool
    /// That session's hard deadline and idle timeout; nil when a slot opened the vault.
    package var sessionDeadline: UInt64? = nil
    package var sessionIdle: UInt32? = nil
    /// The kind of slot that opened that session (nil: not known).
    package var sessionOpenedBy: VaultSlot.Kind? = nil
}

/// "Get me the vault key": the unlocked session in the kernel keyring first, else a
/// passphrase (fd, file, or the terminal), else exit 3.
package enum Session {
    /// The hard limit of an unlocked session, however often it is used.
    package static let hardLimit: UInt32 = 12 * 3600
    /// How long `unlock` keeps the vault open without use unless --timeout says otherwise.
    package static let defaultIdle: UInt32 = 600

    /// Says once per context that the keyring is refused here.
    static func tellUnavailable(_ problem: Keyring.Unavailable, _ context: VaultContext) {
        context.noticeOnce("session-keyring", "lomme-vault: warning: \(problem.summary); the vault cannot stay unlocked, so the passphrase is asked each time")
    }

    /// What every session key's description starts with.
    package static let keyPrefix = "lomme-vault:"

    /// The id the vault carries, for naming its keys: hex(BLAKE2b-128(salt)). The salt is
    /// random and in the header, so a vault that is moved or renamed keeps its id, and a new
    /// file key (`passwd`, `passwd --rotate`: new salt) gives it a new one.
    package static func vaultID(salt: [UInt8]) -> String {
        Sodium.hex(Sodium.blake2b(salt, length: 16))
    }

    /// `lomme-vault:` + the vault id. Not the path: `lock` must find the session of a
    /// vault that was moved since it was unlocked.
    package static func keyDescription(salt: [UInt8]) -> String {
        keyPrefix + vaultID(salt: salt)
    }

    /// What the keyring holds for a session: the vault key, its hard deadline, its idle
    /// timeout, and the kind of slot that opened it (format 2; a format 1 session, 45
    /// bytes, of an earlier lomme-vault, is read with that kind unknown).
    package struct Payload {
        var master: SecureBytes
        package var deadline: UInt64
        package var idle: UInt32
        package var openedBy: VaultSlot.Kind?

        static let length = 46
        static let format1Length = 45

        package func encoded() -> SecureBytes {
            let out = SecureBytes(count: Payload.length)
            out.withUnsafeMutableBytes { buffer in
                buffer[0] = 2
                master.withUnsafeBytes { buffer.baseAddress!.advanced(by: 1).copyMemory(from: $0.baseAddress!, byteCount: 32) }
                withUnsafeBytes(of: deadline.littleEndian) { buffer.baseAddress!.advanced(by: 33).copyMemory(from: $0.baseAddress!, byteCount: 8) }
                withUnsafeBytes(of: idle.littleEndian) { buffer.baseAddress!.advanced(by: 41).copyMemory(from: $0.baseAddress!, byteCount: 4) }
                buffer[45] = openedBy?.rawValue ?? 0
            }
            return out
        }

        package init(master: SecureBytes, deadline: UInt64, idle: UInt32, openedBy: VaultSlot.Kind? = nil) {
            self.master = master
            self.deadline = deadline
            self.idle = idle
            self.openedBy = openedBy
        }

        package init?(_ bytes: SecureBytes) {
            let format = bytes.count > 0 ? bytes.withUnsafeBytes { $0[0] } : 0
            guard (format == 1 && bytes.count == Payload.format1Length) || (format == 2 && bytes.count == Payload.length) else { return nil }
            master = bytes.slice(1..<33)
            (deadline, idle) = bytes.withUnsafeBytes { raw in
                (raw[33..<41].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
                 raw[41..<45].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            }
            let kind = format == 2 ? bytes.withUnsafeBytes { $0[45] } : 0
            openedBy = kind == 0 ? nil : VaultSlot.Kind(rawValue: kind)
        }
    }

    /// The state of an unlocked session, for `status`.
    package struct State: Sendable {
        package var idle: UInt32
        package var deadline: UInt64
        package var kernelTimeout: String?
        /// The kind of slot that opened the session (nil: not known).
        package var openedBy: VaultSlot.Kind? = nil
    }

    static func now() -> UInt64 { UInt64(time(nil)) }

    /// The unlocked key for `sealed`, if there is a session: refreshes its timeout to
    /// min(idle, deadline − now). A key past its deadline or not matching the vault
    /// is removed.
    package static func fromKeyring(_ context: VaultContext, _ sealed: VaultFormat.Sealed, refresh: Bool = true) -> (master: SecureBytes, state: State)? {
        let description = keyDescription(salt: sealed.salt)
        let id: Keyring.KeyID
        do {
            guard let found = try context.keyring.find(description) else { return nil }
            id = found
        } catch {
            tellUnavailable(error, context)
            return nil
        }
        guard let raw = Keyring.read(id), let payload = Payload(raw) else { return nil }
        let current = now()
        guard payload.deadline > current, VaultFormat.matches(sealed, master: payload.master) else {
            Keyring.remove(id)
            return nil
        }
        if refresh {
            Keyring.setTimeout(id, UInt32(min(UInt64(payload.idle), payload.deadline - current)))
        }
        return (payload.master, State(idle: payload.idle, deadline: payload.deadline, kernelTimeout: Keyring.timeoutText(id),
                                      openedBy: payload.openedBy))
    }

    /// Reads and opens the vault: keyring first, then a passphrase.
    package static func open(_ context: VaultContext, _ options: UnlockOptions, useKeyring: Bool = true) throws(LommeError) -> OpenedVault {
        let store = context.store
        let sealed = try VaultFormat.parse(try store.read())
        if useKeyring, let (master, state) = fromKeyring(context, sealed) {
            let plaintext = try VaultFormat.open(sealed, master: master)
            return OpenedVault(store: store, sealed: sealed, master: master, contents: try VaultContents(plaintext: plaintext),
                               fromKeyring: true, sessionDeadline: state.deadline, sessionIdle: state.idle, sessionOpenedBy: state.openedBy)
        }
        let master = try deriveWithPassphrase(context, sealed, options)
        let plaintext = try VaultFormat.open(sealed, master: master)
        return OpenedVault(store: store, sealed: sealed, master: master, contents: try VaultContents(plaintext: plaintext), fromKeyring: false)
    }

    /// `passphraseKey`'s vault key alone.
    package static func deriveWithPassphrase(_ context: VaultContext, _ sealed: VaultFormat.Sealed, _ options: UnlockOptions,
                                             prompt: String? = nil) throws(LommeError) -> SecureBytes {
        try passphraseKey(context, sealed, options, prompt: prompt).key
    }

    /// Asks for the passphrase (three tries when it is asked, one from an fd or file) and
    /// returns the vault key once a passphrase slot (v2) or the key check (v1) accepts it,
    /// with the slot that did.
    package static func passphraseKey(_ context: VaultContext, _ sealed: VaultFormat.Sealed, _ options: UnlockOptions,
                                      prompt: String? = nil) throws(LommeError) -> (key: SecureBytes, slot: UInt8?) {
        let store = context.store
        let interaction = context.interaction
        if options.source == .terminal {
            guard !options.noPrompt, interaction.canAsk else {
                throw LommeError(.locked, .vaultLocked, "the vault is locked; run `lomme-vault unlock` in a terminal, or give the passphrase with --passphrase-fd or --passphrase-file")
            }
        }
        let tries = options.source == .terminal ? 3 : 1
        for attempt in 1...tries {
            let phrase = try Passphrase.existing(options.source, prompt: prompt ?? "Passphrase for \(store.path): ", interaction)
            let opened = try interaction.progress("unlocking…") { () throws(LommeError) in
                try VaultFormat.key(sealed, passphrase: phrase)
            }
            if let opened { return opened }
            if attempt < tries { interaction.notice("Wrong passphrase; try again.") }
        }
        switch options.source {
        case .terminal:
            throw LommeError(.wrongPassphrase, .passphraseWrong, "wrong passphrase for \(store.path) (\(tries) tries); run the command again" + forgotten(context, sealed))
        case .file(let path):
            throw LommeError(.wrongPassphrase, .passphraseWrong, "wrong passphrase for \(store.path): the first line of \(path) does not open it; check the file")
        case .descriptor(let fd):
            throw LommeError(.wrongPassphrase, .passphraseWrong, "wrong passphrase for \(store.path): the first line read from file descriptor \(fd) does not open it")
        }
    }

    /// After the last wrong passphrase typed: the way in when it is forgotten, where the
    /// vault has a slot of a kind that stands for the passphrase (the recovery kit's), else
    /// nothing. Kinds are asked by what they are, never by name.
    static func forgotten(_ context: VaultContext, _ sealed: VaultFormat.Sealed) -> String {
        for slot in sealed.slots {
            guard let kind = context.slotKinds.of(slot.kind), kind.standsForPassphrase, kind.byte != SlotKind.passphrase.byte,
                  let facts = kind.facts(slot.parameters) else { continue }
            return "; if the passphrase is forgotten, \(facts.details) opens the vault: `lomme-vault unlock --with \(kind.name)`, then `lomme-vault passwd` sets a new one"
        }
        return ""
    }

    /// Keeps `master` in the keyring for `idle` seconds of non-use, until `deadline` at the
    /// latest. Only a caller that has just proven the passphrase passes nil, which sets a
    /// new deadline 12 h from now; a caller holding a key from a live session passes that
    /// session's deadline, so using the session never pushes its end back. `openedBy` is
    /// the kind of slot that opened it (`passwd` asks no current passphrase only of a
    /// session a kind that `standsForPassphrase` opened).
    /// Returns the deadline kept.
    @discardableResult
    package static func store(_ keyring: Keyring, _ sealed: VaultFormat.Sealed, master: SecureBytes, idle: UInt32,
                             deadline existing: UInt64?, openedBy: VaultSlot.Kind? = nil) throws(Keyring.Unavailable) -> UInt64 {
        let current = now()
        let deadline = min(existing ?? UInt64.max, current + UInt64(hardLimit))
        guard deadline > current else { throw Keyring.Unavailable(reason: "the session has just ended") }
        let payload = Payload(master: master, deadline: deadline, idle: idle, openedBy: openedBy).encoded()
        _ = try keyring.add(keyDescription(salt: sealed.salt), payload: payload,
                            timeout: UInt32(min(UInt64(idle), deadline - current)))
        return deadline
    }

    /// Removes the session of `salt`'s vault; false when there was none.
    @discardableResult
    package static func lock(_ keyring: Keyring, salt: [UInt8]) throws(Keyring.Unavailable) -> Bool {
        guard let id = try keyring.find(keyDescription(salt: salt)) else { return false }
        Keyring.remove(id)
        return true
    }

    /// Removes every session and every cached token of this user, whatever vault they
    /// belong to (`lock --all`). Returns how many sessions and tokens went.
    package static func lockAll(_ keyring: Keyring) throws(Keyring.Unavailable) -> (sessions: Int, tokens: Int) {
        if keyring.disabled { throw keyring.unavailable(0) }
        var sessions = 0, tokens = 0
        for (id, description) in keyring.userKeys(type: "user") {
            if description.hasPrefix(keyPrefix) {
                sessions += 1
            } else if description.hasPrefix(TokenCache.prefix) {
                tokens += 1
            } else {
                continue
            }
            Keyring.remove(id)
        }
        return (sessions, tokens)
    }
}
