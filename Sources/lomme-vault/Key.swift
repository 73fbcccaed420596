import ArgumentParser
import LommeCore
import LommeVaultKit

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print this device's public receiving key as text and QR (for the parent's `issue --to`).",
        discussion: """
            The key (`lvk1…`, checksummed so a typo is caught) is public: a sealed code issued to it \
            can be opened only with the matching secret key, which stays in this vault. The public key \
            is read from the vault's header, so a locked vault shows it too (the next unlock checks that \
            it was not swapped). A vault made before device keys existed is opened (an unlocked session \
            or the passphrase) and gets its keys now.
            """
    )

    @Option(name: [.short, .long], help: ArgumentHelp("Write the QR code to FILE.png or FILE.svg instead of the terminal.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Print only the key text (for scripts).")
    var text = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if let output, !output.lowercased().hasSuffix(".png"), !output.lowercased().hasSuffix(".svg") {
            throw ValidationError("--output must end in .png or .svg")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        if let key = try Provisioning.publicReceivingKey(context) {
            return try DeviceKeyOutput.show(key, output: output, textOnly: text)
        }
        let (identity, made) = try Provisioning.deviceIdentity(Session.open(context, vault.unlockOptions))
        if made { Terminal.info("Made this device's keys and stored them in the vault.") }
        try DeviceKeyOutput.show(identity.receiving.publicKey, output: output, textOnly: text)
    }
}
