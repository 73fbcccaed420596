import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// The house style of messages: misspelt options named first, the parser's messages in our
/// words, one style of time left, one warning prefix, wrapping at words on a terminal.
@Suite("Message style (through the built binary)")
struct MessageStyleTests {
    /// A misspelt option is named as such, with the nearest one, even where the command's
    /// own rule would fail first (`get` without FIELD: "give one of FIELD, --json or --env").
    @Test func aMisspeltOptionIsNamedBeforeTheCommandsOwnRules() {
        let cases: [([String], String)] = [
            (["get", "--josn"], "lomme-vault: unknown option --josn; did you mean --json? (see `lomme-vault get --help`)\n"),
            (["import", "--stidn"], "lomme-vault: unknown option --stidn; did you mean --stdin? (see `lomme-vault import --help`)\n"),
            (["child", "add", "ola", "--acount", "12345678903"], "lomme-vault: unknown option --acount; did you mean --account? (see `lomme-vault child add --help`)\n"),
            (["get", "-nx", "clientId"], "lomme-vault: unknown option -x; see `lomme-vault get --help`\n"),
        ]
        for (arguments, expected) in cases {
            let result = CLI.run(arguments)
            #expect(result.status == 64 && result.stderr == expected, "\(arguments): \(result.stderr)")
        }
        // Values of options are not options; an option's value after = is not a second one.
        let box = CLI.Sandbox()
        let fine = CLI.run(["get", "--vault", box.path + "/none/vault", "--newline", "clientId", "--no-prompt"])
        #expect(fine.status == 6, "\(fine.stderr)")
    }

    /// ArgumentParser's own messages in the house style: one lower-case line, options as
    /// typed (no quotes), values in double quotes, what the command takes, and the help to read.
    @Test func theParsersOwnMessagesAreInTheHouseStyle() {
        let cases: [([String], String)] = [
            (["issue", "--level", "X"], "lomme-vault: --level takes L, M, Q or H, not \"X\"; see `lomme-vault issue --help`\n"),
            (["unlock", "--passphrase-fd", "abc"], "lomme-vault: --passphrase-fd takes N, not \"abc\"; see `lomme-vault unlock --help`\n"),
            (["enroll", "blah"], "lomme-vault: KIND is one of passphrase, tpm2, keyfile or recovery, not \"blah\"; see `lomme-vault enroll --help`\n"),
            (["child", "add"], "lomme-vault: child add needs NAME; see `lomme-vault child add --help`\n"),
            (["child", "add", "ola", "--key", "lvk1x"], "lomme-vault: child add needs --account ACCOUNTNR; see `lomme-vault child add --help`\n"),
            (["unenroll"], "lomme-vault: unenroll needs SLOT; see `lomme-vault unenroll --help`\n"),
            (["get", "--vault"], "lomme-vault: --vault needs a value: --vault PATH; see `lomme-vault get --help`\n"),
            (["get", "--json=x"], "lomme-vault: --json takes no value (\"x\" was given with it); see `lomme-vault get --help`\n"),
            (["lock", "--all", "x"], "lomme-vault: lock does not take the argument \"x\"; see `lomme-vault lock --help`\n"),
        ]
        for (arguments, expected) in cases {
            let result = CLI.run(arguments)
            #expect(result.status == 64 && result.stderr == expected, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("'") && !result.stderr.contains("Please") && !result.stderr.contains("<"), "\(result.stderr)")
        }
    }

    /// `status` says time left in one style (DurationText.rough: two units at most), the
    /// kernel's idle count and the session's end alike; planted 1 h 30 min 45 s from its end,
    /// so an exact count would need three units for the next 45 s.
    @Test func statusSaysTimeLeftInOneStyle() throws {
        let vault = PromiseVault()
        defer { _ = vault.run(["lock"]) }
        let sealed = try VaultFormat.parse(vault.bytes)
        try Session.store(Keyring(), sealed, master: try vault.master(), idle: 600, deadline: UInt64(time(nil)) + 5445)
        let status = CLI.run(["status"] + vault.args).out
        let state = try #require(status.split(separator: "\n").first { $0.hasPrefix("state:") }, "\(status)")
        let match = try #require(state.firstMatch(of: /unlocked \(locks after 10m without use, (\w+) left now; in (\w+) at the latest\)/), "\(state)")
        for left in [String(match.1), String(match.2)] {
            #expect(left.wholeMatch(of: /\d+[dhms](\d+[hms])?/) != nil, "\(left) in \(state)")
        }
        #expect(match.2 == "1h30m", "\(state)")
    }

    /// Every warning on stderr starts `lomme-vault: warning: ` (a weak passphrase, a
    /// passphrase file others may read, the keyring turned off, the secret's expiry).
    @Test func everyWarningHasOnePrefix() throws {
        let box = CLI.Sandbox()
        let weak = box.write("weak", "password12\n")
        let open = box.write("open", "a passphrase others may read\n", mode: 0o644)
        let config = #"{"clientId":"c","clientSecret":"s","userId":"01010112345","accountNr":"12345678903","secretExpires":"2001-01-01"}"#
        let runs = [
            CLI.run(["init", "--parent", "--vault", box.path + "/parent/vault", "--passphrase-file", weak]),
            CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", open], stdin: config),
            CLI.run(["get", "clientId", "--vault", box.vault, "--passphrase-file", open], environment: ["LOMME_VAULT_KEYRING": "off"]),
            CLI.run(["unlock", "--vault", box.vault, "--passphrase-file", open]),
            CLI.run(["status", "--vault", box.vault]),
            CLI.run(["issue", "--from", box.write("config.json", PlainPayload.encode(sampleConfig())), "--output", box.path + "/plain.png"]),
        ]
        defer { _ = CLI.run(["lock", "--vault", box.vault]) }
        var warnings: [String] = []
        for result in runs {
            #expect(result.status == 0, "\(result.stderr)")
            warnings += result.stderr.split(separator: "\n").map(String.init).filter { $0.lowercased().contains("warning") }
        }
        for needle in ["this passphrase is weak", "can be read by other users (mode 644); make it yours alone: chmod 600 \(open)",
                       "keyring turned off", "the client secret expired", "this code holds the client secret"] {
            #expect(warnings.contains { $0.contains(needle) }, "no warning says \(needle): \(warnings)")
        }
        for line in warnings {
            #expect(line.hasPrefix("lomme-vault: warning: "), "\(line)")
        }
    }

    /// A long message on a narrow terminal is wrapped at words, never cut mid-word; a pipe
    /// gets it as one line.
    @Test func longMessagesWrapAtWordsOnATerminalAndNotInAPipe() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "wrap passphrase 2026\n")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configA).status == 0)
        let piped = CLI.run(["get", "clientId", "--no-prompt", "--vault", box.vault])
        #expect(piped.status == 3 && piped.stderr.split(separator: "\n").count == 1 && piped.stderr.count > 100, "\(piped.stderr)")
        let message = piped.stderr.trimmingASCIIWhitespace()
        let tty = TmuxSession(box, command: "\"$LV\" get clientId --no-prompt --vault '\(box.vault)'", columns: 40, rows: 20)
        try #require(tty.wait(for: "EXIT="))
        // Without -J: the screen's rows as they are; a row the terminal cut would end mid-word.
        let rows = tty.tmux(["capture-pane", "-p", "-t", "t"]).split(separator: "\n").map(String.init)
        let start = try #require(rows.firstIndex { $0.hasPrefix("lomme-vault: ") }, "\(rows)")
        let end = try #require(rows.firstIndex { $0.hasPrefix("EXIT=") })
        let shown = Array(rows[start..<end])
        #expect(shown.count > 2 && shown.allSatisfy { $0.count <= 40 }, "\(shown)")
        #expect(shown.joined(separator: " ") == message, "the rows are not the message's words:\n\(shown.joined(separator: "\n"))")
        let words = Set(message.split(separator: " ").map(String.init))
        for row in shown {
            #expect(row.split(separator: " ").allSatisfy { words.contains(String($0)) }, "a word cut at the edge: \(row)")
        }
    }

    /// An indented line keeps its indent when it is wrapped, and its continuations go under
    /// its text (`init`'s fingerprints at 60 columns).
    @Test func anIndentedLineKeepsItsIndentWhenWrapped() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "indent passphrase 2026\n")
        _ = chmod(pw, 0o600)
        let tty = TmuxSession(box, command: "\"$LV\" init --child --vault '\(box.vault)' --passphrase-file '\(pw)'", columns: 60, rows: 60)
        try #require(tty.wait(for: "EXIT="))
        let rows = tty.tmux(["capture-pane", "-p", "-t", "t"]).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = try #require(rows.firstIndex { $0.hasPrefix("  receiving key  ") }, "the indent was dropped: \(rows)")
        let next = rows[first + 1]
        #expect(rows[first].count <= 60 && next.hasPrefix("  ") && !next.hasPrefix("  issuer"), "\(rows[first...first + 1])")
    }

    /// A long question is wrapped at words too, and still ends "[y/N] " where the answer goes.
    @Test func aLongQuestionWrapsAtWords() throws {
        let box = CLI.Sandbox()
        let (options, _, _) = HouseholdInputTests.parent(box)
        let key = ReceivingKeyPair.generate().publicKey
        let tty = TmuxSession(box, command: "\"$LV\" child add ola --key \(key.text) --account 97104133219 --vault '\(box.vault)' \(options.joined(separator: " "))",
                              columns: 50, rows: 30)
        try #require(tty.wait(for: "Add ola? [y/N]"))
        let rows = tty.tmux(["capture-pane", "-p", "-t", "t"]).split(separator: "\n").map(String.init)
        let first = try #require(rows.firstIndex { $0.hasPrefix("Is \(key.fingerprint)") }, "\(rows)")
        let last = try #require(rows.lastIndex { $0.hasSuffix("[y/N]") })
        let question = "Is \(key.fingerprint) the fingerprint ola's device shows (`lomme-vault key`)? Add ola? [y/N]"
        #expect(last > first && rows[first...last].joined(separator: " ") == question, "\(rows[first...last])")
        tty.type("n")
        tty.wait(for: "EXIT=")
    }

    /// `init --parent` ends with what a parent does next: store the bank's config with
    /// `import --stdin`, then `child add`.
    @Test func initParentPointsAtImportAndChildAdd() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "parent passphrase 2026\n")
        let made = CLI.run(["init", "--parent", "--vault", box.vault, "--passphrase-file", pw])
        #expect(made.status == 0, "\(made.stderr)")
        let last = made.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("lomme-vault import --stdin < config.json") && last.contains("lomme-vault child add NAME --key KEY --account ACCOUNTNR"), "\(made.stderr)")
    }
}
