import Glibc
import ArgumentParser
import LommeCore
import LommeVaultKit

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print this machine's public receiving key as text and QR (for the parent's `issue --to`), or with --issuer its issuer fingerprint.",
        discussion: """
            The key (`lvk1…`, checksummed so a typo is caught) is public: a sealed code issued to it \
            can be opened only with the matching secret key, which stays in this vault. The public keys \
            are read from the vault's header, so a locked vault shows them too (the next unlock checks that \
            they were not swapped). A vault made before device keys existed is opened (an unlocked session \
            or the passphrase) and gets its keys now.

            --issuer prints the issuer fingerprint instead: the key this machine signs sealed codes \
            with, which a child's machine shows when it imports one of them for the first time.

            --parent prints the parent key instead (`lvp1…`: the receiving and the issuer key in \
            one text, checksummed), for a second parent's machine to be added to the household \
            with `lomme-vault parent add NAME --key lvp1…` (or a photo of its QR code) on the \
            machine that holds the household.
            """
    )

    @Option(name: [.short, .long], help: ArgumentHelp("Write the QR code to FILE.png or FILE.svg instead of the terminal.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Print only the key text and a newline on stdout (for scripts and files); nothing on stderr.")
    var text = false

    @Flag(name: .long, help: "Print this machine's issuer fingerprint (what a child compares on import) instead of the receiving key.")
    var issuer = false

    @Flag(name: .long, help: "Print this machine's parent key (lvp1…, for `parent add` on the other parent's machine) instead of the receiving key.")
    var parent = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if issuer && (text || output != nil || parent) { throw ValidationError("--issuer prints a fingerprint only; leave out --text, --output and --parent") }
        if let output, !output.lowercased().hasSuffix(".png"), !output.lowercased().hasSuffix(".svg") {
            throw ValidationError("--output must end in .png or .svg")
        }
    }

    func run() throws {
        let context = try vault.prepare()
        let header = try Provisioning(context).publicKeys()
        if parent {
            let key: ParentKey
            if let receiving = header?.receiving, let issuerKey = header?.issuer {
                key = ParentKey(receiving: receiving, issuer: issuerKey)
            } else {
                let identity = try Provisioning(context).deviceIdentity(vault.unlockOptions).identity
                key = ParentKey(receiving: identity.receiving.publicKey, issuer: identity.signing.publicKey)
            }
            return try ParentKeyOutput.show(key, output: output, textOnly: text, advice: Terminal.isTerminal(STDERR_FILENO))
        }
        if issuer, let key = header?.issuer {
            return try showIssuer(key.fingerprint)
        }
        if !issuer, let key = header?.receiving {
            return try DeviceKeyOutput.show(key, output: output, textOnly: text, advice: Terminal.isTerminal(STDERR_FILENO))
        }
        let (identity, made) = try Provisioning(context).deviceIdentity(vault.unlockOptions)
        if made && !text { Terminal.info("Made this machine's keys and stored them in the vault.") }
        if issuer { return try showIssuer(identity.signing.fingerprint) }
        try DeviceKeyOutput.show(identity.receiving.publicKey, output: output, textOnly: text, advice: Terminal.isTerminal(STDERR_FILENO))
    }

    func showIssuer(_ fingerprint: String) throws {
        try Terminal.output(fingerprint + "\n")
        guard Terminal.isTerminal(STDERR_FILENO) else { return }
        Terminal.info("This machine's issuer fingerprint. A child's machine shows it when it imports the first sealed code issued here: tell the child it must be this one.")
    }
}
