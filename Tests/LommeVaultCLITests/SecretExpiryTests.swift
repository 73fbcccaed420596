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
        let soon = Self.day(5)
        let set = CLI.run(["set", "secretExpires"] + p, stdin: soon + "\n", environment: parent)
        let parentWarning = "lomme-vault: warning: the client secret expires on \(soon) (in 5 days); order a new one at the bank, then run `lomme-vault set clientSecret` and `lomme-vault issue --all`\n"
        #expect(set.status == 0 && set.stderr.hasSuffix(parentWarning), "\(set.stderr)")
        let listed = CLI.run(["child", "list"] + p, environment: parent)
        #expect(listed.stderr == parentWarning && !listed.out.contains("warning"), "\(listed.stderr)")
        #expect(CLI.run(["unlock"] + p, environment: parent).stderr.contains(parentWarning))
        let parentStatus = CLI.run(["status"], environment: parent)
        #expect(parentStatus.stderr == parentWarning && parentStatus.out.contains("children:      1 (1 not current"), "\(parentStatus.out)")
        _ = CLI.run(["lock"], environment: parent)

        // The code carries the date; the child is told to ask the parent.
        let png = box.path + "/anna.png"
        #expect(CLI.run(["issue", "--to", "anna", "--output", png] + p, environment: parent).status == 0)
        #expect(CLI.run(["import", png, "--yes"] + p, environment: child).status == 0)
        #expect(CLI.run(["get", "secretExpires"] + p, environment: child).out == soon)
        let childWarning = "lomme-vault: warning: the client secret expires on \(soon) (in 5 days); ask the parent for a new code once they have a new secret from the bank\n"
        let unlocked = CLI.run(["unlock"] + p, environment: child)
        #expect(unlocked.status == 0 && unlocked.stderr.hasSuffix(childWarning), "\(unlocked.stderr)")
        defer { _ = CLI.run(["lock"], environment: child) }
        let status = CLI.run(["status"], environment: child)
        #expect(status.stderr == childWarning)
        let issuer = CLI.run(["key", "--issuer"] + p, environment: parent).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status.out.contains("issued:        ") && status.out.contains("by \(issuer) ("), "\(status.out)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(CLI.run(["status", "--json"], environment: child).stdout)) as? [String: Any])
        let issued = try #require(json["issued"] as? String)
        #expect(issued.hasPrefix(Self.day(0)) && issued.hasSuffix("Z"), "\(issued)")
        let token = CLI.run(["token"], environment: child)
        #expect(token.status == 8 && token.stderr.hasPrefix(childWarning), "\(token.stderr)")

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
