import Glibc
import LommeCore

/// Unlock, lock (with the tokens, which open the bank API as the secret does), lock --all
/// and passwd: the session flows, one place for every front end.
package struct UnlockService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    package struct Unlocked: Sendable {
        /// The session's hard end (Unix seconds).
        package var deadline: UInt64
        /// True when a live session was kept (its end not moved), false when a passphrase
        /// proven now set a new 12 h end.
        package var keptLiveSession: Bool
        /// The secret-expiry warning of the stored config, if its day is near or past.
        package var warning: String? = nil
    }

    /// Keeps the vault's key in the keyring for `idle` seconds of non-use. A live session
    /// changes its idle timeout only: its deadline was set when the passphrase was proven,
    /// and only a passphrase proven now (given with --passphrase-fd/--passphrase-file, or
    /// after `lock`) sets a new one.
    package func unlock(idle: UInt32, _ options: UnlockOptions) throws(LommeError) -> Unlocked {
        let sealed = try VaultFormat.parse(try context.store.read())
        let master: SecureBytes
        var liveDeadline: UInt64? = nil
        var slot: UInt8? = nil
        var openedBy: VaultSlot.Kind? = SlotKind.passphrase.byte
        if options.source == .terminal, let (key, state) = Session.fromKeyring(context, sealed) {
            master = key
            liveDeadline = state.deadline
            openedBy = state.openedBy
        } else {
            (master, slot) = try Session.passphraseKey(context, sealed, options)
            _ = try VaultFormat.open(sealed, master: master)  // a damaged body is exit 5 now, not later
        }
        return try keep(sealed, master: master, slot: slot, idle: idle, liveDeadline: liveDeadline, openedBy: openedBy)
    }

    /// `unlock --with KIND`: the vault key from a slot of that kind (a TPM slot, a key
    /// file), asking what the kind asks. A slot that takes a person (a TPM PIN) sets a new
    /// 12 h deadline, as a passphrase proven now does; one that opens for any program (a
    /// key file, a TPM slot without PIN) keeps a live session's deadline, so a script
    /// cannot keep the vault unlocked for ever, and starts a new session only when none is
    /// live. The passphrase kind goes through `unlock(idle:_:)`, with `options`.
    package func unlock(with kind: SlotKind, idle: UInt32, _ request: SlotRequest, passphrase options: UnlockOptions = UnlockOptions()) throws(LommeError) -> Unlocked {
        if kind.byte == SlotKind.passphrase.byte { return try unlock(idle: idle, options) }
        let sealed = try VaultFormat.parse(try context.store.read())
        let (key, slot) = try kind.open(context, sealed, request)
        _ = try VaultFormat.open(sealed, master: key)  // a damaged header or body is exit 5 now
        let person = sealed.slots.first { $0.id == slot }.flatMap { kind.facts($0.parameters)?.provesAPerson } ?? false
        let live = person ? nil : Session.fromKeyring(context, sealed)?.state.deadline
        return try keep(sealed, master: key, slot: slot, idle: idle, liveDeadline: live, openedBy: kind.byte)
    }

    /// Puts `master` in the keyring and notes when `slot` was last used.
    func keep(_ sealed: VaultFormat.Sealed, master: SecureBytes, slot: UInt8?, idle: UInt32, liveDeadline: UInt64?,
              openedBy: VaultSlot.Kind?) throws(LommeError) -> Unlocked {
        if let slot { SlotUse.note(context.store, slot: slot, key: master) }
        do {
            let deadline = try Session.store(context.keyring, sealed, master: master, idle: idle, deadline: liveDeadline, openedBy: openedBy)
            let contents = try? VaultContents(plaintext: VaultFormat.open(sealed, master: master))
            return Unlocked(deadline: deadline, keptLiveSession: liveDeadline != nil,
                            warning: contents?.secretWarning(now: Int64(time(nil))))
        } catch {
            throw LommeError.failure(.keyringUnavailable, "\(error.summary), so the vault cannot stay unlocked; commands will ask for the passphrase instead")
        }
    }

    package enum Locked: Sendable, Equatable {
        /// The keyring is refused here, so nothing was ever kept unlocked.
        case keyringUnavailable(reason: String)
        /// `sessions` sessions and `tokens` cached tokens were forgotten.
        case forgot(sessions: Int, tokens: Int)
    }

    /// Forgets this vault's session and its cached tokens. Exit 6 when there is no vault.
    package func lock() throws(LommeError) -> Locked {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "no vault at \(store.path), so no session to find by it; `lomme-vault lock --all` forgets every session and token of this user")
        }
        let salt = try VaultFormat.parse(try store.read()).salt
        let removed: Bool
        do {
            removed = try Session.lock(context.keyring, salt: salt)
        } catch {
            return .keyringUnavailable(reason: error.reason)
        }
        // A cached access token opens the bank API as the secret does: it goes too.
        let tokens = TokenCache.forgetAll(vaultID: Session.vaultID(salt: salt), keyring: context.keyring)
        return .forgot(sessions: removed ? 1 : 0, tokens: tokens)
    }

    /// Forgets every session and cached token of this user, whatever vault they belong to.
    package func lockAll() -> Locked {
        do {
            let (sessions, tokens) = try Session.lockAll(context.keyring)
            return .forgot(sessions: sessions, tokens: tokens)
        } catch {
            return .keyringUnavailable(reason: error.reason)
        }
    }

    /// A new passphrase, and a new file key when no slot is lost by it or `forceRotation`
    /// says so (`passwd --rotate`): PassphraseChange.
    /// `request` carries what a slot kind may need to take the new key (the recovery kit's
    /// `--recovery-file` or `--recovery-image`).
    package func changePassphrase(old: UnlockOptions, new: PassphraseSource, forceRotation: Bool = false,
                                  _ request: SlotRequest = SlotRequest()) throws(LommeError) -> PassphraseChange.Result {
        let context = context
        return try PassphraseChange.run(context, old: old, new: new, forceRotation: forceRotation) { (slot, oldSalt, newSalt, asking) throws(LommeError) in
            try context.slotKinds.of(slot.kind)?.rewrap?(context, request, slot, oldSalt, newSalt, asking)
        }
    }
}
