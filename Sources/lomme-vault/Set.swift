import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Replace one field of the stored config (the value asked, or standard input's first line; never argv).",
        discussion: """
            On a terminal the value is asked: clientSecret without echo and typed twice, other \
            fields shown as typed. Otherwise it is the first line of standard input \
            (`echo 2027-02-24 | lomme-vault set secretExpires`, `lomme-vault set clientSecret < new-secret.txt`). \
            The field's rules apply (--no-check skips only the check digits); the same value \
            again writes nothing. The replaced config is kept as the previous one.

            After a new clientSecret, the children whose last code carries the old one are \
            named, with the command that gives them a new code (`lomme-vault issue --all`). \
            secretExpires (YYYY-MM-DD) is the day the bank retires the secret: from 14 days \
            before it, `status`, `unlock`, `token` and `child list` warn on stderr.

            Exit 6: no vault, or no config stored yet (store the bank's with \
            `lomme-vault import --stdin < config.json` first). Exit 7: the value fails the \
            field's rule. Exit 64: an empty first line, or a field name with spaces.
            """
    )

    @Argument(help: ArgumentHelp("The field: clientId, clientSecret, userId, accountNr, tokenUrl, name, secretExpires, or another extra field.",
                                 valueName: "field"))
    var field: String

    @Flag(name: .long, help: "Skip the check-digit rule of userId or accountNr (for test numbers).")
    var noCheck = false

    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if vault.passphrase.passphraseFD == 0 && !Terminal.isTerminal(STDIN_FILENO) {
            throw ValidationError("standard input carries the value; give the passphrase with --passphrase-file or another --passphrase-fd")
        }
    }

    func run() throws {
        Hardening.apply()  // the value may be the secret
        let context = try vault.prepare()
        var request = SetService.Request(field: field, source: Terminal.isTerminal(STDIN_FILENO) ? .terminal : .standardInput)
        request.checksums = !noCheck
        request.unlock = vault.unlockOptions
        let outcome = try SetService(context).run(request)
        if !outcome.changed {
            Terminal.info("\(outcome.field) is unchanged (the same value is stored); nothing was written.")
        } else {
            Terminal.info("Set \(outcome.field) in \(context.store.path) (the config before is kept as the previous one).")
        }
        if !outcome.stale.isEmpty {
            let names = outcome.stale.joined(separator: ", ")
            Terminal.info("\(outcome.stale.count == 1 ? "This child's" : "These children's") last code carries an older secret, or they have none yet: \(names). Give them new codes with `lomme-vault issue --all` (or `lomme-vault issue --to NAME`).")
        }
        if let warning = outcome.warning { Terminal.error(warning) }
    }
}
