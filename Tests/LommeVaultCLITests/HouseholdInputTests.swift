import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The household's commands on bad input (each one line, its exit code, the vault
/// unchanged) and on a real terminal (tmux): `child add` asks to compare the fingerprint,
/// `set clientSecret` asks twice without echo, `issue --all` shows one code after another.
@Suite("The household: bad input and the terminal")
struct HouseholdInputTests {
    /// A parent's vault holding sampleConfig() and the child anna.
    static func parent(_ box: CLI.Sandbox) -> (options: [String], env: [String: String], annaKey: String) {
        let pw = box.write("pw", "household input passphrase\n")
        let options = ["--passphrase-file", pw]
        let env = ["LOMME_VAULT": box.vault]
        #expect(CLI.run(["import", "--stdin", "--yes"] + options, stdin: PlainPayload.encode(sampleConfig()), environment: env).status == 0)
        let key = ReceivingKeyPair.generate().publicKey.text
        #expect(CLI.run(["child", "add", "anna", "--key", key, "--account", "97104133219", "--yes"] + options, environment: env).status == 0)
        return (options, env, key)
    }

    @Test func badInputIsOneLineTheRightCodeAndChangesNothing() throws {
        let box = CLI.Sandbox()
        let (options, env, annaKey) = Self.parent(box)
        let before = readFile(box.vault)
        let otherKey = ReceivingKeyPair.generate().publicKey.text
        let noCode = box.path + "/blank.png"
        #expect(CLI.run([], shell: "convert -size 200x200 xc:white '\(noCode)'").status == 0)
        let configCode = CLI.qrImage(PlainPayload.encode(sampleConfig()), in: box)
        let cases: [([String], String?, Int32, String)] = [
            (["child", "add", "Anna", "--key", otherKey, "--account", "97104133219", "--yes"], nil, 1, "there is already a child called anna"),
            (["child", "add", "ola", "--key", annaKey, "--account", "97104133219", "--yes"], nil, 1, "is anna's already"),
            (["child", "add", "ola", "--key", otherKey, "--account", "97104133219", "--field", "clientId=x", "--yes"], nil, 64, "--field may not set clientId"),
            (["child", "add", "ola", "--key", otherKey, "--account", "97104133219", "--field", "userId=x", "--yes"], nil, 64, "--field may not set userId"),
            (["child", "add", "ola", "--key", otherKey, "--account", "12345678901", "--yes"], nil, 7, "--account: accountNr fails the account number check digit"),
            (["child", "add", "../ola", "--key", otherKey, "--account", "97104133219", "--yes"], nil, 64, "a child's name is 1 to 32 letters"),
            (["child", "add", "ola", "--key-image", noCode, "--account", "97104133219", "--yes"], nil, 2, "no QR code"),
            (["child", "add", "ola", "--key-image", configCode, "--account", "97104133219", "--yes"], nil, 7, "is not a lomme-vault receiving key"),
            (["child", "add", "ola", "--account", "97104133219"], nil, 64, "--key KEY or --key-image PHOTO"),
            (["child", "add", "ola", "--key", otherKey, "--account", "97104133219"], nil, 1, "add --yes"),
            (["child", "rekey", "kari", "--key", otherKey, "--yes"], nil, 6, "there is no child called kari; the children are anna"),
            (["child", "remove", "kari"], nil, 6, "the children are anna"),
            (["issue", "--to", "kari"], nil, 6, "there is no child called kari, and it is not a receiving key"),
            (["issue", "--all"], nil, 64, "give --output-dir DIR"),
            (["issue", "--to", "anna", "--all"], nil, 64, "give one of --to, --to-image and --all"),
            (["issue", "--output-dir", box.path + "/x"], nil, 64, "--output-dir goes with --all"),
            (["set", "clientSecret"], "\n", 64, "standard input's first line is empty"),
            (["set", "userId"], "01010112346\n", 7, "userId fails the national id check digits"),
            (["set", "secretExpires"], "2027-02-30\n", 7, "secretExpires must be a date written YYYY-MM-DD"),
            (["set", "tokenUrl"], "http://bank.example/token\n", 7, "tokenUrl"),
            (["child", "add", "ola", "--key", otherKey, "--account", "97104133219", "--field", "tokenUrl=http://10.0.0.1/token", "--yes"], nil, 7,
             "refusing plain http:// to 10.0.0.1 (--field tokenUrl)"),
            (["set", "with space"], "x\n", 64, "a field name is printable ASCII without spaces"),
        ]
        for (arguments, stdin, status, words) in cases {
            let result = CLI.run(arguments + options, stdin: stdin, environment: env)
            #expect(result.status == status, "\(arguments): exit \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("lomme-vault: ") || result.stderr.hasPrefix("Error: ") == false, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains(sampleConfig().clientSecret) && !result.out.contains(sampleConfig().clientSecret))
        }
        #expect(readFile(box.vault) == before, "a refused command changed the vault")

        // set on a vault holding no config; child commands on no vault.
        let empty = CLI.Sandbox()
        let pw = empty.write("pw", "empty vault passphrase\n")
        #expect(CLI.run(["init", "--parent", "--passphrase-file", pw], environment: ["LOMME_VAULT": empty.vault]).status == 0)
        let noConfig = CLI.run(["set", "clientId", "--passphrase-file", pw], stdin: "x\n", environment: ["LOMME_VAULT": empty.vault])
        #expect(noConfig.status == 6 && noConfig.reason == .noConfig && noConfig.stderr.contains("import --stdin < config.json"), "\(noConfig.stderr)")
        let noVault = CLI.run(["child", "list", "--passphrase-file", pw], environment: ["LOMME_VAULT": empty.path + "/none/vault"])
        #expect(noVault.status == 6 && noVault.reason == .noVault && noVault.stderr.contains("init --parent"), "\(noVault.stderr)")
    }

    /// `child add --help` (and so the man page) names every field --field may not set:
    /// Child.reservedFields, accountNr among them.
    @Test func theHelpNamesEveryFieldTheChildMayNotSet() {
        let help = TmuxSession.flowing(CLI.run(["child", "add", "--help"]).out)
        let banned = help.firstMatch(of: /it may not set (.*?), which are the household's/).map { String($0.1) } ?? ""
        for field in Child.reservedFields {
            #expect(banned.contains(field), "\(field) is not in the help's list: \(banned)")
        }
        let page = TmuxSession.flowing(String(decoding: readFile(packageRoot + "/man/lomme-vault.1"), as: UTF8.self))
        #expect(page.contains("accountNr (or cardAccountNr: that is \\-\\-account)"), "the man page lacks accountNr")
    }

    @Test func childAddAsksToCompareTheFingerprintOnATerminal() throws {
        let box = CLI.Sandbox()
        let (options, _, _) = Self.parent(box)
        let key = ReceivingKeyPair.generate().publicKey
        let command = "\"$LV\" child add ola --key \(key.text) --account 97104133219 --vault '\(box.vault)' \(options.joined(separator: " "))"
        let no = TmuxSession(box, command: command)
        no.wait(for: "Is \(key.fingerprint) the fingerprint ola's device shows (`lomme-vault key`)? Add ola?")
        no.type("n")
        no.wait(for: "EXIT=")
        #expect(no.screen.contains("not added; nothing changed") && no.screen.contains("EXIT=1"), "\(no.screen)")
        let yes = TmuxSession(box, command: command)
        yes.wait(for: "Add ola?")
        yes.type("y")
        yes.wait(for: "EXIT=")
        #expect(yes.screen.contains("Added ola") && yes.screen.contains("EXIT=0"), "\(yes.screen)")
    }

    @Test func setAsksForTheSecretTwiceWithoutEcho() throws {
        let box = CLI.Sandbox()
        let (options, env, _) = Self.parent(box)
        let session = TmuxSession(box, command: "\"$LV\" set clientSecret --vault '\(box.vault)' \(options.joined(separator: " "))")
        session.wait(for: "clientSecret (not shown): ")
        session.type("typed-secret-1")
        session.wait(for: "clientSecret again: ")
        session.type("typed-secret-2")
        session.wait(for: "The two did not match; type it again.")
        session.wait(for: "clientSecret (not shown): ", count: 2)
        session.type("typed-secret-3")
        session.wait(for: "clientSecret again: ", count: 2)
        session.type("typed-secret-3")
        session.wait(for: "EXIT=")
        #expect(session.screen.contains("EXIT=0") && session.screen.contains("anna"), "\(session.screen)")
        #expect(!session.screen.contains("typed-secret"), "the secret was echoed")
        #expect(CLI.run(["get", "clientSecret"] + options, environment: env).out == "typed-secret-3")
    }

    @Test func issueAllShowsOneCodeAfterAnotherOnATerminal() throws {
        let box = CLI.Sandbox()
        let (options, env, _) = Self.parent(box)
        #expect(CLI.run(["child", "add", "ola", "--key", ReceivingKeyPair.generate().publicKey.text, "--account", "12345678903", "--yes"] + options, environment: env).status == 0)
        let session = TmuxSession(box, command: "\"$LV\" issue --all --vault '\(box.vault)' \(options.joined(separator: " "))", columns: 200, rows: 120)
        session.wait(for: "anna — code 1 of 2")
        session.wait(for: "Enter: the next code (ola)")
        #expect(!session.screen.contains("ola — code 2 of 2"))
        session.type("")
        session.wait(for: "ola — code 2 of 2")
        session.wait(for: "EXIT=")
        #expect(session.screen.contains("EXIT=0"), "\(session.screen)")
        let listed = CLI.run(["child", "list", "--json"] + options, environment: env)
        let children = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]])
        #expect(children.count == 2 && children.allSatisfy { $0["current"] as? Bool == true }, "\(listed.out)")
    }
}
