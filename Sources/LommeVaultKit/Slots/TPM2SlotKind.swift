import LommeCore
import LommeTPM

extension SlotKind {
    /// TPM 2.0 slots (docs/vault.md, "Key slots"), the `tpm2` kind: enrolling one, unlocking
    /// with one, and re-wrapping one for a new file key when it opens without a question.
    /// The TPM holds a random key-encryption key in a sealed object under its storage
    /// primary key; with a PIN the object's auth value comes from the PIN
    /// (TPM2Slot.authValue), and the TPM's dictionary-attack lockout limits the guesses
    /// (LommeTPM talks to the chip). Kind byte 2; parameters: `TPM2Slot`.
    package static let tpm2 = SlotKind(
        name: "tpm2", byte: VaultSlot.Kind(rawValue: 2), options: [.pin, .pcrs, .force], enrollable: true,
        help: Help(
            enroll: """
            `enroll tpm2` seals a slot to this machine's TPM 2.0 (/dev/tpmrm0, or the TCTI in LOMME_VAULT_TPM). With --pin \
            (asked twice, or --pin-fd/--pin-file; at least 6 characters) `unlock --with tpm2` asks the PIN and the TPM locks \
            out after a few wrong ones; a TPM whose lockout authorization is empty lets any local user reset that count, so \
            enroll refuses it, or a TPM that does not say, unless --force (`tpm2_changeauth -c lockout` sets one). No TPM is \
            said before anything is asked. Without --pin, the slot opens with no \
            question on this machine: a stolen copy of the vault file is useless elsewhere, but anyone who can run programs \
            as you here can open it. --pcrs binds the slot to those PCRs as they are now (as systemd-cryptenroll --tpm2-pcrs).
            """,
            unlock: "--with tpm2 asks only the TPM slot's PIN (or none)."),
        facts: { parameters in
            // A PIN is typed by a person; a slot without one opens for any program of the user.
            TPM2Slot(parameters: parameters).map {
                SlotFacts(details: ($0.withPIN ? "PIN" : "no PIN") + ", " + TPM2Slot.describe($0.pcrs), provesAPerson: $0.withPIN,
                          enrollAgain: "lomme-vault enroll tpm2" + ($0.withPIN ? " --pin" : ""))
            }
        },
        make: { context, request throws(LommeError) in try TPM2SlotKind(context).make(request) },
        open: { context, sealed, request throws(LommeError) in
            try TPM2SlotKind(context).key(sealed, pin: request.pin ?? .terminal, noPrompt: request.noPrompt)
        },
        rewrap: { context, _, slot, oldSalt, _, _ throws(LommeError) in TPM2SlotKind(context).rewrap(slot, vaultSalt: oldSalt) })
}

extension SlotOption {
    /// `--pin` (enroll), `--pin-fd`, `--pin-file`: where the PIN comes from (a
    /// `PassphraseSource`); at `enroll`, given means the slot has a PIN.
    package static let pin = SlotOption("pin")
    /// `--pcrs`: the PCRs to bind to (`[Int]`).
    package static let pcrs = SlotOption("pcrs")
    /// `--force`: a TPM whose lockout authorization is not known to be set is taken (any value).
    package static let force = SlotOption("force")
}

/// What the `tpm2` kind does, with the context's TPM.
struct TPM2SlotKind {
    let context: VaultContext

    init(_ context: VaultContext) {
        self.context = context
    }

    var device: TPMDevice { TPMDevice(tcti: context.settings.tpm) }

    /// Before anything is asked: a TPM answers (no TPM is said first, not after the
    /// passphrase and a PIN twice), and for a PIN its lockout authorization is known to be
    /// set, unless --force. Then the slot.
    func make(_ request: SlotRequest) throws(LommeError) -> SlotKind.Maker {
        _ = try lockoutPolicy(request)
        return { vaultSalt throws(LommeError) in try make(vaultSalt: vaultSalt, request) }
    }

    /// A TPM answers, and for a PIN its lockout authorization is known to be set (unless
    /// --force). Fails closed: a TPM that does not say whether it is set is refused as one
    /// that says it is not. Returns what the TPM said (nil: not known).
    func lockoutPolicy(_ request: SlotRequest) throws(LommeError) -> Bool? {
        let set = try device.lockoutAuthorization()
        guard request.pin != nil, !request.force, set != true else { return set }
        if set == false {
            throw LommeError.failure(.tpmLockoutAuthUnset, "this TPM's lockout authorization is empty, so any user of this machine can reset its count of wrong PINs (`tpm2_dictionarylockout -c`) and guess a PIN at about 20 a second (docs/tpm.md); have the TPM's owner set one with `tpm2_changeauth -c lockout`, or enroll anyway with --force")
        }
        throw LommeError.failure(.tpmLockoutAuthUnknown, "this TPM did not say whether its lockout authorization is set, and without one any user of this machine can reset its count of wrong PINs and guess a PIN at about 20 a second (docs/tpm.md); if you know the owner set one (`tpm2_changeauth -c lockout`), enroll with --force")
    }

    func make(vaultSalt: [UInt8], _ request: SlotRequest) throws(LommeError) -> SlotEnrollment {
        // Again here, where the slot is made: the first step asked it before the passphrase.
        let lockoutAuthorization = try lockoutPolicy(request)
        let pinValue: SecureBytes? = try request.pin.map { source throws(LommeError) in try PIN.new(source, context.interaction) }
        let pinSalt = Sodium.randomBytes(16)
        let kek = SecureBytes.random(count: XChaCha.keyLength)
        let auth = pinValue.map { TPM2Slot.authValue(pin: $0, pinSalt: pinSalt, vaultSalt: vaultSalt) }
        let object = try device.seal(kek, auth: auth, pcrs: request.pcrs)
        let parameters = TPM2Slot(withPIN: pinValue != nil, pcrs: request.pcrs, pinSalt: pinSalt, primaryName: object.primaryName,
                                  publicArea: object.publicArea, privateArea: object.privateArea)
        let bound = request.pcrs.isEmpty ? "" : ", bound to \(TPM2Slot.describe(request.pcrs)) as they are now"
        var notes: [String] = []
        if pinValue != nil {
            let lockout = device.lockoutState()
            let tries = lockout.map { " after \($0.maxTries) wrong PINs, forgiving one every \(DurationText.format(UInt64($0.recoverySeconds)))" } ?? " after a few wrong PINs"
            notes.append("The TPM locks out\(tries); the passphrase always opens the vault.")
            if request.force && lockoutAuthorization != true {
                let state = lockoutAuthorization == false ? "is empty" : "may be empty (the TPM did not say)"
                notes.append("lomme-vault: warning: this TPM's lockout authorization \(state) (--force): any user of this machine can then reset its count of wrong PINs and guess the PIN at TPM speed; set one with `tpm2_changeauth -c lockout`.")
            }
        } else {
            notes.append("Without a PIN the slot opens with no question on this machine: a stolen copy of the vault file or a backup is useless elsewhere, but anyone who can run programs as you here can open it. `lomme-vault enroll tpm2 --pin` adds a PIN the chip rate-limits.")
        }
        return SlotEnrollment(parameters: parameters.parameters, kek: kek, summary: "tpm2, \(pinValue != nil ? "PIN" : "no PIN")\(bound)", notes: notes)
    }

    /// The vault key from a TPM slot: each TPM slot in turn until one opens, those without
    /// a PIN first (a slot made by another TPM is passed over); the PIN is asked when a slot
    /// needs one (three tries on a terminal while the TPM allows them, one from an fd or file).
    func key(_ sealed: VaultFormat.Sealed, pin source: PassphraseSource, noPrompt: Bool) throws(LommeError) -> (key: SecureBytes, slot: UInt8) {
        let needsPIN = { (slot: VaultSlot) in TPM2Slot(parameters: slot.parameters)?.withPIN ?? true }
        let slots = sealed.slots.filter { $0.kind == SlotKind.tpm2.byte }.sorted { !needsPIN($0) && needsPIN($1) }
        guard !slots.isEmpty else {
            throw LommeError.failure(.tpmSlotMissing, "this vault has no TPM slot; add one with `lomme-vault enroll tpm2 --pin`, or unlock with the passphrase (`lomme-vault unlock`)")
        }
        var problem: LommeError?
        var pin: SecureBytes?
        for slot in slots {
            guard let parameters = TPM2Slot(parameters: slot.parameters) else {
                problem = LommeError(.damaged, .tpmSlotDamaged, "TPM slot \(slot.id) is damaged; unlock with the passphrase (`lomme-vault unlock`) and enroll again")
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
                    throw LommeError(.damaged, .tpmSlotDamaged, "TPM slot \(slot.id) is damaged (the key the TPM returned does not open it); unlock with the passphrase (`lomme-vault unlock`) and enroll again")
                }
                return (key, slot.id)
            }
        }
        throw problem ?? LommeError.failure(.internalError, "no TPM slot opened; unlock with the passphrase (`lomme-vault unlock`)")
    }

    /// For a new file key (`passwd`): the key-encryption key of a TPM slot without PIN (the
    /// TPM's, whatever the vault's salt), when its TPM answers and the key opens the slot
    /// of the file of salt `vaultSalt`; nil for a slot with a PIN, asked or not.
    func rewrap(_ slot: VaultSlot, vaultSalt: [UInt8]) -> SecureBytes? {
        guard let parameters = TPM2Slot(parameters: slot.parameters), !parameters.withPIN else { return nil }
        let object = TPMSealedObject(publicArea: parameters.publicArea, privateArea: parameters.privateArea, primaryName: parameters.primaryName)
        guard let kek = try? device.unseal(object, auth: nil, pcrs: parameters.pcrs),
              slot.unwrap(kek: kek, vaultSalt: vaultSalt) != nil else { return nil }
        return kek
    }
}

/// Asking for a TPM PIN.
package enum PIN {
    /// Six: with the TPM's lockout in force a 6-digit PIN takes decades to guess (docs/tpm.md).
    package static let minimumLength = 6

    /// A new PIN: on a terminal typed twice (three tries), at least six characters; from an
    /// fd or file, its first line.
    static func new(_ source: PassphraseSource, _ interaction: any Interaction) throws(LommeError) -> SecureBytes {
        func check(_ pin: SecureBytes) throws(LommeError) {
            guard pin.count >= minimumLength else {
                throw LommeError.failure(.pinTooShort, "the PIN is too short: use at least \(minimumLength) characters (the TPM locks out after a few wrong tries, so six digits are enough)")
            }
        }
        guard source == .terminal else {
            let pin = try source.readFirstLine(noun: "PIN", warn: interaction.warning)
            try check(pin)
            return pin
        }
        guard interaction.canAsk else {
            throw LommeError(.locked, .noTerminalToAsk, "no terminal to ask the new PIN on; give it with --pin-fd or --pin-file")
        }
        return try Passphrase.typedTwice(interaction, prompt: "New TPM PIN: ", noun: "PIN", check: check)
    }

    /// The PIN of an existing slot.
    static func existing(_ source: PassphraseSource, noPrompt: Bool, _ context: VaultContext) throws(LommeError) -> SecureBytes {
        guard source == .terminal else { return try source.readFirstLine(noun: "PIN", warn: context.interaction.warning) }
        guard !noPrompt, context.interaction.canAsk else {
            throw LommeError(.locked, .pinNeeded, "the TPM slot needs its PIN; run `lomme-vault unlock --with tpm2` in a terminal, or give it with --pin-fd or --pin-file")
        }
        let pin = try context.interaction.askSecret("TPM PIN for \(context.store.path): ")
        guard pin.count > 0 else { throw LommeError(.wrongPassphrase, .secretEmpty, "no PIN was typed") }
        return pin
    }
}

/// The `tpm2` kind's options in a request.
extension SlotRequest {
    /// Where the PIN comes from (`--pin`, `--pin-fd`, `--pin-file`); nil for a slot without one.
    var pin: PassphraseSource? { options[.pin] as? PassphraseSource }

    /// The PCRs to bind to (`--pcrs`).
    var pcrs: [Int] { options[.pcrs] as? [Int] ?? [] }

    /// `--force`: a TPM whose lockout authorization is not known to be set is taken.
    var force: Bool { options[.force] != nil }
}
