import LommeCore

extension SlotKind {
    /// The recovery-key slot, the `recovery` kind: the household's recovery key (printed on
    /// the recovery kit) opens the vault when the passphrase is forgotten, as
    /// systemd-cryptenroll's recovery keys open a disk, and a session it opened stands for
    /// the passphrase at `passwd`. Made by `init --parent`, `recovery kit` and `init --parent
    /// --restore` (RecoveryService, with the key itself in the request), never by `enroll`:
    /// a vault has at most one, and a new kit replaces it.
    ///
    /// Kind byte 4. Parameters: a salt (16). Key-encryption key: `RecoveryKey.slotKEK` (keyed
    /// BLAKE2b of a domain, the vault's salt and the slot's salt under the key's 136 bits;
    /// docs/FORMAT.md).
    package static let recovery = SlotKind(
        name: "recovery", byte: VaultSlot.Kind(rawValue: 4), options: [.recovery], enrollable: false, standsForPassphrase: true,
        help: Help(
            unlock: "--with recovery reads the household's recovery key (the terminal, --recovery-file PATH or --recovery-image PHOTO of the kit); then `lomme-vault passwd` sets a new passphrase.",
            unlocked: "Opened with the recovery kit. If the passphrase is forgotten, set a new one now: `lomme-vault passwd` (after a recovery unlock it asks no old passphrase)."),
        facts: { parameters in
            // The recovery key is the household's paper secret, as strong as the passphrase it
            // stands in for: it starts a new 12 h session, as the passphrase does.
            parameters.count == RecoverySlotKind.saltLength
                ? SlotFacts(details: "the recovery kit's key", provesAPerson: true, enrollAgain: "lomme-vault recovery kit") : nil
        },
        make: { context, request throws(LommeError) in try RecoverySlotKind(context).make(request) },
        open: { context, sealed, request throws(LommeError) in try RecoverySlotKind(context).open(sealed, request) },
        rewrap: { context, request, slot, oldSalt, newSalt, asking throws(LommeError) in
            try RecoverySlotKind(context).rewrap(slot, from: oldSalt, to: newSalt, request, asking: asking)
        })
}

extension SlotKind {
    /// The recovery kit's slot of `key`: the kind, and the request that makes or opens such
    /// a slot with the key itself (nothing is asked). The recovery kit's flows
    /// (RecoveryService, a new vault's first write) reach the slot through it alone.
    package static func recoveryKit(_ key: RecoveryKey) -> (kind: SlotKind, request: SlotRequest) {
        (.recovery, SlotRequest(options: [.recovery: key], noPrompt: true))
    }
}

extension SlotOption {
    /// `--recovery-file`, `--recovery-image`: where the recovery key comes from (a
    /// `RecoveryKeySource`), or the key itself (a `RecoveryKey`: the recovery kit's flows).
    package static let recovery = SlotOption("recovery")
}

extension VaultSlot {
    /// A slot the household's recovery kit opens: when the household key moves on to a new
    /// kit made on another machine, it opens with the kit replaced and goes (`SyncService`).
    package var opensWithTheKit: Bool { kind == SlotKind.recovery.byte }
}

/// The `recovery` kind's option in a request.
extension SlotRequest {
    /// Where the recovery key comes from (`--recovery-file`, `--recovery-image`); nil: the terminal.
    var recovery: RecoveryKeySource? { options[.recovery] as? RecoveryKeySource }
    /// The recovery key itself, when the recovery kit's flows give it.
    var recoveryKey: RecoveryKey? { options[.recovery] as? RecoveryKey }
}

/// What the `recovery` kind does.
struct RecoverySlotKind {
    static let saltLength = 16

    let context: VaultContext

    init(_ context: VaultContext) { self.context = context }

    /// The key the request gives, or read from its source (the terminal when none is given).
    func key(_ request: SlotRequest) throws(LommeError) -> RecoveryKey {
        if let key = request.recoveryKey { return key }
        return try (request.recovery ?? .terminal).read(context.interaction, noPrompt: request.noPrompt)
    }

    /// The kit's slot: the key is had first, the slot made for the vault's salt.
    func make(_ request: SlotRequest) throws(LommeError) -> SlotKind.Maker {
        let key = try key(request)
        return { vaultSalt in
            let salt = Sodium.randomBytes(Self.saltLength)
            return SlotEnrollment(parameters: salt, kek: key.slotKEK(vaultSalt: vaultSalt, slotSalt: salt), summary: "recovery key")
        }
    }

    /// The file key from the recovery slot the key opens; exit 4 when it opens none.
    func open(_ sealed: VaultFormat.Sealed, _ request: SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let key = try key(request)
        let slots = sealed.slots.filter { $0.kind == SlotKind.recovery.byte }
        guard !slots.isEmpty else {
            throw LommeError.failure(.recoverySlotMissing, "this vault has no recovery slot (it was made before recovery kits, or `passwd --rotate` removed it); make a kit with `lomme-vault recovery kit`")
        }
        for slot in slots where slot.parameters.count == Self.saltLength {
            if let fileKey = slot.unwrap(kek: key.slotKEK(vaultSalt: sealed.salt, slotSalt: slot.parameters), vaultSalt: sealed.salt) {
                return (fileKey, slot.id)
            }
        }
        throw LommeError(.wrongPassphrase, .recoveryKeyWrong, "that recovery key does not open \(context.store.path): it is another household's, or of a kit a newer one replaced; nothing changed")
    }

    /// Re-wrapping needs the recovery key: given (`--recovery-file`, `--recovery-image`) it
    /// is used; else `passwd` keeps the file key, and `passwd --rotate` asks for it on the
    /// terminal or refuses (no terminal: exit 3, nothing changed). The slot is never
    /// dropped unasked: the sheet in the drawer goes on opening the vault.
    func rewrap(_ slot: VaultSlot, from oldSalt: [UInt8], to newSalt: [UInt8], _ request: SlotRequest, asking: Bool) throws(LommeError) -> SecureBytes? {
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
