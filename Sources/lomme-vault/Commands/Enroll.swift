import ArgumentParser
import LommeCore
import LommeVaultKit

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
    @OptionGroup var slot: SlotOptions<MakingASlot>
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard kind.kind.enrollable else {
            throw ValidationError("lomme-vault can enroll \(SlotKinds.list(SlotKinds.builtIn.enrollableNames)) (the passphrase slot is made by init; `passwd` changes it)")
        }
        try slot.check(kind.kind, argument: argument, command: "enroll")
    }

    func run() throws {
        let context = try vault.prepare()
        let request = try slot.request(argument: argument, noPrompt: vault.noPrompt)
        let enrolled = try SlotService(context).enroll(kind.kind, vault.unlockOptions, request)
        let unlock = "lomme-vault unlock --with \(kind.kind.name)" + (kind.kind.argument.map { " \($0)" } ?? "")
        Terminal.info("Enrolled slot \(enrolled.id) (\(enrolled.summary)) in \(context.store.path); `\(unlock)` unlocks with it.")
        enrolled.notes.forEach(Terminal.info)
    }
}
