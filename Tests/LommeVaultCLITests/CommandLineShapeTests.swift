import Foundation
import Testing

/// Typos of a subcommand, `--vault` before the subcommand, and the one shape of every
/// error line, through the built binary.
@Suite("Command line: typos, --vault first, one error shape")
struct CommandLineShapeTests {
    @Test(arguments: [["improt", "x.png"], ["help", "improt"], ["--vault", "v", "improt"]])
    func aMistypedCommandSuggestsTheNearestOne(arguments: [String]) {
        let result = CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "lomme-vault: unknown command \"improt\"; did you mean \"import\"?\n")
        #expect(result.out.isEmpty)
    }

    @Test func aWordNearNoCommandPointsToTheList() {
        let result = CLI.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.stderr == "lomme-vault: unknown command \"frobnicate\"; `lomme-vault --help` lists the commands\n")
    }

    @Test func vaultIsAcceptedBeforeTheSubcommand() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "vault first passphrase 1\n")
        let imported = CLI.run(["--vault", box.vault, "import", "--stdin", "--no-check", "--yes", "--passphrase-file", pw], stdin: Sample.configB)
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(CLI.run(["--vault=" + box.vault, "status"]).out.hasPrefix("vault:         \(box.vault)\n"))
        for fastPath in ["on", "off"] {
            let got = CLI.run(["--vault", box.vault, "get", "clientId", "-n", "--passphrase-file", pw],
                              environment: ["LOMME_VAULT_FAST_PATH": fastPath])
            #expect(got.status == 0 && got.out == "client-B", "\(fastPath): \(got.stderr)")
            let fast = CLI.run(["--vault", box.vault, "get", "clientId", "-n", "--no-prompt"], environment: ["LOMME_VAULT_FAST_PATH": fastPath])
            #expect(fast.status == 3, "a locked vault without a prompt: \(fast.stderr)")
        }
    }

    /// Each failing invocation: its exit code, one line on stderr, `lomme-vault: ` and lower
    /// case, commands quoted in backticks only, nothing of ArgumentParser's own layout.
    @Test func everyErrorHasTheSameShape() {
        let box = CLI.Sandbox()
        let missing = box.path + "/none/vault"
        let json = box.write("config.json", Sample.configB)
        let bad = box.write("bad.json", #"{"clientId":"a"}"#)
        let cases: [([String], Int32)] = [
            (["improt", "x.png"], 64), (["--bogus"], 64), (["status", "--bogus"], 64), (["get"], 64),
            (["get", "clientId", "extra"], 64), (["issue", "--level", "Z"], 64), (["issue", "--expires", "99d"], 64),
            (["import"], 64), (["import", "--stdin", "x.png"], 64), (["import", "--stdin", "--expect-issuer", "nope"], 64),
            (["key", "-o", "x.txt"], 64), (["unlock", "--timeout", "zz"], 64), (["exec", "--vault", missing], 64),
            (["issue", "--to", "lvk1bad", "--from", json], 64), (["issue", "--to", "age1xyz", "--from", json, "--vault", missing], 6),
            (["get", "clientId", "--vault", missing, "--no-prompt"], 6), (["token", "--vault", missing], 6),
            (["import", box.path + "/nothere.png", "--vault", missing], 2), (["import", json, "--vault", missing], 2),
            (["scan", json], 2), (["issue", "--from", bad], 7), (["issue", "--from", box.path + "/nothere.json"], 1),
            (["import", "--stdin", "--vault", missing, "--yes"], 7),
        ]
        for (arguments, code) in cases {
            let result = CLI.run(arguments, stdin: "")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(result.status == code, "\(arguments): exit \(result.status), \(result.stderr)")
            #expect(lines.count == 2 && lines[1].isEmpty, "\(arguments): not one line: \(result.stderr)")
            let text = lines[0].dropFirst("lomme-vault: ".count)
            #expect(lines[0].hasPrefix("lomme-vault: ") && !(text.first?.isUppercase ?? true), "\(arguments): \(lines[0])")
            #expect(!result.stderr.contains("'lomme-vault") && !result.stderr.contains("Usage:") && !result.stderr.contains("Error:"),
                    "\(arguments): \(result.stderr)")
            // ArgumentParser's errors and validate()'s point to the usage; a bad key says what to do itself.
            if code == 64 && arguments[0] != "improt" && !arguments.contains("--to") {
                #expect(result.stderr.hasSuffix("--help`\n"), "\(arguments): no hint to --help: \(result.stderr)")
            }
        }
    }
}
