import LommeCore

/// One way to unlock a vault: a kind of key slot, as age's recipient and identity types or
/// systemd-cryptenroll's enroll types. A kind is a value. What is known of it is data: its
/// name, its kind byte, its argument and options, whether `enroll` makes it, whether a
/// session it opened stands for the passphrase, its words in the help, and what a slot's
/// parameters say (`facts`). What it does is two functions: `make` a key-encryption key
/// and the parameters that recover it, and `open` the file key from its slots; a kind whose
/// slots can take a new file key at `passwd` has a third, `rewrap`.
///
/// Everything of a kind is in its own file, `Slots/NAME.swift`, which exports the value
/// (`SlotKind.tpm2`) and the options it reads (`SlotOption.pin`). `enroll`, `unlock --with`,
/// `unenroll`, `slots` and `passwd` work through the context's registry (`SlotKinds`,
/// `SlotKinds.builtIn` unless a test adds one) and name no kind. The passphrase kind alone
/// keeps a named role (`SlotKind.passphrase`): every vault has one, `init` makes it,
/// `passwd` changes it, `unlock` without `--with` opens it and `unenroll` keeps the last.
/// A new kind is one file and one line in `SlotKinds.builtIn` (docs/FORMAT.md, "Key slots").
package struct SlotKind: Sendable {
    /// What the user types: `enroll NAME`, `unlock --with NAME`, `unenroll NAME`; what `slots` shows.
    package var name: String
    /// The kind byte in the vault file.
    package var byte: VaultSlot.Kind
    /// What `enroll` and `unlock --with` take after the name (a key file's path), or nil.
    package var argument: String?
    /// The options of `enroll` and `unlock --with` this kind takes besides its argument.
    package var options: Set<SlotOption>
    /// False for a kind made elsewhere: the passphrase (`init`, `passwd`), the recovery key
    /// (the recovery kit).
    package var enrollable: Bool
    /// True when a session this kind opened lets `passwd` set a new passphrase without the
    /// current one (the recovery key: the way back from a forgotten passphrase). Any other
    /// session does not: a program of the user's that finds the vault unlocked must not
    /// be able to lock its owner out.
    package var standsForPassphrase: Bool
    /// The kind in the words of `enroll --help`, `unlock --help` and the man page.
    package var help: Help
    /// What a slot's parameters say; nil when they are not this kind's (a damaged slot).
    package var facts: @Sendable (_ parameters: [UInt8]) -> SlotFacts?
    /// `enroll` in two steps. The first says what can be known before anything is asked
    /// (that a TPM answers, that the key file does not exist yet) and throws what is wrong;
    /// it returns the second, run once the vault key is proven: a new key-encryption key and
    /// the parameters that recover it, for the vault of the salt given (asking what it
    /// must: a new PIN twice, say).
    package var make: @Sendable (VaultContext, SlotRequest) throws(LommeError) -> Maker
    /// The file key from this kind's slots of the vault (asking what it must), and the
    /// slot that opened; throws when none is this kind's or none opens.
    package var open: @Sendable (VaultContext, VaultFormat.Sealed, SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8)
    /// `passwd`'s new file key: a slot's key-encryption key for the vault salt `newSalt`,
    /// read from the file of salt `oldSalt`, when it can be had without a question (or from
    /// what the request gives); when `asking` (`passwd --rotate`), also after one, or it
    /// throws when the slot must not be lost (the recovery kit). Nil, and a kind without
    /// `rewrap`, when the slot cannot take a new key: it then keeps the old file key, or
    /// `passwd --rotate` removes it and names it. Neither `open` (the file key under the old
    /// salt, asking freely) nor `make` (new parameters: a new TPM object, a new PIN) gives
    /// this key, and which slots may ask and which must refuse rather than go is each
    /// kind's own rule.
    package var rewrap: Rewrap?

    /// `make`'s second step: the slot's key-encryption key and parameters for a vault salt.
    package typealias Maker = (_ vaultSalt: [UInt8]) throws(LommeError) -> SlotEnrollment
    package typealias Rewrap = @Sendable (VaultContext, SlotRequest, _ slot: VaultSlot, _ oldSalt: [UInt8], _ newSalt: [UInt8], _ asking: Bool) throws(LommeError) -> SecureBytes?

    /// What the help says of a kind.
    package struct Help: Sendable {
        /// What `enroll NAME` does (a sentence or two); nil for a kind `enroll` does not make.
        package var enroll: String?
        /// What `unlock --with NAME` asks or reads.
        package var unlock: String
        /// What `unlock --with NAME` says once it opened the vault; nil: nothing more.
        package var unlocked: String?

        package init(enroll: String? = nil, unlock: String, unlocked: String? = nil) {
            self.enroll = enroll
            self.unlock = unlock
            self.unlocked = unlocked
        }
    }

    package init(name: String, byte: VaultSlot.Kind, argument: String? = nil, options: Set<SlotOption> = [], enrollable: Bool,
                 standsForPassphrase: Bool = false, help: Help, facts: @escaping @Sendable ([UInt8]) -> SlotFacts?,
                 make: @escaping @Sendable (VaultContext, SlotRequest) throws(LommeError) -> Maker,
                 open: @escaping @Sendable (VaultContext, VaultFormat.Sealed, SlotRequest) throws(LommeError) -> (key: SecureBytes, slot: UInt8),
                 rewrap: Rewrap? = nil) {
        self.name = name
        self.byte = byte
        self.argument = argument
        self.options = options
        self.enrollable = enrollable
        self.standsForPassphrase = standsForPassphrase
        self.help = help
        self.facts = facts
        self.make = make
        self.open = open
        self.rewrap = rewrap
    }

    /// A slot of this kind holding `fileKey`, made at once with id `id`: the recovery kit's
    /// slot in a vault's first write, or a new kit's.
    package func slot(_ context: VaultContext, _ request: SlotRequest, fileKey: SecureBytes, id: UInt8, vaultSalt: [UInt8]) throws(LommeError) -> VaultSlot {
        wrap(fileKey, try make(context, request)(vaultSalt), id: id, vaultSalt: vaultSalt)
    }

    /// The slot `made` gives, holding `fileKey`.
    func wrap(_ fileKey: SecureBytes, _ made: SlotEnrollment, id: UInt8, vaultSalt: [UInt8]) -> VaultSlot {
        VaultSlot.wrap(fileKey, kind: byte, id: id, created: VaultSealing.now(), parameters: made.parameters, kek: made.kek, vaultSalt: vaultSalt)
    }
}

/// What one slot's parameters say.
package struct SlotFacts: Sendable {
    /// What `slots` says of the slot: "PIN, PCR 7", "key file".
    package var details: String
    /// True when opening the slot takes a person (a passphrase, a TPM PIN typed now): only
    /// such an unlock starts a new 12 h session over a live one. A key file or a TPM slot
    /// without PIN opens for any program, so it never moves a live session's end
    /// (`UnlockService.unlock(with:)`).
    package var provesAPerson: Bool
    /// The command that makes such a slot again (`passwd --rotate` names it for a slot it removed).
    package var enrollAgain: String

    package init(details: String, provesAPerson: Bool, enrollAgain: String) {
        self.details = details
        self.provesAPerson = provesAPerson
        self.enrollAgain = enrollAgain
    }
}

/// An option of `enroll` or `unlock --with` that a kind takes besides its argument. The
/// kind's file names it (`SlotOption.pcrs`); the CLI declares each once and gives its value.
package struct SlotOption: Hashable, Sendable {
    package var name: String
    package init(_ name: String) { self.name = name }
}

/// What the user gave for a slot: the kind's argument and the options given, each value of
/// the type the kind that takes it reads (its file has the accessor: a TPM's PIN and PCRs,
/// a recovery key's source). Nothing here is one kind's.
package struct SlotRequest: Sendable {
    /// The kind's argument (`enroll keyfile PATH`, `unlock --with keyfile PATH`).
    package var argument: String?
    package var options: [SlotOption: any Sendable]
    /// Never ask on the terminal.
    package var noPrompt: Bool

    package init(argument: String? = nil, options: [SlotOption: any Sendable] = [:], noPrompt: Bool = false) {
        self.argument = argument
        self.options = options
        self.noPrompt = noPrompt
    }
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

/// The kinds of slot a context knows (`VaultContext.slotKinds`): every kind of this version,
/// or those and one a test adds.
package struct SlotKinds: Sendable {
    package var all: [SlotKind]

    package init(_ all: [SlotKind]) { self.all = all }

    /// Every kind this version knows, in the order the help lists them.
    package static let builtIn = SlotKinds([.passphrase, .tpm2, .keyFile, .recovery])

    /// These kinds and `kind`.
    package func adding(_ kind: SlotKind) -> SlotKinds { SlotKinds(all + [kind]) }

    /// The kind called `name` (`unlock --with NAME`).
    package func named(_ name: String) -> SlotKind? { all.first { $0.name == name } }

    /// The kind of a slot's kind byte; nil for a kind made by a newer lomme-vault.
    package func of(_ byte: VaultSlot.Kind) -> SlotKind? { all.first { $0.byte == byte } }

    /// The names `enroll` takes.
    package var enrollableNames: [String] { all.filter { $0.enrollable }.map { $0.name } }

    /// "a or b", "a, b or c".
    package static func list(_ names: [String]) -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
