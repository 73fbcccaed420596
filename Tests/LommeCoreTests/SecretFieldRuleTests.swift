import LommeCore
import Testing

/// One rule says which fields hold a secret (`FieldNames.isSecret`): a name that says
/// secret, password, token or key (or a synonym), with case, `_` and `-` ignored; the
/// known fields are what they are. The config's summary and the summary of JSON that is no
/// config follow it alike, so `scan` cannot show in clear what `import` masks.
@Suite("Which fields are secret: one rule")
struct SecretFieldRuleTests {
    static let secret = [
        "clientSecret", "clientsecret", "CLIENT-SECRET", "client_secret", "secret", "SECRET", "mySecretThing",
        "password", "db-password", "dbPasswd", "passwd", "passphrase", "pwd", "pass", "pin", "PIN",
        "token", "sessionToken", "access_token", "refreshToken", "idToken", "bearer", "auth", "Authorization",
        "key", "apiKey", "api_key", "API-KEY", "bankKey", "privateKey", "secretKey", "keyboard",
        "credential", "dbCredentials",
    ]
    static let notSecret = [
        "clientId", "userId", "accountNr", "cardAccountNr", "tokenUrl", "TOKENURL", "secretExpires", "secretexpires",
        "name", "note", "shipping", "passenger", "author", "account", "pinned",
    ]

    @Test func namesThatSaySecretPasswordTokenOrKeyAreSecret() {
        for name in Self.secret { #expect(FieldNames.isSecret(name), "\(name)") }
        for name in Self.notSecret { #expect(!FieldNames.isSecret(name), "\(name)") }
    }

    /// The config's summary (`import`, `issue`, `scan` of a config) and the summary of JSON
    /// that is no config (`scan`) hide exactly the same fields.
    @Test func everySummaryHidesTheSameFields() throws {
        for name in Self.secret + Self.notSecret where FieldNames.known(name) == nil {
            let value = "value-of-\(name.count)-xyz"
            let member = JSON.Member(name, .string(value))
            var config = try Config(jsonBytes: Array(#"{"clientId":"c","clientSecret":"s","userId":"01010112345","accountNr":"12345678903"}"#.utf8),
                                    checksums: false)
            config.extras = [member]
            let inConfig = config.summaryLines.joined(separator: "\n").contains(value)
            // No config (clientId missing), but the same field beside a secret one.
            let other = SecretFields.summaryLines(JSON.object([JSON.Member("other-password", .string("p")), member]).text)
            let inOther = try #require(other, "\(name)").joined(separator: "\n").contains(value)
            #expect(inConfig == inOther, "\(name): the config's summary \(inConfig ? "shows" : "hides") it, scan's \(inOther ? "shows" : "hides") it")
            #expect(inConfig == !FieldNames.isSecret(name), "\(name)")
        }
    }

    /// JSON that is no config is summarised (not printed raw) when any of its fields is a
    /// secret by the rule, such as `sessionToken` alone.
    @Test func jsonWithAnySecretFieldIsSummarisedNotPrinted() throws {
        for name in ["sessionToken", "bankKey", "dbPasswd", "apiKey", "password"] {
            let lines = try #require(SecretFields.summaryLines(#"{"\#(name)":"hidden-value","note":"shown"}"#), "\(name)")
            #expect(!lines.joined().contains("hidden-value") && lines.joined().contains("shown"), "\(lines)")
        }
        #expect(SecretFields.summaryLines(#"{"note":"shown","tokenUrl":"https://bank.example/t"}"#) == nil)
    }
}
