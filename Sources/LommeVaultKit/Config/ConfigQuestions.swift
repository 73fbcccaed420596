import LommeCore

/// `issue` without `--from`: the config asked field by field, each answer checked as it is
/// typed with the rules the payload check uses (`Config.check`), and that field asked again
/// with the reason when it fails a rule.
extension ConfigInput {
    /// How many times one field is asked before `issue` gives up with the last reason.
    package static let triesPerField = 3

    /// Asks for the four fields (the secret without echo), then the optional `name` and
    /// `tokenUrl` (an empty answer: none).
    package static func ask(checksums: Bool, _ interaction: any Interaction) throws(LommeError) -> Config {
        guard interaction.canAsk else {
            throw LommeError.usage(.noTerminalToAsk, "no terminal to ask for the config on; give it as JSON with --from FILE or --from -")
        }
        let clientId = try askChecked(interaction, { () throws(LommeError) in try interaction.ask("clientId: ") }) {
            (text) throws(LommeError) in try Config.check(clientId: text)
        }
        let clientSecret = try askChecked(interaction, { () throws(LommeError) in
            try interaction.askSecret("clientSecret (not shown): ").withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }) { (text) throws(LommeError) in try Config.check(clientSecret: text) }
        let userId = try askChecked(interaction, { () throws(LommeError) in
            NorwegianNumbers.normalize(try interaction.ask("userId (national id, 11 digits): "))
        }) { (text) throws(LommeError) in try Config.check(userId: text, checksums: checksums) }
        let accountNr = try askChecked(interaction, { () throws(LommeError) in
            NorwegianNumbers.normalize(try interaction.ask("accountNr (11 digits): "))
        }) { (text) throws(LommeError) in try Config.check(accountNr: text, checksums: checksums) }
        var extras: [JSON.Member] = []
        let name = try askChecked(interaction, { () throws(LommeError) in
            try interaction.ask("name (optional, a label such as the child's name; Enter for none): ")
        }) { (text) throws(LommeError) in try Config.check(extra: Config.Field.name, text) }
        if !name.isEmpty { extras.append(JSON.Member(Config.Field.name, .string(name))) }
        let tokenURL = try askChecked(interaction, { () throws(LommeError) in
            try interaction.ask("tokenUrl (optional, the bank's token endpoint for `lomme-vault token`; Enter for none): ")
        }) { (text) throws(LommeError) in
            guard !text.isEmpty else { return }
            do throws(LommeError) { _ = try TokenURL(text, source: Config.Field.tokenUrl) } catch { throw error.with(code: .refused) }
        }
        if !tokenURL.isEmpty { extras.append(JSON.Member(Config.Field.tokenUrl, .string(tokenURL))) }
        let config = Config(clientId: clientId, clientSecret: clientSecret, userId: userId, accountNr: accountNr, extras: extras)
        try config.validate(checksums: checksums)
        return config
    }

    /// One answer that passes `check`: asked again with the reason after a failure, up to
    /// `triesPerField` times; the last failure is the error.
    static func askChecked(_ interaction: any Interaction, _ read: () throws(LommeError) -> String,
                           check: (String) throws(LommeError) -> Void) throws(LommeError) -> String {
        var tries = 0
        while true {
            let answer = try read()
            tries += 1
            do throws(LommeError) {
                try check(answer)
                return answer
            } catch where tries < triesPerField {
                interaction.notice("\(error.message). Type it again.")
            }
        }
    }
}
