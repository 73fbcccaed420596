import LommeCore
import LommeVaultKit
import Testing

/// A token server's words reach the terminal only through TerminalText.
@Suite("Token server text escaping")
struct TokenTextTests {
    @Test func aTokenServersDescriptionIsEscaped() {
        let body = #"{"error":"invalid_client","error_description":"no\u001b]52;c;cHduZWQ=\u0007\u009b2J"}"#
        do {
            _ = try TokenResponse.interpret(status: 401, body: Array(body.utf8), contentType: "application/json", endpoint: "E")
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains(#"(no\x1b]52;c;cHduZWQ=\x07\u009b2J)"#), "\(error.message)")
            #expect(!error.message.unicodeScalars.contains { TerminalText.needsEscape($0) })
        }
    }
}
