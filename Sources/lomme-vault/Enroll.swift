import ArgumentParser
import LommeCore
import LommeVaultKit

/// `--pin-fd N` / `--pin-file PATH`: where a TPM PIN comes from when not the terminal.
struct PINOptions: ParsableArguments {
    @Option(name: .customLong("pin-fd"), help: ArgumentHelp("Read the TPM PIN from this open file descriptor (first line).", valueName: "n"))
    var pinFD: Int32?
    @Option(name: .customLong("pin-file"), help: ArgumentHelp("Read the TPM PIN from this file (first line).", valueName: "path"))
    var pinFile: String?

    func validate() throws {
        if pinFD != nil && pinFile != nil { throw ValidationError("give the PIN with --pin-fd or --pin-file, not both") }
        if let fd = pinFD, fd < 0 { throw ValidationError("--pin-fd must be a file descriptor number (0 or more)") }
    }

    var given: Bool { pinFD != nil || pinFile != nil }
    var source: PassphraseSource { pinFD.map { .descriptor($0) } ?? pinFile.map { .file($0) } ?? .terminal }
}

struct Enroll: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Add a key slot: `enroll tpm2` seals one to this machine's TPM 2.0.",
        discussion: """
            The vault key is proven first (an unlocked session, or the passphrase). With --pin (asked twice, \
            or --pin-fd/--pin-file) `unlock --with tpm2` asks the PIN and the TPM locks out after a few wrong \
            ones; without, the slot opens with no question on this machine: a stolen copy of the vault file is \
            useless elsewhere, but anyone who can run programs as you here can open it. --pcrs binds the slot \
            to those PCRs as they are now (as systemd-cryptenroll --tpm2-pcrs). The TPM is /dev/tpmrm0, or the \
            TCTI in LOMME_VAULT_TPM. The passphrase slot stays: the way in when the TPM is gone.
            """
    )

    @Argument(help: ArgumentHelp("The kind of slot: tpm2.", valueName: "kind")) var kind: String
    @Flag(name: .customLong("pin"), help: "Protect the slot with a PIN (at least 4 characters) that the TPM rate-limits.")
    var pin = false
    @OptionGroup var pinOptions: PINOptions
    @Option(name: .customLong("pcrs"), help: ArgumentHelp("Bind to these SHA-256 PCRs as they are now: 7, or 0+7.", valueName: "list"))
    var pcrs: String?
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        guard kind == "tpm2" else { throw ValidationError("lomme-vault can enroll a tpm2 slot (the passphrase slot is made by init; `passwd` changes it)") }
        if let pcrs, TPM2Slot.parsePCRs(pcrs) == nil { throw ValidationError("--pcrs takes PCR numbers 0 to 23 joined by +, such as 7 or 0+7") }
    }

    func run() throws {
        let context = try vault.prepare()
        let withPIN = pin || pinOptions.given
        let enrolled = try TPMSlotService(context).enroll(vault.unlockOptions, pin: withPIN ? pinOptions.source : nil,
                                                          pcrs: pcrs.flatMap(TPM2Slot.parsePCRs) ?? [])
        let bound = enrolled.parameters.pcrs.isEmpty ? "" : ", bound to \(TPM2Slot.describe(enrolled.parameters.pcrs)) as they are now"
        Terminal.info("Enrolled slot \(enrolled.id) (tpm2, \(withPIN ? "PIN" : "no PIN")\(bound)) in \(context.store.path); `lomme-vault unlock --with tpm2` unlocks with it.")
        if withPIN {
            let tries = enrolled.lockout.map { " after \($0.maxTries) wrong PINs, forgiving one every \(DurationText.format(UInt64($0.recoverySeconds)))" } ?? " after a few wrong PINs"
            Terminal.info("The TPM locks out\(tries); the passphrase always opens the vault.")
        } else {
            Terminal.info("Without a PIN the slot opens with no question on this machine: a stolen copy of the vault file or a backup is useless elsewhere, but anyone who can run programs as you here can open it. `lomme-vault enroll tpm2 --pin` adds a PIN the chip rate-limits.")
        }
    }
}
