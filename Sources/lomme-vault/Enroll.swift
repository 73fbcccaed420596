import ArgumentParser
import LommeCore
import LommeVaultKit

/// `--pin-fd N` / `--pin-file PATH`: where a TPM PIN comes from when not the terminal.
struct PINOptions: ParsableArguments {
    @Option(name: .customLong("pin-fd"), help: ArgumentHelp("Read the TPM PIN from this open file descriptor (first line).", valueName: "n"))
    var pinFD: Int32?
    @Option(name: .customLong("pin-file"), help: ArgumentHelp("Read the TPM PIN from this file (first line).", valueName: "path"))
    var pinFile: String?

    func validate() throws { _ = try Self.source(pinFD, pinFile) }

    static func source(_ fd: Int32?, _ file: String?) throws(ValidationError) -> PassphraseSource {
        try SecretSource.from(fd: fd, file: file, noun: "PIN", option: "pin")
    }

    var given: Bool { pinFD != nil || pinFile != nil }
    var source: PassphraseSource { (try? Self.source(pinFD, pinFile)) ?? .terminal }
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

    /// The one check of a kind's argument and options, for `enroll` and `unlock --with`.
    static func check(_ kind: SlotKind, argument: String?, given: [(option: SlotOption, words: String)], command: String) throws(ValidationError) {
        if let name = kind.argument, argument == nil {
            throw ValidationError("\(command) \(kind.name) needs the \(name == "PATH" ? "key file's path" : name): `lomme-vault \(command) \(kind.name) \(name)`")
        }
        if kind.argument == nil, let argument {
            throw ValidationError("\(command) \(kind.name) takes no argument (got \"\(TerminalText.line(argument))\")")
        }
        for (option, words) in given where !kind.options.contains(option) {
            throw ValidationError("\(words): only with \(SlotKinds.list(SlotKinds.builtIn.all.filter { $0.options.contains(option) }.map(\.name))), not \(kind.name)")
        }
    }
}

struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Add a key slot: " + SlotKinds.builtIn.all.filter(\.enrollable).map { "`enroll \($0.name)\($0.argument.map { " \($0)" } ?? "")`" }
            .joined(separator: ", ") + ".",
        discussion: "The vault key is proven first (an unlocked session, or the passphrase). "
            + SlotKinds.builtIn.all.filter(\.enrollable).map { $0.help.enroll ?? "" }.joined(separator: " ")
            + " The passphrase slot stays: the way in when every other is gone."
            + " Exit 1: the TPM's lockout authorization is empty or not known (--pin without --force), a PIN shorter than 6 characters (on a terminal it is asked again), no TPM, the key file exists already; 3: no terminal and no passphrase given; 4: wrong passphrase; 64: a bad argument."
    )

    @Argument(help: ArgumentHelp("The kind of slot: \(SlotKinds.list(SlotKinds.builtIn.enrollableNames)).", valueName: "kind")) var kind: SlotKindName
    @Argument(help: ArgumentHelp("What the kind takes: " + SlotKinds.builtIn.all.compactMap { kind in kind.argument.map { "\(kind.name) \($0)" } }.joined(separator: ", ") + ".",
                                 valueName: "argument"))
    var argument: String?
    @Flag(name: .customLong("pin"), help: "tpm2: protect the slot with a PIN (at least 6 characters) that the TPM rate-limits.")
    var pin = false
    @OptionGroup var pinOptions: PINOptions
    @Option(name: .customLong("pcrs"), help: ArgumentHelp("tpm2: bind to these SHA-256 PCRs as they are now: 7, or 0+7.", valueName: "list"))
    var pcrs: String?
    @Flag(name: .customLong("force"), help: "tpm2 --pin: enroll although the TPM's lockout authorization is empty (anyone here can then reset its count of wrong PINs).")
    var force = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard kind.kind.enrollable else {
            throw ValidationError("lomme-vault can enroll \(SlotKinds.list(SlotKinds.builtIn.enrollableNames)) (the passphrase slot is made by init; `passwd` changes it)")
        }
        var given: [(option: SlotOption, words: String)] = []
        if pin || pinOptions.given { given.append((.pin, "--pin")) }
        if pcrs != nil { given.append((.pcrs, "--pcrs")) }
        if force { given.append((.force, "--force")) }
        try SlotKindName.check(kind.kind, argument: argument, given: given, command: "enroll")
        if let pcrs, TPM2Slot.parsePCRs(pcrs) == nil { throw ValidationError("--pcrs takes PCR numbers 0 to 23 joined by +, such as 7 or 0+7") }
    }

    func run() throws {
        let context = try vault.prepare()
        let withPIN = pin || pinOptions.given
        var options: [SlotOption: any Sendable] = [:]
        if withPIN { options[.pin] = pinOptions.source }
        if let indexes = pcrs.flatMap(TPM2Slot.parsePCRs) { options[.pcrs] = indexes }
        if force { options[.force] = true }
        let request = SlotRequest(argument: argument, options: options, noPrompt: vault.noPrompt)
        let enrolled = try SlotService(context).enroll(kind.kind, vault.unlockOptions, request)
        let unlock = "lomme-vault unlock --with \(kind.kind.name)" + (kind.kind.argument.map { " \($0)" } ?? "")
        Terminal.info("Enrolled slot \(enrolled.id) (\(enrolled.summary)) in \(context.store.path); `\(unlock)` unlocks with it.")
        enrolled.notes.forEach(Terminal.info)
    }
}
