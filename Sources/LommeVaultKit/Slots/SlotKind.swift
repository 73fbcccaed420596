import LommeCore

/// One way to unlock a vault: a kind of key slot (as an age recipient/identity type, or a
/// LUKS2 token type). A kind says what its slot stores (the parameters in front of the
/// wrapped file key), how it makes a key-encryption key at `enroll` and recovers it at
/// `unlock --with`, what it asks the user, whether `passwd` can re-wrap it without a
/// question, and how `slots` describes it. `enroll`, `unlock --with`, `unenroll`, `slots`
/// and `passwd` work through this protocol and `SlotKinds.all`: a new kind is one file
/// and one line in that table (docs/FORMAT.md, "Key slots").
package protocol SlotKind {
    /// The kind byte in the vault file.
    static var kind: VaultSlot.Kind { get }
    /// What the user types: `enroll NAME`, `unlock --with NAME`, `unenroll NAME`.
    static var name: String { get }
    /// What `enroll` and `unlock --with` take after the name (a key file's path), or nil.
    static var argument: String? { get }
    /// The options of `enroll` this kind takes besides its argument.
    static var options: Set<SlotOption> { get }
    /// False for the passphrase slot: `init` makes it and `passwd` changes it.
    static var enrollable: Bool { get }
    /// What `slots` says of a slot's parameters; nil when they are not this kind's (damaged).
    static func describe(_ parameters: [UInt8]) -> String?
    /// The command that enrolls a removed slot of these parameters again.
    static func enrollAgain(_ parameters: [UInt8]) -> String
    /// True when opening a slot of these parameters takes a person (a passphrase, a TPM
    /// PIN typed now): only such an unlock starts a new 12 h session over a live one. A key
    /// file or a TPM slot without PIN opens for any program, so it never moves a live
    /// session's end (`UnlockService.unlock(with:)`).
    static func provesAPerson(_ parameters: [UInt8]) -> Bool
    /// True when a session this kind opened lets `passwd` set a new passphrase without the
    /// current one (the recovery key: the way back from a forgotten passphrase). Any other
    /// session does not: a program of the user's that finds the vault unlocked must not
    /// be able to lock its owner out.
    static var standsForPassphrase: Bool { get }

    init(_ context: VaultContext)
    /// What `enroll` can know before it asks for anything (the passphrase, a PIN): that
    /// the device is there, that the file does not exist yet. Throws what is wrong.
    func check(_ request: SlotRequest) throws(LommeError)
    /// A new key-encryption key and the parameters that recover it, for the vault of
    /// `vaultSalt` (asking what it must: a PIN twice, say).
    func make(vaultSalt: [UInt8], _ request: SlotRequest) throws(LommeError) -> SlotEnrollment
    /// The file key from this kind's slots of `sealed` (asking what it must), and the slot
    /// that opened.
    func open(_ sealed: VaultFormat.Sealed, _ request: SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8)
    /// For a new file key and vault salt `newSalt` (`passwd`): `slot`'s key-encryption
    /// key, read from the file of salt `oldSalt`, when it can be had without a question
    /// (or from what `request` gives); when `asking` (`passwd --rotate`), also after a
    /// question, or it throws if the slot must not be lost (the recovery kit). Nil when the
    /// slot cannot take a new key: it is then kept with the old file key, or removed and
    /// named by `passwd --rotate`.
    func rewrapKEK(_ slot: VaultSlot, from oldSalt: [UInt8], to newSalt: [UInt8], _ request: SlotRequest, asking: Bool) throws(LommeError) -> SecureBytes?
}

extension SlotKind {
    package func check(_ request: SlotRequest) throws(LommeError) {}
    package static var standsForPassphrase: Bool { false }
}

/// The kind-specific options of `enroll` and `unlock --with`.
package enum SlotOption: String, Sendable, CaseIterable {
    /// `--pin`, `--pin-fd`, `--pin-file`.
    case pin
    /// `--pcrs`.
    case pcrs
    /// `--force`.
    case force
    /// `--recovery-file`, `--recovery-image`.
    case recovery
}

/// What the user gave for a slot on the command line: the kind's argument and the options
/// given, each read by the kind that takes it (its own file has the accessor: a TPM's PIN
/// and PCRs, a recovery key's source). Nothing here is one kind's.
package struct SlotRequest: Sendable {
    /// The kind's argument (`enroll keyfile PATH`, `unlock --with keyfile PATH`).
    package var argument: String?
    package var options: [SlotOption: SlotValue]
    /// Never ask on the terminal.
    package var noPrompt: Bool

    package init(argument: String? = nil, options: [SlotOption: SlotValue] = [:], noPrompt: Bool = false) {
        self.argument = argument
        self.options = options
        self.noPrompt = noPrompt
    }
}

/// The value of a kind-specific option.
package enum SlotValue: Sendable {
    /// A secret read like a passphrase (a PIN): its source.
    case secret(PassphraseSource)
    /// Numbers (PCR indexes).
    case numbers([Int])
    /// A flag given (`--force`).
    case given
    /// Where a recovery key comes from.
    case recoveryKey(RecoveryKeySource)
}

/// What a kind made at `enroll`.
package struct SlotEnrollment: Sendable {
    package var parameters: [UInt8]
    package var kek: SecureBytes
    /// What `enroll` says of the slot: "tpm2, PIN", "keyfile /media/stick/vault.key".
    package var summary: String
    /// Further lines for the user (how the slot may be attacked, what to keep safe).
    package var notes: [String]
    /// Undoes what `make` left outside the vault when the vault is then not written.
    package var undo: (@Sendable () -> Void)?

    package init(parameters: [UInt8], kek: SecureBytes, summary: String, notes: [String] = [], undo: (@Sendable () -> Void)? = nil) {
        self.parameters = parameters
        self.kek = kek
        self.summary = summary
        self.notes = notes
        self.undo = undo
    }
}

/// Every kind of slot this version knows: the registry the commands take their values from.
package enum SlotKinds {
    package static var all: [any SlotKind.Type] { [
        PassphraseSlotKind.self,
        TPM2SlotKind.self,
        KeyFileSlotKind.self,
        RecoverySlotKind.self,
    ] }

    /// The kind called `name` (`unlock --with NAME`).
    package static func named(_ name: String) -> (any SlotKind.Type)? { all.first { $0.name == name } }

    /// The kind of a slot's kind byte; nil for a kind made by a newer lomme-vault.
    package static func of(_ kind: VaultSlot.Kind) -> (any SlotKind.Type)? { all.first { $0.kind == kind } }

    /// The names `enroll` takes.
    package static var enrollableNames: [String] { all.filter { $0.enrollable }.map { $0.name } }

    /// "a or b", "a, b or c".
    package static func list(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
