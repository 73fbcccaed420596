import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The small truths a new user meets: pipes get data and terminals get words (`key`), the
/// advice names options that exist, `unlock --with tpm2` keeps the asked timeout, a code
/// pinned without a question says so in one line, misspelt options and subcommands get
/// the nearest name, and a missing --passphrase-file says it is missing.
@Suite("Output and advice")
struct OutputAndAdviceTests {
    static func vault(_ box: CLI.Sandbox) -> (env: [String: String], pw: String) {
        let pw = box.write("pw", "rough edges passphrase\n")
        let env = ["LOMME_VAULT": box.vault]
        #expect(CLI.run(["init", "--child", "--passphrase-file", pw], environment: env).status == 0)
        return (env, pw)
    }

    @Test func keyGivesDataToPipesAndWordsToTerminals() throws {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        let text = CLI.run(["key", "--text", "--passphrase-file", pw], environment: env)
        #expect(text.status == 0 && text.stderr.isEmpty, "\(text.stderr)")
        let key = try ReceivingKey(text: text.out)
        #expect(text.out == key.text + "\n", "only the key and a newline")
        let plain = CLI.run(["key"], environment: env)
        #expect(plain.stderr.isEmpty && plain.out.hasSuffix(key.text + "\n"), "\(plain.stderr)")
        let issuer = CLI.run(["key", "--issuer"], environment: env)
        #expect(issuer.stderr.isEmpty && issuer.out.count == 20, "\(issuer.out)")

        // On a terminal the paragraph comes, and every option it names exists.
        let session = TmuxSession(box, command: "LOMME_VAULT='\(box.vault)' \"$LV\" key --text", columns: 250)
        session.wait(for: "EXIT=")
        let screen = session.screen
        let tty = TmuxSession(box, command: "LOMME_VAULT='\(box.vault)' \"$LV\" key", columns: 250, rows: 80)
        tty.wait(for: "EXIT=")
        let words = tty.screen
        #expect(words.contains("lomme-vault child add NAME --key-image"), "\(words)")
        #expect(screen.contains(key.text) && !screen.contains("It is public"), "--text on a terminal: the key only\n\(screen)")
        let commands = words.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.hasPrefix("lomme-vault ") }
        #expect(!commands.isEmpty)
        for command in commands {
            let parts = command.split(separator: " ").map(String.init)
            let verb = parts.dropFirst().prefix { !$0.hasPrefix("-") && $0 == $0.lowercased() && $0 != "NAME" && !$0.hasPrefix("lvk1") }
            let help = CLI.run(Array(verb) + ["--help"]).out
            for option in parts where option.hasPrefix("--") {
                #expect(help.contains(option), "`\(command)`: \(verb.joined(separator: " ")) has no \(option)")
            }
        }
    }

    @Test func misspeltOptionsAndSubcommandsGetTheNearestName() {
        let cases: [([String], String)] = [
            (["status", "--josn"], "lomme-vault: unknown option --josn; did you mean --json? (see `lomme-vault status --help`)\n"),
            (["child", "list", "--josn"], "lomme-vault: unknown option --josn; did you mean --json? (see `lomme-vault child list --help`)\n"),
            (["child", "lst"], "lomme-vault: unknown command \"child lst\"; did you mean \"child list\"?\n"),
            (["issue", "--levle", "H"], "lomme-vault: unknown option --levle; did you mean --level? (see `lomme-vault issue --help`)\n"),
        ]
        for (arguments, line) in cases {
            let result = CLI.run(arguments)
            #expect(result.status == 64 && result.stderr == line, "\(arguments): \(result.stderr)")
        }
    }

    @Test func aMissingPassphraseFileIsSaidToBeMissing() {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        let missing = CLI.run(["get", "clientId", "--passphrase-file", box.path + "/nope"], environment: env)
        #expect(missing.status == 1 && missing.stderr == "lomme-vault: the passphrase file \(box.path)/nope does not exist; check the path given to --passphrase-file\n", "\(missing.stderr)")
        let wrong = box.write("wrong", "some other passphrase\n")
        let refused = CLI.run(["unlock", "--passphrase-file", wrong], environment: env)
        #expect(refused.status == 4 && refused.reason == .passphraseWrong && refused.stderr.contains("the first line of \(wrong) does not open it") && !refused.stderr.contains("try again"), "\(refused.stderr)")
        _ = pw
    }

    @Test func aFirstIssuerPinnedWithoutAQuestionIsSaidInOneLine() throws {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        let key = try ReceivingKey(text: CLI.run(["key", "--text"], environment: env).out)
        let issuer = IssuerKeyPair.generate()
        let code = CLI.qrImage(try Envelope.seal(sampleConfig(), to: key, issuer: issuer, now: Int64(time(nil)), lifetime: 3600), in: box)
        let imported = CLI.run(["import", code, "--yes", "--passphrase-file", pw], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let lines = imported.stderr.split(separator: "\n").filter { $0.hasPrefix("lomme-vault: warning: pinned the issuer") }
        #expect(lines == ["lomme-vault: warning: pinned the issuer \(issuer.fingerprint) without asking (--yes): compare it with `lomme-vault key --issuer` on the parent's machine"], "\(imported.stderr)")
        // Once pinned, the next code of that issuer says nothing of the kind.
        let next = CLI.qrImage(try Envelope.seal(sampleConfig(secret: "next"), to: key, issuer: issuer, now: Int64(time(nil)) + 1, lifetime: 3600), in: box, name: "next")
        let again = CLI.run(["import", next, "--yes", "--passphrase-file", pw], environment: env)
        #expect(again.status == 0 && !again.stderr.contains("pinned the issuer"), "\(again.stderr)")
        let same = CLI.run(["import", next, "--yes", "--passphrase-file", pw], environment: env)
        #expect(same.stderr.contains("Unchanged: this sealed code was imported already; nothing was written."))
    }

    /// A re-import marks what changes: a renewed secret looks the same masked but for its
    /// length, so its line is marked `*` in both blocks and nothing else is; a new code of
    /// the same config says nothing in it changes.
    @Test func aReimportMarksWhatChanges() throws {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        let key = try ReceivingKey(text: CLI.run(["key", "--text"], environment: env).out)
        let issuer = IssuerKeyPair.generate()
        let now = Int64(time(nil))
        func imported(_ secret: String, at issued: Int64, _ name: String) -> [String] {
            let code = CLI.qrImage(try! Envelope.seal(sampleConfig(secret: secret), to: key, issuer: issuer, now: issued, lifetime: 3600), in: box, name: name)
            let result = CLI.run(["import", code, "--yes", "--passphrase-file", pw], environment: env)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains(secret), "the secret is never shown")
            return result.stderr.split(separator: "\n").map(String.init)
        }
        let first = imported("the first secret", at: now, "first")
        #expect(first.contains("Will store:") && !first.contains { $0.hasPrefix("* ") }, "\(first)")
        let renewed = imported("the first secret!", at: now + 1, "renewed")
        #expect(renewed.contains("Will store (* marks what changes):") && renewed.contains("Replaces (kept as the previous config):"), "\(renewed)")
        let marked = renewed.filter { $0.hasPrefix("* ") }
        #expect(marked.count == 2 && marked.allSatisfy { $0.hasPrefix("* clientSecret") }, "\(renewed)")
        #expect(renewed.contains { $0.hasPrefix("  clientId") }, "\(renewed)")
        let same = imported("the first secret!", at: now + 2, "same")
        #expect(same.contains("Will store the same config again (nothing in it changes):") && !same.contains { $0.hasPrefix("* ") }, "\(same)")
    }

    /// People read times in their own zone, as `date` shows them (TZ, here a POSIX zone
    /// three hours east that needs no tzdata); `--json` keeps RFC 3339 in UTC.
    @Test func peopleReadLocalTimesAndJSONKeepsUTC() throws {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        _ = pw
        let zoned = env.merging(["TZ": "LVT-3"]) { $1 }
        let listed = CLI.run(["slots", "--json"], environment: zoned).stdout
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listed)) as? [[String: Any]])
        let text = try #require(json.first?["created"] as? String, "\(json)")
        let created = try #require(Instant(text: text), "\(text)")
        #expect(text.hasSuffix("Z"), "\(text)")
        let local = Instant(seconds: created.seconds + 3 * 3600).text  // e.g. 2026-11-29T07:12:33Z
        let day = String(local.prefix(10)), minute = String(local.dropFirst(11).prefix(5))
        let shown = "\(day) \(minute) LVT"
        let slots = CLI.run(["slots"], environment: zoned).out
        #expect(slots.contains("passphrase  \(shown)"), "\(slots)")
    }

    @Test func unlockWithTPMKeepsTheTimeoutAsked() throws {
        let box = CLI.Sandbox()
        let (env, pw) = Self.vault(box)
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        let withTPM = env.merging(["LOMME_VAULT_TPM": tpm.tcti]) { $1 }
        #expect(CLI.run(["enroll", "tpm2", "--passphrase-file", pw], environment: withTPM).status == 0)
        let unlocked = CLI.run(["unlock", "--with", "tpm2", "--timeout", "1h30m"], environment: withTPM)
        defer { _ = CLI.run(["lock"], environment: env) }
        #expect(unlocked.status == 0 && unlocked.stderr.contains("locks after 1h30m without use"), "\(unlocked.stderr)")
        #expect(CLI.run(["status"], environment: env).out.contains("locks after 1h30m without use"))
    }
}
