import LommeCore
import LommeTPM

/// TPM 2.0 slots (docs/vault.md, "Key slots"): enrolling one, unlocking with one, and
/// re-wrapping one for a new file key when it opens without a question. The TPM holds a
/// random key-encryption key in a sealed object under its storage primary key; with a PIN
/// the object's auth value comes from the PIN (TPM2Slot.authValue), and the TPM's
/// dictionary-attack lockout limits the guesses (LommeTPM talks to the chip).
package struct TPMSlotService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    var device: TPMDevice { TPMDevice(tcti: context.settings.tpm) }

    package struct Enrolled: Sendable {
        package var id: UInt8
        package var parameters: TPM2Slot
        /// The TPM's dictionary-attack limits, when it tells them.
        package var lockout: TPMLockoutState?
    }

    /// `enroll tpm2`: proves the vault key (an unlocked session or the passphrase), asks for
    /// a new PIN when `pin` is given (twice on a terminal), seals a new key-encryption key in
    /// the TPM and adds the slot. A version 1 vault becomes version 2 first.
    package func enroll(_ options: UnlockOptions, pin: PassphraseSource?, pcrs: [Int]) throws(LommeError) -> Enrolled {
        let opened = try Session.open(context, options)
        if opened.sealed.slots.count >= VaultFormat.maximumSlots {
            throw LommeError.failure("this vault has \(VaultFormat.maximumSlots) slots, the most it can have; remove one with `lomme-vault unenroll SLOT` first")
        }
        let pinValue: SecureBytes? = try pin.map { source throws(LommeError) in try PIN.new(source, context.interaction) }
        let pinSalt = Sodium.randomBytes(16)
        let kek = SecureBytes.random(count: XChaCha.keyLength)
        let auth = pinValue.map { TPM2Slot.authValue(pin: $0, pinSalt: pinSalt, vaultSalt: opened.sealed.salt) }
        let object = try device.seal(kek, auth: auth, pcrs: pcrs)
        let parameters = TPM2Slot(withPIN: pinValue != nil, pcrs: pcrs, pinSalt: pinSalt, primaryName: object.primaryName,
                                  publicArea: object.publicArea, privateArea: object.privateArea)
        let store = context.store
        let id = try store.withWriteLock { () throws(LommeError) -> UInt8 in
            var (current, contents) = try VaultActions.current(opened)
            var key = opened.master
            if current.version == VaultFormat.version1 {
                let upgraded = try VaultSealing.reseal(current, key: key, contents: contents)
                key = upgraded.key
                current = try VaultFormat.parse(upgraded.bytes)
                VaultActions.keepSession(opened, bytes: upgraded.bytes, key: key)
            }
            guard current.salt == opened.sealed.salt else {
                throw LommeError.failure("the vault's key was changed while this command ran; nothing was written, run it again")
            }
            let id = VaultLayout(current).nextSlotID
            let slot = VaultSlot.wrap(key, kind: .tpm2, id: id, created: VaultSealing.now(), parameters: parameters.parameters,
                                      kek: kek, vaultSalt: current.salt)
            try store.write(VaultFormat.replacingSlots(current, with: current.slots + [slot]), key: key)
            return id
        }
        return Enrolled(id: id, parameters: parameters, lockout: device.lockoutState())
    }

    /// The vault key from a TPM slot: each TPM slot in turn until one opens, those without
    /// a PIN first (a slot made by another TPM is passed over); the PIN is asked when a slot
    /// needs one (three tries on a terminal while the TPM allows them, one from an fd or file).
    package func key(_ sealed: VaultFormat.Sealed, pin source: PassphraseSource, noPrompt: Bool) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let needsPIN = { (slot: VaultSlot) in TPM2Slot(parameters: slot.parameters)?.withPIN ?? true }
        let slots = sealed.slots.filter { $0.kind == .tpm2 }.sorted { !needsPIN($0) && needsPIN($1) }
        guard !slots.isEmpty else {
            throw LommeError.failure("this vault has no TPM slot; add one with `lomme-vault enroll tpm2 --pin`, or unlock with the passphrase (`lomme-vault unlock`)")
        }
        var problem: LommeError?
        var pin: SecureBytes?
        for slot in slots {
            guard let parameters = TPM2Slot(parameters: slot.parameters) else {
                problem = LommeError(.damaged, "TPM slot \(slot.id) is damaged; unlock with the passphrase (`lomme-vault unlock`) and enroll again")
                continue
            }
            let object = TPMSealedObject(publicArea: parameters.publicArea, privateArea: parameters.privateArea, primaryName: parameters.primaryName)
            let tries = parameters.withPIN && source == .terminal ? 3 : 1
            for attempt in 1...tries {
                var auth: SecureBytes?
                if parameters.withPIN {
                    if pin == nil || attempt > 1 { pin = try PIN.existing(source, noPrompt: noPrompt, context) }
                    auth = TPM2Slot.authValue(pin: pin!, pinSalt: parameters.pinSalt, vaultSalt: sealed.salt)
                }
                let kek: SecureBytes
                do {
                    kek = try device.unseal(object, auth: auth, pcrs: parameters.pcrs)
                } catch {
                    problem = error
                    // A wrong PIN: ask again while the TPM allows; anything else: the next slot.
                    if error.code == .wrongPassphrase && attempt < tries {
                        context.interaction.notice("lomme-vault: \(error.message)")
                        continue
                    }
                    if error.code == .wrongPassphrase { throw error }
                    break
                }
                guard let key = slot.unwrap(kek: kek, vaultSalt: sealed.salt) else {
                    throw LommeError(.damaged, "TPM slot \(slot.id) is damaged (the key the TPM returned does not open it); unlock with the passphrase (`lomme-vault unlock`) and enroll again")
                }
                return (key, slot.id)
            }
        }
        throw problem ?? LommeError.failure("no TPM slot opened; unlock with the passphrase (`lomme-vault unlock`)")
    }

    /// For a new file key (`passwd`): the key-encryption key of a TPM slot without PIN,
    /// when its TPM answers and the key opens the slot; nil for any other slot.
    package var opener: PassphraseChange.SlotOpener {
        let device = device
        return { slot, vaultSalt in
            guard slot.kind == .tpm2, let parameters = TPM2Slot(parameters: slot.parameters), !parameters.withPIN else { return nil }
            let object = TPMSealedObject(publicArea: parameters.publicArea, privateArea: parameters.privateArea, primaryName: parameters.primaryName)
            guard let kek = try? device.unseal(object, auth: nil, pcrs: parameters.pcrs),
                  slot.unwrap(kek: kek, vaultSalt: vaultSalt) != nil else { return nil }
            return kek
        }
    }
}

/// Asking for a TPM PIN.
package enum PIN {
    package static let minimumLength = 4

    /// A new PIN: on a terminal typed twice (three tries), at least four characters; from an
    /// fd or file, its first line.
    static func new(_ source: PassphraseSource, _ interaction: any Interaction) throws(LommeError) -> SecureBytes {
        func check(_ pin: SecureBytes) throws(LommeError) {
            guard pin.count >= minimumLength else {
                throw LommeError.failure("the PIN is too short: use at least \(minimumLength) characters (the TPM locks out after a few wrong tries, so six digits are enough)")
            }
        }
        guard source == .terminal else {
            let pin = try source.readFirstLine(noun: "PIN")
            try check(pin)
            return pin
        }
        guard interaction.canAsk else {
            throw LommeError(.locked, "no terminal to ask the new PIN on; give it with --pin-fd or --pin-file")
        }
        return try Passphrase.typedTwice(interaction, prompt: "New TPM PIN: ", noun: "PIN", check: check)
    }

    /// The PIN of an existing slot.
    static func existing(_ source: PassphraseSource, noPrompt: Bool, _ context: VaultContext) throws(LommeError) -> SecureBytes {
        guard source == .terminal else { return try source.readFirstLine(noun: "PIN") }
        guard !noPrompt, context.interaction.canAsk else {
            throw LommeError(.locked, "the TPM slot needs its PIN; run `lomme-vault unlock --with tpm2` in a terminal, or give it with --pin-fd or --pin-file")
        }
        let pin = try context.interaction.askSecret("TPM PIN for \(context.store.path): ")
        guard pin.count > 0 else { throw LommeError(.wrongPassphrase, "no PIN was typed") }
        return pin
    }
}
