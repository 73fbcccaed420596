import LommeCore

/// The recovery-key slot, the `recovery` kind: the household's recovery key (printed on the
/// recovery kit) opens the vault when the passphrase is forgotten, as systemd-cryptenroll's
/// recovery keys open a disk. Made by `init --parent`, `recovery kit` and `init --parent
/// --restore`, never by `enroll`: a vault has at most one, and a new kit replaces it.
///
/// Parameters: a salt (16). Key-encryption key: `RecoveryKey.slotKEK` (keyed BLAKE2b of a
/// domain, the vault's salt and the slot's salt under the key's 136 bits; docs/FORMAT.md).
package struct RecoverySlotKind: SlotKind {
    package static let kind = VaultSlot.Kind.recovery
    package static let name = "recovery"
    package static let argument: String? = nil
    package static let options: Set<SlotOption> = [.recovery]
    package static let enrollable = false

    static let saltLength = 16

    package static func describe(_ parameters: [UInt8]) -> String? {
        parameters.count == saltLength ? "recovery key (the recovery kit)" : nil
    }

    package static func enrollAgain(_ parameters: [UInt8]) -> String { "lomme-vault recovery kit" }

    /// The recovery key is the household's paper secret, as strong as the passphrase it
    /// stands in for: it starts a new 12 h session, as the passphrase does.
    package static func provesAPerson(_ parameters: [UInt8]) -> Bool { true }

    let context: VaultContext
    package init(_ context: VaultContext) { self.context = context }

    /// The slot of `key` for the vault of `vaultSalt`, with id `id`.
    static func slot(_ key: RecoveryKey, fileKey: SecureBytes, id: UInt8, vaultSalt: [UInt8]) -> VaultSlot {
        let salt = Sodium.randomBytes(saltLength)
        return VaultSlot.wrap(fileKey, kind: kind, id: id, created: VaultSealing.now(), parameters: salt,
                              kek: key.slotKEK(vaultSalt: vaultSalt, slotSalt: salt), vaultSalt: vaultSalt)
    }

    package func make(vaultSalt: [UInt8], _ request: SlotRequest) throws(LommeError) -> SlotEnrollment {
        throw LommeError.usage("a recovery slot is made with the recovery kit (`lomme-vault init --parent`, `lomme-vault recovery kit`), not by enroll")
    }

    /// The file key from the recovery slot `key` opens; exit 4 when it opens none.
    package static func open(_ sealed: VaultFormat.Sealed, key: RecoveryKey, path: String) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let slots = sealed.slots.filter { $0.kind == kind }
        guard !slots.isEmpty else {
            throw LommeError.failure(.recoverySlotMissing, "this vault has no recovery slot (it was made before recovery kits, or `passwd --rotate` removed it); make a kit with `lomme-vault recovery kit`")
        }
        for slot in slots where slot.parameters.count == saltLength {
            if let fileKey = slot.unwrap(kek: key.slotKEK(vaultSalt: sealed.salt, slotSalt: slot.parameters), vaultSalt: sealed.salt) {
                return (fileKey, slot.id)
            }
        }
        throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key does not open \(path): it is another household's, or of a kit a newer one replaced; nothing changed")
    }

    package func open(_ sealed: VaultFormat.Sealed, _ request: SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let key = try (request.recovery ?? .terminal).read(context.interaction, noPrompt: request.noPrompt)
        return try Self.open(sealed, key: key, path: context.store.path)
    }

    /// After `unlock --with recovery`, `passwd` sets a new passphrase without the
    /// forgotten one.
    package static var standsForPassphrase: Bool { true }

    /// Re-wrapping needs the recovery key: given (`--recovery-file`, `--recovery-image`) it
    /// is used; else `passwd` keeps the file key, and `passwd --rotate` asks for it on the
    /// terminal or refuses (no terminal: exit 3, nothing changed). The slot is never
    /// dropped unasked: the sheet in the drawer goes on opening the vault.
    package func rewrapKEK(_ slot: VaultSlot, from oldSalt: [UInt8], to newSalt: [UInt8], _ request: SlotRequest, asking: Bool) throws(LommeError) -> SecureBytes? {
        guard slot.parameters.count == Self.saltLength, let source = request.recovery ?? (asking ? .terminal : nil) else { return nil }
        if source == .terminal && !request.noPrompt && context.interaction.canAsk {
            context.interaction.notice("A new file key: the recovery slot takes it too, so that the recovery kit goes on opening the vault.")
        }
        let key: RecoveryKey
        do throws(LommeError) { key = try source.read(context.interaction, noPrompt: request.noPrompt) } catch {
            guard error.code == .locked else { throw error }
            throw LommeError(.locked, .recoveryKitNeeded, "a new file key needs the recovery kit too, or the kit would no longer open the vault: give it with --recovery-file PATH or --recovery-image PHOTO, or run the command on a terminal to type it; nothing changed")
        }
        guard slot.unwrap(kek: key.slotKEK(vaultSalt: oldSalt, slotSalt: slot.parameters), vaultSalt: oldSalt) != nil else {
            throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key does not open \(context.store.path) (another household's, or of a kit a newer one replaced); nothing changed")
        }
        return key.slotKEK(vaultSalt: newSalt, slotSalt: slot.parameters)
    }
}

/// The `recovery` kind's option in a request.
extension SlotRequest {
    /// Where the recovery key comes from (`--recovery-file`, `--recovery-image`); nil: the terminal.
    var recovery: RecoveryKeySource? {
        if case .recoveryKey(let source)? = options[.recovery] { return source }
        return nil
    }
}
