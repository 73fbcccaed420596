import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// A token URL in a config field (`set tokenUrl`, `child add --field tokenUrl=…`, `issue`'s
/// questions) that the URL rules refuse is a refusal, exit 7, as any other field's rule is:
/// the error is rethrown with that code, and keeps the reason the rule gave it.
@Suite("Token URL: a refused field keeps its reason")
struct TokenURLReasonTests {
    /// Each URL and the rule it breaks.
    static let broken: [(url: String, reason: LommeError.Reason)] = [
        ("http://bank.example/token", .tokenURLNotHTTPS),
        ("https://user:pass@bank.example/token", .tokenURLHasCredentials),
        ("ftp://bank.example/token", .tokenURLMalformed),
    ]

    static func expectRefused(_ error: LommeError?, _ reason: LommeError.Reason, _ url: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .refused && error?.reason == reason, "\(url): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func setKeepsTheRulesReason() throws {
        let (box, options) = try HouseholdServiceTests.parent()
        for (url, reason) in Self.broken {
            // Typed on a terminal, a bad value is asked again: the same URL each time.
            let service = SetService(box.context(ScriptedInteraction(Array(repeating: .text(url), count: SetService.tries))))
            let error = #expect(throws: LommeError.self) { try service.run(SetRaceTests.request("tokenUrl", options)) }
            Self.expectRefused(error, reason, url)
        }
    }

    @Test func childAddKeepsTheRulesReason() throws {
        let (box, options) = try HouseholdServiceTests.parent()
        let service = HouseholdService(box.context(ScriptedInteraction()), options)
        for (url, reason) in Self.broken {
            var request = HouseholdServiceTests.addition("anna")
            request.fields = ["tokenUrl=" + url]
            let error = #expect(throws: LommeError.self) { try service.add(request) }
            Self.expectRefused(error, reason, url)
        }
    }

    @Test func theQuestionsKeepTheRulesReason() throws {
        let config = sampleConfig()
        for (url, reason) in Self.broken {
            // The four fields and the name answered, then the token URL three times over.
            let answers: [ScriptedInteraction.Answer] = [.text(config.clientId), .secret(config.clientSecret), .text(config.userId),
                                                         .text(config.accountNr), .text("")]
                + Array(repeating: .text(url), count: ConfigInput.triesPerField)
            let error = #expect(throws: LommeError.self) { try ConfigInput.ask(checksums: true, ScriptedInteraction(answers)) }
            Self.expectRefused(error, reason, url)
        }
    }
}
