import ArgumentParser
import LommeCore
import LommeVaultKit

struct Slots: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slots",
        abstract: "The vault's key slots: number, kind, created, last unlocked.",
        discussion: "Read from the vault's header: no passphrase needed. Every vault has a passphrase slot, the way in when a TPM is gone; `enroll tpm2` adds a TPM slot, `unenroll SLOT` removes one."
    )

    @Flag(name: .customLong("json"), help: "Print the slots as JSON.") var json = false
    @OptionGroup var vault: VaultLocation

    func run() throws {
        let (_, slots) = try SlotService(try vault.prepare()).list()
        if json {
            try Terminal.output(JSON.array(slots.map(\.json)).text + "\n")
            return
        }
        var lines = ["slot  kind        created               last unlock           details"]
        for slot in slots {
            func time(_ value: UInt64?) -> String { value.map { Instant(seconds: Int64(clamping: $0)).shown } ?? "-" }
            let cells = [String(slot.id), slot.kind, time(slot.created), time(slot.lastUsed)]
            let widths = [6, 12, 22, 22]
            lines.append(zip(cells, widths).map { $0 + String(repeating: " ", count: max($1 - $0.count, 1)) }.joined() + slot.details)
        }
        try Terminal.output(lines.map(TerminalText.line).joined(separator: "\n") + "\n")
    }
}
