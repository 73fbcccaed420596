import Foundation
import LommeTestSupport
import Testing

/// Every summary hides the fields one rule calls secret (`FieldNames.isSecret`: a name that
/// says secret, password, token or key), through the built binary: `scan` of JSON that is
/// no config showed `sessionToken`, `bankKey` and `dbPasswd` in clear while it hid `apiKey`
/// and `password`; now `scan`, `import` and `issue` hide all of them, and `child add
/// --field` refuses them on the command line.
@Suite("Every summary masks the same secret fields")
struct SecretFieldMaskingTests {
    /// Extra fields the rule calls secret, each with a value that must never be shown.
    static let hidden = [("sessionToken", "S-hidden-1"), ("bankKey", "K-hidden-2"), ("dbPasswd", "P-hidden-3"),
                         ("apiKey", "A-hidden-4"), ("password", "W-hidden-5"), ("refresh_token", "R-hidden-6")]
    static var fields: String { hidden.map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",") }
    static let config = #"{"clientId":"client-M","clientSecret":"M-hidden-0","userId":"01010112345","accountNr":"12345678903","#
        + fields + #","tokenUrl":"https://bank.example/token","note":"shown-7"}"#

    static func expectMasked(_ result: CLI.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(what): \(result.stderr)", sourceLocation: sourceLocation)
        let said = result.out + result.stderr
        for (name, value) in hidden + [("clientSecret", "M-hidden-0")] {
            #expect(!said.contains(value), "\(what) shows \(name): \(said)", sourceLocation: sourceLocation)
        }
        #expect(said.contains("shown-7") && said.contains("https://bank.example/token"), "\(what) hides a field that is no secret: \(said)",
                sourceLocation: sourceLocation)
    }

    @Test func scanOfJSONThatIsNoConfigMasksEverySecretField() {
        let box = CLI.Sandbox()
        let photo = CLI.qrImage("{" + Self.fields + #","tokenUrl":"https://bank.example/token","note":"shown-7"}"#, in: box)
        Self.expectMasked(CLI.run(["scan", photo]), "scan of JSON that is no config")
        // The fields that only the one rule calls secret, alone: summarised, never printed raw.
        let only = CLI.qrImage(#"{"sessionToken":"S-hidden-1","bankKey":"K-hidden-2","dbPasswd":"P-hidden-3","tokenUrl":"https://bank.example/token","note":"shown-7"}"#,
                               in: box, name: "only")
        Self.expectMasked(CLI.run(["scan", only]), "scan of JSON with token, key and passwd fields alone")
        // --raw is the way to the exact text.
        #expect(CLI.run(["scan", "--raw", photo]).out.contains("S-hidden-1"))
    }

    @Test func scanImportAndIssueOfAConfigMaskEverySecretField() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "secret fields passphrase 1\n")
        let vault = ["--vault", box.vault, "--passphrase-file", pw]
        Self.expectMasked(CLI.run(["scan", CLI.qrImage(Self.config, in: box)]), "scan of a config")
        Self.expectMasked(CLI.run(["import", "--stdin", "--yes", "--no-check"] + vault, stdin: Self.config), "import")
        // issue: the summary on stderr (stdout is the code itself).
        var issued = CLI.run(["issue", "--no-check"] + vault)
        issued.stdout = []
        Self.expectMasked(issued, "issue of the stored config")
        var fromFile = CLI.run(["issue", "--no-check", "--from", box.write("config.json", Self.config)])
        fromFile.stdout = []
        Self.expectMasked(fromFile, "issue --from FILE")
        // get names it: asked for by name, the value is printed.
        #expect(CLI.run(["get", "bankKey"] + vault).out == "K-hidden-2")
    }

    /// `child add --field` takes no secret on the command line, by the same rule.
    @Test func childAddRefusesEverySecretField() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "secret fields passphrase 2\n")
        let vault = ["--vault", box.vault, "--passphrase-file", pw]
        try #require(CLI.run(["init", "--parent"] + vault).status == 0)
        let child = try SealedFlowTests.Device("anna", in: box)
        for (name, value) in Self.hidden {
            let added = CLI.run(["child", "add", "anna", "--key", child.key.text, "--account", "97104133219", "--yes",
                                 "--field", "\(name)=\(value)"] + vault)
            #expect(added.status == 64 && !added.stderr.contains(value), "\(name): \(added.stderr)")
        }
        #expect(CLI.run(["child", "add", "anna", "--key", child.key.text, "--account", "97104133219", "--yes",
                         "--field", "note=shown-7"] + vault).status == 0)
    }
}
