import ArgumentParser
import LommeCore
import LommeVaultKit

/// The slot kinds' options, each declared once, and the one reading of them into a
/// `SlotRequest` for whichever kind: `enroll` takes those that make a slot, `unlock --with`
/// those that open one, `passwd` the one that lets a slot take a new file key (the
/// recovery kit). A command takes `SlotOptions<Use>`; `Use` says which groups it has.
struct SlotOptions<Use: SlotOptionUse>: ParsableArguments {
    @OptionGroup var pin: Use.PIN
    @OptionGroup var binding: Use.Binding
    @OptionGroup var recovery: Use.Recovery

    /// The options given, in the order they are checked, each named as a refusal says it.
    var given: [(option: SlotOption, words: String)] { pin.given + binding.given + recovery.given }

    /// The one check of a kind's argument and options, for `enroll` and `unlock --with`:
    /// the argument the kind takes (or none), no option of another kind, then the values'
    /// shape.
    func check(_ kind: SlotKind, argument: String?, command: String) throws {
        if let name = kind.argument, argument == nil {
            throw ValidationError("\(command) \(kind.name) needs the \(name == "PATH" ? "key file's path" : name): `lomme-vault \(command) \(kind.name) \(name)`")
        }
        if kind.argument == nil, let argument {
            throw ValidationError("\(command) \(kind.name) takes no argument (got \"\(TerminalText.line(argument))\")")
        }
        for (option, words) in given where !kind.options.contains(option) {
            let takers = SlotKinds.builtIn.all.filter { $0.options.contains(option) }.map(\.name)
            throw ValidationError("\(words): only with \(SlotKinds.list(takers)), not \(kind.name)")
        }
        try pin.check()
        try binding.check()
        try recovery.check()
    }

    /// What the user gave, for the kind's `make`, `open` or `rewrap`.
    func request(argument: String? = nil, noPrompt: Bool) throws -> SlotRequest {
        var options: [SlotOption: any Sendable] = [:]
        for group in [pin, binding, recovery] as [any SlotOptionGroup] {
            options.merge(try group.values()) { first, _ in first }
        }
        return SlotRequest(argument: argument, options: options, noPrompt: noPrompt)
    }
}

/// Which groups of slot options a command takes (`NoSlotOptions` for none), in the order
/// its help lists them.
protocol SlotOptionUse {
    associatedtype PIN: SlotOptionGroup
    associatedtype Binding: SlotOptionGroup
    associatedtype Recovery: SlotOptionGroup
}

/// `enroll`: a new PIN, the PCRs and --force.
enum MakingASlot: SlotOptionUse {
    typealias PIN = NewPINOptions
    typealias Binding = TPMBindingOptions
    typealias Recovery = NoSlotOptions
}

/// `unlock --with`: a PIN's source, the recovery key's.
enum OpeningASlot: SlotOptionUse {
    typealias PIN = PINOptions
    typealias Binding = NoSlotOptions
    typealias Recovery = RecoveryKeyOptions
}

/// `passwd`: the recovery key, with which the recovery slot takes a new file key.
enum RewrappingASlot: SlotOptionUse {
    typealias PIN = NoSlotOptions
    typealias Binding = NoSlotOptions
    typealias Recovery = RecoveryKeyOptions
}

/// A group of slot options: which of them were given, and their values for a request.
protocol SlotOptionGroup: ParsableArguments {
    /// The options given, each named as a refusal says it ("--pin-fd and --pin-file").
    var given: [(option: SlotOption, words: String)] { get }
    /// The values' shape, checked after the kind's options (a usage error, exit 64).
    func check() throws
    /// The given options' values, of the type the kind that takes each reads.
    func values() throws -> [SlotOption: any Sendable]
}

extension SlotOptionGroup {
    func check() throws {}
}

/// No options of a group.
struct NoSlotOptions: SlotOptionGroup {
    var given: [(option: SlotOption, words: String)] { [] }
    func values() -> [SlotOption: any Sendable] { [:] }
}

/// `--pin-fd N` / `--pin-file PATH`: where a TPM PIN comes from when not the terminal.
struct PINOptions: SlotOptionGroup {
    @Option(name: .customLong("pin-fd"), help: ArgumentHelp("Read the TPM PIN from this open file descriptor (first line).", valueName: "n"))
    var pinFD: Int32?
    @Option(name: .customLong("pin-file"), help: ArgumentHelp("Read the TPM PIN from this file (first line).", valueName: "path"))
    var pinFile: String?

    func validate() throws { _ = try Self.source(pinFD, pinFile) }

    static func source(_ fd: Int32?, _ file: String?) throws(ValidationError) -> PassphraseSource {
        try SecretSource.from(fd: fd, file: file, noun: "PIN", option: "pin")
    }

    var isGiven: Bool { pinFD != nil || pinFile != nil }
    var source: PassphraseSource { (try? Self.source(pinFD, pinFile)) ?? .terminal }

    var given: [(option: SlotOption, words: String)] { isGiven ? [(.pin, "--pin-fd and --pin-file")] : [] }
    func values() -> [SlotOption: any Sendable] { isGiven ? [.pin: source] : [:] }
}

/// `--pin` and its source: `enroll`'s new PIN (given: the slot has one).
struct NewPINOptions: SlotOptionGroup {
    @Flag(name: .customLong("pin"), help: "tpm2: protect the slot with a PIN (at least 6 characters) that the TPM rate-limits.")
    var pin = false
    @OptionGroup var source: PINOptions

    var isGiven: Bool { pin || source.isGiven }
    var given: [(option: SlotOption, words: String)] { isGiven ? [(.pin, "--pin")] : [] }
    func values() -> [SlotOption: any Sendable] { isGiven ? [.pin: source.source] : [:] }
}

/// `--pcrs` and `--force`: what a new TPM slot is bound to, and a TPM taken anyway.
struct TPMBindingOptions: SlotOptionGroup {
    @Option(name: .customLong("pcrs"), help: ArgumentHelp("tpm2: bind to these SHA-256 PCRs as they are now: 7, or 0+7.", valueName: "list"))
    var pcrs: String?
    @Flag(name: .customLong("force"), help: "tpm2 --pin: enroll although the TPM's lockout authorization is empty (anyone here can then reset its count of wrong PINs).")
    var force = false

    var given: [(option: SlotOption, words: String)] {
        (pcrs != nil ? [(.pcrs, "--pcrs")] : []) + (force ? [(.force, "--force")] : [])
    }

    func check() throws {
        if let pcrs, TPM2Slot.parsePCRs(pcrs) == nil { throw ValidationError("--pcrs takes PCR numbers 0 to 23 joined by +, such as 7 or 0+7") }
    }

    func values() -> [SlotOption: any Sendable] {
        var values: [SlotOption: any Sendable] = [:]
        if let indexes = pcrs.flatMap(TPM2Slot.parsePCRs) { values[.pcrs] = indexes }
        if force { values[.force] = true }
        return values
    }
}

/// `--recovery-file` and `--recovery-image` (RecoveryKeyOptions, which the recovery kit's
/// commands take too) as a slot option: the recovery key's source.
extension RecoveryKeyOptions: SlotOptionGroup {
    var given: [(option: SlotOption, words: String)] { isGiven ? [(.recovery, "--recovery-file and --recovery-image")] : [] }
    func values() throws -> [SlotOption: any Sendable] { isGiven ? [.recovery: try source()] : [:] }
}

/// A kind of key slot named on the command line: the values come from `SlotKinds.builtIn`.
struct SlotKindName: ExpressibleByArgument, CustomStringConvertible {
    let kind: SlotKind

    init(_ kind: SlotKind) { self.kind = kind }

    init?(argument: String) {
        guard let kind = SlotKinds.builtIn.named(argument) else { return nil }
        self.kind = kind
    }

    static var allValueStrings: [String] { SlotKinds.builtIn.all.map(\.name) }

    var description: String { kind.name }
    var defaultValueDescription: String { kind.name }
}
