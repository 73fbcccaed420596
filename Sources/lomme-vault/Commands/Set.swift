import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Replace one field of the stored config (the value asked, or standard input's first line; never argv).",
        discussion: """
            FIELD is a field of the stored config, in any case (clientsecret is clientSecret; \
            secret and cardAccountNr are the aliases of clientSecret and accountNr), or a known \
            optional one: name, tokenUrl, secretExpires. A name one or two letters from a field \
            is refused naming it (exit 6, as any name that is no field), and no other name \
            becomes a field: a new extra field needs --new NAME (`lomme-vault unset NAME` removes one).

            On a terminal the value is asked: clientSecret, and any field whose name says \
            secret, password, token or key (apiKey, refresh_token), without echo and typed \
            twice, other fields shown as typed. Such fields are masked wherever lomme-vault \
            shows a config. Otherwise the value is the first line of standard input \
            (`echo 2027-02-24 | lomme-vault set secretExpires`, `lomme-vault set clientSecret < new-secret.txt`). \
            The field's rules apply (--no-check skips only the check digits): on a terminal a value \
            that fails them is said and asked again, three tries in all. The same value again \
            writes nothing. The replaced config is kept as the previous one.

            After the change, the children whose last code no longer carries everything the \
            vault holds for them are named with why (secret renewed, expiry changed, …), and \
            the command that gives them new codes (`lomme-vault issue --all`). secretExpires \
            (YYYY-MM-DD) is the day the bank retires the secret: from 14 days before it, \
            `status`, `unlock`, `token` and `child list` warn on stderr.

            Exit 6: no vault, no config stored yet (store the bank's with \
            `lomme-vault import --stdin < config.json` first), or no such field (a near miss \
            of a field's name too). Exit 7: the value fails the field's rule. Exit 64: --new \
            with a field that exists, an empty first line.
            """
    )

    @Argument(help: ArgumentHelp("The field: clientId, clientSecret, userId, accountNr, tokenUrl, name, secretExpires, or an extra field of the stored config (any case).",
                                 valueName: "field"))
    var field: String

    @Flag(name: .customLong("new"), help: "Add FIELD as a new extra field (it must not be one already).")
    var new = false

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
        request.new = new
        request.unlock = vault.unlockOptions
        let outcome = try SetService(context).run(request)
        if !outcome.changed {
            Terminal.info("\(outcome.field) is unchanged (the same value is stored); nothing was written.")
        } else {
            Terminal.info("Set \(outcome.field) in \(context.store.path) (the config before is kept as the previous one).")
        }
        Self.tellStale(outcome)
    }

    /// The children a change leaves without a current code, and the warning.
    static func tellStale(_ outcome: SetService.Outcome) {
        if outcome.changed, !outcome.stale.isEmpty {
            let names = outcome.stale.map { "\($0.name) (\(ChildState.Reason.wording($0.reasons)))" }.joined(separator: ", ")
            Terminal.info("Not current now: \(names). Give them new codes with `lomme-vault issue --all` (or `lomme-vault issue --to NAME`).")
        }
        if let warning = outcome.warning { Terminal.error(warning) }
    }
}
