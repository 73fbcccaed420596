import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `issue` without `--from` on a real terminal (tmux): each field checked as it is typed.
@Suite("Issue asks field by field (tmux)")
struct IssueQuestionsTests {
    @Test func aBadAccountNumberIsAskedAgainThenTheCodeIsIssued() throws {
        let box = CLI.Sandbox()
        let png = box.path + "/code.png"
        let config = sampleConfig(secret: "typed secret 42")
        let tty = TmuxSession(box, command: "\"$LV\" issue --output '\(png)'")
        tty.wait(for: "clientId: ")
        tty.type("")  // empty: asked again with the rule
        tty.wait(for: "clientId is empty")
        tty.wait(for: "clientId: ", count: 2)
        tty.type(config.clientId)
        tty.wait(for: "clientSecret (not shown): ")
        tty.type(config.clientSecret)
        tty.wait(for: "userId (national id, 11 digits): ")
        tty.type(config.userId)
        tty.wait(for: "accountNr (11 digits): ")
        tty.type("1234 56 78900")  // fails the mod-11 check digit
        tty.wait(for: "accountNr fails the account number check digit")
        tty.wait(for: "accountNr (11 digits): ", count: 2)
        tty.type(NorwegianNumbers.formatAccountNumber(config.accountNr))
        tty.wait(for: "name (optional")
        tty.type("Blåbær")
        tty.wait(for: "tokenUrl (optional")
        tty.type("http://bank.example/token")  // plain http off this machine: asked again
        tty.wait(for: "refusing plain http://")
        tty.wait(for: "tokenUrl (optional", count: 2)
        tty.type("https://bank.example/token")
        tty.wait(for: "EXIT=")
        let screen = tty.screen
        #expect(screen.contains("EXIT=0") && screen.contains("Wrote \(png)"), "\(screen)")
        #expect(!screen.contains(config.clientSecret), "the secret was echoed:\n\(screen)")
        let scanned = CLI.run(["scan", "--raw", png])
        try #require(scanned.status == 0, "scan: \(scanned.stderr)")
        var expected = config
        expected.extras = [JSON.Member("name", .string("Blåbær")), JSON.Member("tokenUrl", .string("https://bank.example/token"))]
        #expect(try Config(jsonBytes: Array(scanned.out.trimmingCharacters(in: .whitespacesAndNewlines).utf8)) == expected)
    }

    @Test func optionalFieldsLeftEmptyAreLeftOut() throws {
        let box = CLI.Sandbox()
        let png = box.path + "/code.png"
        let config = sampleConfig()
        let tty = TmuxSession(box, command: "\"$LV\" issue --output '\(png)'")
        for (prompt, answer) in [("clientId: ", config.clientId), ("clientSecret (not shown): ", config.clientSecret),
                                 ("userId (", config.userId), ("accountNr (", config.accountNr), ("name (", ""), ("tokenUrl (", "")] {
            tty.wait(for: prompt)
            tty.type(answer)
        }
        tty.wait(for: "EXIT=")
        #expect(tty.screen.contains("EXIT=0"), "\(tty.screen)")
        let scanned = CLI.run(["scan", "--raw", png])
        #expect(try Config(jsonBytes: Array(scanned.out.trimmingCharacters(in: .whitespacesAndNewlines).utf8)) == config)
    }
}
