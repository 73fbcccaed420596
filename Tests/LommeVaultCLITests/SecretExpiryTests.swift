import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `secretExpires` through the built binary: set on the parent, carried in the child's
/// code, and warned about on stderr by the commands a person runs (the parent's `status`,
/// `child list` and `set`; the child's `status`, `unlock` and `token`), never by `get` or
/// `exec`, whose output belongs to scripts. The child's `status` says when and by whom its
/// config was issued.
@Suite("secretExpires warnings")
struct SecretExpiryTests {
    static func day(_ offset: Int) -> String {
        var seconds = time_t(time(nil) + offset * 86400)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// Whole days from the UTC date at `seconds` to the date `target` (YYYY-MM-DD).
    static func days(to target: String, from seconds: time_t) -> Int {
        let parts = target.split(separator: "-").compactMap { Int32($0) }
        var date = tm()
        date.tm_year = parts[0] - 1900
        date.tm_mon = parts[1] - 1
        date.tm_mday = parts[2]
        return Int((timegm(&date) - (seconds - seconds % 86400)) / 86400)
    }

    /// A command's result and the texts it may rightly write: `text` for the days left on the
    /// dates its clock may have read (two, if a slow run crossed midnight; UTC).
    static func around(_ soon: String, _ text: (Int) -> String, _ run: () -> CLI.Result) -> (CLI.Result, Set<String>) {
        let before = time(nil)
        let result = run()
        return (result, [text(days(to: soon, from: before)), text(days(to: soon, from: time(nil)))])
    }

    @Test func warningsOnStderrForPeopleSilenceForScripts() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "expiry test passphrase\n")
        let parent = ["LOMME_VAULT": box.path + "/parent/vault"], child = ["LOMME_VAULT": box.path + "/child/vault"]
        let p = ["--passphrase-file", pw]
        let port = try TokenFixture.closedPort()
        let config = sampleConfig(extras: [JSON.Member("tokenUrl", .string("http://127.0.0.1:\(port)/token"))])
        #expect(CLI.run(["import", "--stdin", "--yes"] + p, stdin: PlainPayload.encode(config), environment: parent).status == 0)
        #expect(CLI.run(["init", "--child"] + p, environment: child).status == 0)
        let key = CLI.run(["key", "--text"] + p, environment: child).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(CLI.run(["child", "add", "anna", "--key", key, "--account", "97104133219", "--yes"] + p, environment: parent).status == 0)

        // Far away: no warning anywhere.
        let far = CLI.run(["set", "secretExpires"] + p, stdin: Self.day(40) + "\n", environment: parent)
        #expect(far.status == 0 && !far.stderr.contains("warning"), "\(far.stderr)")
        #expect(!CLI.run(["child", "list"] + p, environment: parent).stderr.contains("warning"))

        // Five days away: the parent is told to renew it.
        // (Each warning is checked against the days left on the date the command ran: a run that
        // crosses midnight, UTC, rightly says a day less after it.)
        let soon = Self.day(5)
        #expect(Self.days(to: "2026-01-06", from: 1_767_268_800) == 5, "2026-01-01 12:00 UTC to 2026-01-06")
        let parentWarning = { (left: Int) in "lomme-vault: warning: the client secret expires on \(soon) (in \(left) days); order a new one at the bank, then run `lomme-vault set clientSecret` and `lomme-vault issue --all`\n" }
        let (set, setTexts) = Self.around(soon, parentWarning) { CLI.run(["set", "secretExpires"] + p, stdin: soon + "\n", environment: parent) }
        #expect(set.status == 0 && setTexts.contains { set.stderr.hasSuffix($0) }, "\(set.stderr)")
        let (listed, listedTexts) = Self.around(soon, parentWarning) { CLI.run(["child", "list"] + p, environment: parent) }
        #expect(listedTexts.contains(listed.stderr) && !listed.out.contains("warning"), "\(listed.stderr)")
        let (unlockedParent, unlockTexts) = Self.around(soon, parentWarning) { CLI.run(["unlock"] + p, environment: parent) }
        #expect(unlockTexts.contains { unlockedParent.stderr.contains($0) })
        let (parentStatus, statusTexts) = Self.around(soon, parentWarning) { CLI.run(["status"], environment: parent) }
        #expect(statusTexts.contains(parentStatus.stderr) && parentStatus.out.contains("children:      1 (1 not current"), "\(parentStatus.out)")
        _ = CLI.run(["lock"], environment: parent)

        // The code carries the date; the child is told to ask the parent.
        let png = box.path + "/anna.png"
        #expect(CLI.run(["issue", "--to", "anna", "--output", png] + p, environment: parent).status == 0)
        #expect(CLI.run(["import", png, "--yes"] + p, environment: child).status == 0)
        #expect(CLI.run(["get", "secretExpires"] + p, environment: child).out == soon)
        let childWarning = { (left: Int) in "lomme-vault: warning: the client secret expires on \(soon) (in \(left) days); ask the parent for a new code once they have a new secret from the bank\n" }
        let (unlocked, unlockedTexts) = Self.around(soon, childWarning) { CLI.run(["unlock"] + p, environment: child) }
        #expect(unlocked.status == 0 && unlockedTexts.contains { unlocked.stderr.hasSuffix($0) }, "\(unlocked.stderr)")
        defer { _ = CLI.run(["lock"], environment: child) }
        let (status, childStatusTexts) = Self.around(soon, childWarning) { CLI.run(["status"], environment: child) }
        #expect(childStatusTexts.contains(status.stderr))
        let issuer = CLI.run(["key", "--issuer"] + p, environment: parent).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status.out.contains("issued:        ") && status.out.contains("by \(issuer) ("), "\(status.out)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(CLI.run(["status", "--json"], environment: child).stdout)) as? [String: Any])
        let issued = try #require(json["issued"] as? String)
        #expect((issued.hasPrefix(Self.day(0)) || issued.hasPrefix(Self.day(-1))) && issued.hasSuffix("Z"), "\(issued)")
        let (token, tokenTexts) = Self.around(soon, childWarning) { CLI.run(["token"], environment: child) }
        #expect(token.status == 8 && tokenTexts.contains { token.stderr.hasPrefix($0) }, "\(token.stderr)")

        // Scripts hear nothing: get and exec.
        let got = CLI.run(["get", "clientId"], environment: child)
        #expect(got.status == 0 && got.out == config.clientId && got.stderr.isEmpty, "\(got.stderr)")
        let ran = CLI.run(["exec", "--", "/bin/true"], environment: child)
        #expect(ran.status == 0 && ran.stderr.isEmpty, "\(ran.stderr)")

        // After the day: "expired".
        let past = Self.day(-1)
        let expired = CLI.run(["set", "secretExpires"] + p, stdin: past + "\n", environment: parent)
        #expect(expired.stderr.contains("the client secret expired on \(past)"), "\(expired.stderr)")
    }
}
