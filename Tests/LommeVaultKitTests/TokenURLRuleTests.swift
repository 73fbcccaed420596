import LommeCore
@testable import LommeVaultKit
import Testing

/// Plain http:// goes only to a loopback address written literally. Each case is decided
/// here as a unit, without any connection: a refused URL never reaches libcurl.
@Suite("Token URL: which hosts count as loopback")
struct TokenURLRuleTests {
    /// Accepted for plain http: lower-case `localhost`, a dotted quad in 127.0.0.0/8, ::1.
    static let loopback = [
        "http://localhost/t", "http://localhost:8080/token", "http://127.0.0.1/t", "http://127.255.255.254:1/t",
        "http://[::1]/t", "http://[::1]:8080/t", "http://[0:0:0:0:0:0:0:1]/t",
    ]

    /// Refused for plain http, each for a reason the docs name (docs/token.md, "URL rules").
    static let refused = [
        "http://localhost./t",                    // trailing dot: a DNS name, not libcurl's own localhost
        "http://LOCALHOST/t", "http://LocalHost:1/t",  // not written exactly
        "http://localhost.example/t", "http://localhost.localdomain/t", "http://sub.localhost/t",
        "http://127.1/t", "http://127.0.1/t", "http://0177.0.0.1/t", "http://127.000.000.001/t",  // not a plain dotted quad
        "http://0x7f.0.0.1/t", "http://2130706433/t", "http://127.0.0.1./t",
        "http://0.0.0.0/t", "http://[::]/t", "http://[::ffff:127.0.0.1]/t", "http://[::ffff:7f00:1]/t",
        "http://[::1%25lo]/t", "http://[fe80::1]/t", "http://128.0.0.1/t", "http://bank.example/t",
        "http://127.0.0.1%2ebank.example/t", "http://127.0.0.1\\.bank.example/t",
    ]

    @Test func onlyLiteralLoopbackHostsTakePlainHTTP() throws {
        for text in Self.loopback {
            let url = try TokenURL(text)
            #expect(url.isLoopback && !url.isHTTPS, "\(text)")
        }
        for text in Self.refused {
            do {
                let url = try TokenURL(text, source: "the config's tokenUrl")
                Issue.record("\(text) was accepted (host \(url.host))")
            } catch {
                // A refused URL is exit 1 from the config, never 8 (no connection was tried).
                #expect(error.code == .failure, "\(text)")
                #expect(error.message.hasPrefix("refusing plain http://") || error.message.hasPrefix("the config's tokenUrl has"), "\(text): \(error.message)")
            }
        }
        #expect(!HTTPClient.libraryLoaded)
    }

    @Test func theLoopbackRuleIsDecidedOnTheHostAlone() {
        for host in ["localhost.", "LOCALHOST", "127.1", "0.0.0.0", "::ffff:127.0.0.1", "localhost.example", "::"] {
            #expect(!TokenURL.isLoopback(host: host), "\(host)")
        }
        for host in ["localhost", "127.0.0.1", "127.9.8.7", "::1"] {
            #expect(TokenURL.isLoopback(host: host), "\(host)")
        }
    }

    @Test func httpsMayGoAnywhereButTheHostMustBeAHostName() throws {
        for text in ["https://localhost./t", "https://LOCALHOST/t", "https://bank.example/t", "https://my_host.example/t"] {
            #expect(try TokenURL(text).isHTTPS, "\(text)")
        }
        for text in ["https://bank.example%2eevil/t", "https://bank\\example/t", "https://[::1x]/t", "https://ba!nk.example/t"] {
            #expect(throws: LommeError.self, "\(text)") { try TokenURL(text) }
        }
        // The message quotes the host with its characters escaped.
        #expect(throws: LommeError.self) { try TokenURL("http://\u{1B}[2J/t") }
    }
}
