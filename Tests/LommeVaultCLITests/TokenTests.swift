import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

// MARK: - Units: encoding, header, URL policy, answers, cache payload

@Suite("Token")
struct TokenTests {
    @Test("form encoding keeps the app's set and percent-encodes every other UTF-8 byte")
    func formEncoding() {
        #expect(TokenRequest.formEncoded("AZaz09-_.!~*'()") == "AZaz09-_.!~*'()")
        #expect(TokenRequest.formEncoded("a:b%c+d e/f") == "a%3Ab%25c%2Bd%20e%2Ff")
        #expect(TokenRequest.formEncoded("æ") == "%C3%A6")
        #expect(TokenRequest.formEncoded("=&?#@\"\\") == "%3D%26%3F%23%40%22%5C")
        #expect(TokenRequest.formEncoded("%41") == "%2541")
        #expect(TokenRequest.formEncoded("") == "")
    }

    @Test("the Basic header is base64 of form(id):form(secret), NUL-terminated")
    func basicHeader() throws {
        let line = TokenRequest.basicAuthorization(clientId: "my:client", clientSecret: TokenFixture.secret)
        let bytes = line.bytes
        #expect(bytes.last == 0)
        let text = String(decoding: bytes.dropLast(), as: UTF8.self)
        #expect(text.hasPrefix("Authorization: Basic "))
        let encoded = String(text.dropFirst("Authorization: Basic ".count))
        let decoded = try #require(Data(base64Encoded: encoded))
        #expect(String(decoding: decoded, as: UTF8.self) == "my%3Aclient:" + TokenRequest.formEncoded(TokenFixture.secret))
        #expect(!text.contains(TokenFixture.secret))
        // Every length modulo 3 gives well-padded base64.
        for length in 1...7 {
            let other = TokenRequest.basicAuthorization(clientId: "c", clientSecret: String(repeating: "x", count: length)).bytes
            let value = String(decoding: other.dropLast().dropFirst("Authorization: Basic ".count), as: UTF8.self)
            #expect(Data(base64Encoded: value).map { String(decoding: $0, as: UTF8.self) } == "c:" + String(repeating: "x", count: length))
        }
    }

    @Test("plain http only to loopback, decided without any connection")
    func urlPolicy() throws {
        for loopback in ["http://127.0.0.1:8080/token", "http://127.1.2.3/t", "http://localhost/t",
                         "http://[::1]:8080/token", "https://127.0.0.1/t"] {  // more in TokenURLRuleTests
            let url = try TokenURL(loopback)
            #expect(url.isLoopback, "\(loopback)")
        }
        for remote in ["http://bank.example/token", "http://128.0.0.1/t", "http://10.0.0.1/t", "http://[::2]/t",
                       "http://127.0.0.1.bank.example/t", "http://localhost.bank.example/t", "http://127.1/t",
                       "http://0x7f000001/t", "http://2130706433/t"] {
            #expect(throws: LommeError.self, "\(remote)") { try TokenURL(remote) }
            do {
                _ = try TokenURL(remote)
            } catch {
                #expect(error.message.contains("refusing plain http://"), "\(error.message)")
                #expect(error.code == .failure)
            }
        }
        let remote = try TokenURL("https://api.bank.example/identityserver/connect/token?x=1#f")
        #expect(!remote.isLoopback && remote.isHTTPS && remote.host == "api.bank.example")
        #expect(remote.shown == "https://api.bank.example/identityserver/connect/token")
        for bad in ["", "ftp://bank.example/t", "bank.example/token", "https://", "https://:443/t",
                    "https://user:pw@bank.example/t", "https://bank.example:0/t", "https://bank.example:99999/t",
                    "https://bank.example:x/t", "https://bank example/t", "https://bænk.example/t", "https://[::1/t"] {
            #expect(throws: LommeError.self, "\(bad)") { try TokenURL(bad) }
        }
        #expect(!HTTPClient.libraryLoaded)
    }

    @Test("a token answer is read strictly")
    func answers() throws {
        func parse(_ status: Int, _ body: String, type: String = "application/json") throws(LommeError) -> AccessToken {
            try TokenResponse.interpret(status: status, body: Array(body.utf8), contentType: type, endpoint: "E")
        }
        let good = try parse(200, #"{"access_token":"abc.DEF-_~+/=","token_type":"Bearer","expires_in":3600,"scope":""}"#)
        #expect(good == AccessToken(accessToken: "abc.DEF-_~+/=", tokenType: "Bearer", expiresIn: 3600))
        #expect(try parse(200, #"{"access_token":"a","token_type":"bearer"}"#).expiresIn == nil)
        #expect(try parse(200, #"{"access_token":"a","token_type":"bearer","expires_in":0}"#).expiresIn == 0)

        let malformed: [(String, String)] = [
            ("", "empty"), ("<html>", "not JSON"), (#"{"access_token":"a","#, "not JSON"), ("[1]", "not an object"),
            (#"{"token_type":"Bearer","expires_in":1}"#, "access_token is missing"),
            (#"{"access_token":1,"token_type":"Bearer"}"#, "not a string"),
            (#"{"access_token":"","token_type":"Bearer"}"#, "empty"),
            (#"{"access_token":"a b","token_type":"Bearer"}"#, "cannot be sent"),
            (#"{"access_token":"a\n","token_type":"Bearer"}"#, "cannot be sent"),
            (#"{"access_token":"æ","token_type":"Bearer"}"#, "cannot be sent"),
            (#"{"access_token":"a"}"#, "token_type is missing"),
            (#"{"access_token":"a","token_type":"mac"}"#, "only Bearer"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":"3600"}"#, "expires_in is not a number"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":null}"#, "expires_in is not a number"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":-1}"#, "whole number"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":1.5}"#, "whole number"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":1e3}"#, "whole number"),
            (#"{"access_token":"a","token_type":"Bearer","expires_in":99999999999}"#, "ten years"),
            (#"{"access_token":"a","access_token":"b","token_type":"Bearer"}"#, "twice"),
            ("{\"access_token\":\"" + String(repeating: "a", count: 8193) + "\",\"token_type\":\"Bearer\"}", "longer than"),
        ]
        for (body, words) in malformed {
            do {
                _ = try parse(200, body)
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.code == .token)
                #expect(error.message.contains(words), "\(body): \(error.message)")
            }
        }
        let refusals: [(Int, String, String)] = [
            (401, #"{"error":"invalid_client"}"#, "the client secret was refused — ask for a new QR"),
            (400, #"{"error":"invalid_client","error_description":"bad\nsecret"}"#, #"ask for a new QR (E answered invalid_client (bad\nsecret))"#),
            (401, "", "the client secret was refused — ask for a new QR (E answered HTTP 401)"),
            (400, #"{"error":"unauthorized_client"}"#, "client-credentials grant"),
            (400, #"{"error":"invalid_scope"}"#, "refused the token request: invalid_scope"),
            (400, "oops", "HTTP 400 and no OAuth error"),
            (500, #"{"error":"server_error"}"#, "failed with HTTP 500; try again later"),
            (503, "", "failed with HTTP 503"),
            (404, "", "answered HTTP 404, not a token"),
            (302, "", "answered HTTP 302"),
        ]
        for (status, body, words) in refusals {
            do {
                _ = try parse(status, body)
                Issue.record("accepted HTTP \(status)")
            } catch {
                #expect(error.code == .token)
                #expect(error.message.contains(words), "\(status) \(body): \(error.message)")
            }
        }
    }

    @Test("cache margin, payload round trip, and a stale vault fingerprint")
    func cachePayload() {
        #expect(TokenCache.marginMilliseconds(expiresIn: 3600) == 30_000)
        #expect(TokenCache.marginMilliseconds(expiresIn: 120) == 12_000)
        #expect(TokenCache.marginMilliseconds(expiresIn: 2) == 200)
        let entry = TokenCache.Entry(token: AccessToken(accessToken: "tok", tokenType: "Bearer", expiresIn: nil), expiresAt: 123_456, cacheUntil: 120_000)
        let print = [UInt8](repeating: 7, count: 16)
        let payload = TokenCache.encode(entry, fingerprint: print)
        let back = TokenCache.decode(payload, fingerprint: print)
        #expect(back?.token.accessToken == "tok" && back?.token.tokenType == "Bearer" && back?.expiresAt == 123_456 && back?.cacheUntil == 120_000)
        #expect(TokenCache.decode(payload, fingerprint: [UInt8](repeating: 8, count: 16)) == nil)
        let a = TokenCache.description(vaultID: "0a", url: nil)
        #expect(a.hasPrefix(TokenCache.vaultPrefix("0a")))
        #expect(a != TokenCache.description(vaultID: "0a", url: "https://x/t"))
        #expect(a != TokenCache.description(vaultID: "0b", url: nil))
    }
}

// MARK: - End to end: the built binary against a real Authlib server

@Suite("Token end to end", .serialized, .oauthServers)
struct TokenEndToEndTests {
    var servers: OAuthServers.Running { OAuthServers.current! }

    @Test("the token is issued by Authlib for an awkward secret and accepted by its resource check")
    func issuedAndAccepted() throws {
        let box = try TokenFixture.vault(tokenURL: servers.long.url("/token"))
        let before = try servers.long.stats()
        let result = box.run(["token"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let token = result.out
        #expect(!token.isEmpty && !token.hasSuffix("\n"))
        #expect(try servers.long.stats().tokenRequests == before.tokenRequests + 1)
        #expect(try servers.long.accountsStatus(token: token) == 200)
        #expect(try servers.long.accountsStatus(token: token + "x") == 401)
    }

    @Test("a cached token makes no request; --refresh makes one; --json and the newline rule")
    func cache() throws {
        let box = try TokenFixture.vault(tokenURL: servers.long.url("/token"))
        let first = box.run(["token"]).out
        let count = try servers.long.stats().tokenRequests
        let second = box.run(["token"])
        #expect(second.status == 0 && second.out == first)
        #expect(try servers.long.stats().tokenRequests == count)

        let json = box.run(["token", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect(Set(object.keys) == ["access_token", "token_type", "expires_in"])
        #expect(object["access_token"] as? String == first)
        #expect((object["token_type"] as? String)?.lowercased() == "bearer")
        let left = try #require(object["expires_in"] as? Int)
        #expect(left > 3500 && left <= 3600)
        #expect(box.run(["token", "--newline"]).out == first + "\n")
        #expect(box.run(["token", "-n"]).out == first)

        let refreshed = box.run(["token", "--refresh"])
        #expect(refreshed.status == 0 && refreshed.out != first)
        #expect(try servers.long.stats().tokenRequests == count + 1)
        #expect(box.run(["token"]).out == refreshed.out)
        #expect(try servers.long.stats().tokenRequests == count + 1)
    }

    /// A 2-second token. What a loaded machine could make late is checked only where the
    /// clock says it was in time, never assumed: the second call is expected to be served
    /// from the cache when it ended before the cache deadline, fetched anew when it began
    /// after it; the cache deadline itself is checked exactly (the life less a tenth).
    @Test("a 2-second token: cached within its life, fetched anew once past its cache deadline")
    func expiry() throws {
        let box = try TokenFixture.vault(tokenURL: servers.short.url("/token"))
        let cached = TokenCache.description(vaultID: Session.vaultID(salt: try VaultFormat.parse(readFile(box.vault)).salt), url: nil)
        // A token whose call outlasted its cache's life (1.8 s) is rightly not cached: a
        // loaded machine's call is made again (a few times) rather than failed.
        var start = 0, asked: UInt64 = 0, first = CLI.Result(status: -1, stdout: [], stderr: "")
        var found: SecureBytes?
        for _ in 0..<5 where found == nil {
            start = try servers.short.stats().tokenRequests
            asked = TokenCache.nowMilliseconds()
            first = box.run(["token", "--refresh"])
            #expect(first.status == 0, "\(first.stderr)")
            // The kernel keeps the key well past the cache deadline (here ten minutes), so
            // the payload's deadline is what decides below, whenever the calls come.
            if let id = try Keyring().find(cached) {
                Keyring.setTimeout(id, 600)
                found = Keyring.read(id, limit: 4096)
            }
            if found == nil { #expect(TokenCache.nowMilliseconds() - asked >= 1800, "a 2-second token fetched in time was not cached") }
        }
        guard let payload = found else { return }
        let key = try TokenCache.sessionKey(vault: box.vault, description: cached)
        let entry = try #require(TokenCache.open(payload, fingerprint: TokenCache.fingerprint(readFile(box.vault)), key: key, description: cached))
        #expect(entry.expiresAt >= asked + 2000 && entry.cacheUntil == entry.expiresAt - 200, "\(entry.expiresAt - asked) ms, cached until \(entry.expiresAt - entry.cacheUntil) ms before")
        let before = TokenCache.nowMilliseconds()
        let within = box.run(["token"])
        let after = TokenCache.nowMilliseconds()
        let requests = try servers.short.stats().tokenRequests
        if after < entry.cacheUntil {
            #expect(within.out == first.out && requests == start + 1, "a call within the cache's life made a request")
        } else if before >= entry.cacheUntil {
            #expect(within.out != first.out && requests == start + 2, "a call past the cache's life was served from it")
        }
        // Past the cache deadline, with the kernel still keeping the key: fetched anew.
        let now = TokenCache.nowMilliseconds()
        Thread.sleep(forTimeInterval: Double(entry.cacheUntil + 100 - min(now, entry.cacheUntil)) / 1000)
        #expect(try Keyring().find(cached) != nil, "the kernel dropped the key; the payload's deadline was not what decided")
        let fetched = TokenCache.nowMilliseconds()
        let renewed = box.run(["token"])
        #expect(renewed.status == 0 && renewed.out != first.out)
        #expect(try servers.short.stats().tokenRequests == requests + 1)
        // The new token works while it lives (checked only when the check ended inside its
        // two seconds), and the first is refused once past its own.
        let checked = try servers.short.accountsStatus(token: renewed.out)
        if TokenCache.nowMilliseconds() < fetched + 2000 { #expect(checked == 200) }
        Thread.sleep(forTimeInterval: Double(entry.expiresAt + 1000 - min(TokenCache.nowMilliseconds(), entry.expiresAt)) / 1000)
        #expect(try servers.short.accountsStatus(token: first.out) == 401, "Authlib still accepts the expired token")
    }

    @Test("exec --token sets LOMME_ACCESS_TOKEN (and only with --token)")
    func execToken() throws {
        let box = try TokenFixture.vault(tokenURL: servers.long.url("/token"))
        let token = box.run(["token"]).out
        let count = try servers.long.stats().tokenRequests
        let shown = box.run(["exec", "--token", "--", "sh", "-c", #"printf %s "$LOMME_ACCESS_TOKEN""#])
        #expect(shown.status == 0 && shown.out == token, "\(shown.stderr)")
        #expect(try servers.long.stats().tokenRequests == count)
        let without = box.run(["exec", "--", "sh", "-c", #"printf %s "${LOMME_ACCESS_TOKEN-unset}""#])
        #expect(without.out == "unset")
        let other = try TokenFixture.vault(tokenURL: nil)
        let viaURL = other.run(["exec", "--token-url", servers.long.url("/token"), "--", "sh", "-c", #"printf %s "$LOMME_ACCESS_TOKEN""#])
        #expect(viaURL.status == 0 && !viaURL.out.isEmpty)
        #expect(try servers.long.accountsStatus(token: viaURL.out) == 200)
    }

    @Test("the cache needs no unlock, and any change to the vault retires it")
    func cacheAndVault() throws {
        let box = try TokenFixture.vault(tokenURL: servers.long.url("/token"))
        let token = box.run(["token"]).out
        #expect(box.run(["token", "--no-prompt"]).out == token, "a cached token needs no unlock")
        let lock = box.run(["lock"])
        #expect(lock.status == 0 && lock.stderr.contains("Forgot 1 cached access token"), "\(lock.stderr)")
        let locked = box.run(["token", "--no-prompt"])
        #expect(locked.status == 3, "lock forgets cached tokens too: \(locked.stderr)")

        #expect(box.run(["unlock", "--passphrase-file", box.passphraseFile]).status == 0)
        let fresh = box.run(["token"]).out
        let count = try servers.long.stats().tokenRequests
        box.importConfig(TokenFixture.config(tokenURL: servers.long.url("/token"), name: "renamed"))
        let after = box.run(["token"])
        #expect(after.status == 0 && after.out != fresh)
        #expect(try servers.long.stats().tokenRequests == count + 1)

        // --url keys its own entry.
        let viaURL = box.run(["token", "--url", servers.long.url("/token")])
        #expect(viaURL.status == 0 && viaURL.out != after.out)
        #expect(box.run(["token", "--url", servers.long.url("/token")]).out == viaURL.out)
    }

    @Test("exit 8 with one line and no secret: unreachable, refused, 5xx, malformed, slow")
    func failures() throws {
        let long = servers.long
        let cases: [(url: String, secret: String?, extra: [String], words: String)] = [
            ("http://127.0.0.1:\(try TokenFixture.closedPort())/token", nil, [], "cannot reach the token endpoint"),
            (long.url("/token"), "not the secret", [], "the client secret was refused — ask for a new QR"),
            (long.url("/token"), TokenFixture.noGrantSecret, [], "does not let this client use the client-credentials grant"),
            (long.url("/broken/500"), nil, [], "failed with HTTP 500; try again later"),
            (long.url("/broken/503"), nil, [], "failed with HTTP 503"),
            (long.url("/broken/malformed"), nil, [], "not with a token: the answer is not JSON"),
            (long.url("/broken/no-token"), nil, [], "access_token is missing"),
            (long.url("/broken/html"), nil, [], "the answer is not JSON (it sent text/html"),
            (long.url("/broken/mac"), nil, [], "only Bearer tokens"),
            (long.url("/broken/string-expiry"), nil, [], "expires_in is not a number"),
            (long.url("/broken/huge"), nil, [], "larger than 64 KiB"),
            (long.url("/broken/slow"), nil, ["--timeout", "1"], "did not answer in time"),
            (long.url("/nothing-here"), nil, [], "answered HTTP 404"),
        ]
        for item in cases {
            let box = try TokenFixture.vault(tokenURL: item.url, clientId: item.secret == TokenFixture.noGrantSecret ? TokenFixture.noGrantId : TokenFixture.clientId,
                                        secret: item.secret ?? TokenFixture.secret)
            let result = box.run(["token"] + item.extra)
            #expect(result.status == 8, "\(item.url): \(result.stderr)")
            #expect(result.stderr.contains(item.words), "\(item.url): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            for secret in [TokenFixture.secret, TokenRequest.formEncoded(TokenFixture.secret), item.secret ?? TokenFixture.secret] {
                #expect(!result.stderr.contains(secret))
            }
        }
        let none = try TokenFixture.vault(tokenURL: nil)
        let missing = none.run(["token"])
        #expect(missing.status == 1 && missing.stderr.contains("no token URL: pass --token-url or put tokenUrl in the config"))
        let usage = none.run(["token", "--token-url", "ftp://127.0.0.1/t"])
        #expect(usage.status == 64)
    }

    @Test("certificates are verified: a self-signed https endpoint on loopback is exit 8")
    func untrustedCertificate() throws {
        let server = try OAuthServer.start(lifetime: 3600, tls: true)
        defer { server.stop() }
        let url = "https://127.0.0.1:\(server.port)/token"
        let box = try TokenFixture.vault(tokenURL: url)
        let result = box.run(["token"])
        #expect(result.status == 8, "\(result.stderr)")
        #expect(result.stderr.contains("TLS with the token endpoint \(url) failed"), "\(result.stderr)")
        #expect(try server.stats(scheme: "https").tokenRequests == 0)
    }

    @Test("examples/balance prints the stored account, refreshing a refused token once")
    func balance() throws {
        let box = try TokenFixture.vault(tokenURL: servers.long.url("/token"))
        let script = TokenFixture.root + "/examples/balance"
        let expected = "Brukskonto\n1234 56 78903\navailable: 1 234,50 kr\nbalance:   -12 345 678,05 kr\n"
        let result = box.run(["--api", servers.long.url("/")], executable: script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == expected)
        let viaEnvironment = box.run([], executable: script, environment: ["BANK_API_URL": servers.long.url("")])
        #expect(viaEnvironment.out == expected, "\(viaEnvironment.stderr)")

        let tokens = try servers.long.stats().tokenRequests
        try servers.long.post("/revoke-all")
        let again = box.run(["--api", servers.long.url("")], executable: script)
        #expect(again.status == 0 && again.out == expected, "\(again.stderr)")
        #expect(try servers.long.stats().tokenRequests == tokens + 1)
    }
}

// MARK: - Fixtures

enum TokenFixture {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let clientId = "lomme:test client+1"
    /// Every character the issue names, and a %41 that must not be decoded twice.
    static let secret = "s3:cr%et+with space/æ and %41 'q'"
    static let noGrantId = "no-grant-client"
    static let noGrantSecret = "no grant: secret%"
    static let userId = "01010112345"
    static let accountNr = "12345678903"

    static func config(tokenURL: String?, clientId: String = clientId, secret: String = secret, name: String? = nil) -> String {
        var members: [JSON.Member] = [
            JSON.Member("clientId", .string(clientId)), JSON.Member("clientSecret", .string(secret)),
            JSON.Member("userId", .string(userId)), JSON.Member("accountNr", .string(accountNr)),
        ]
        if let tokenURL { members.append(JSON.Member("tokenUrl", .string(tokenURL))) }
        if let name { members.append(JSON.Member("name", .string(name))) }
        return JSON.object(members).text
    }

    /// The accounts the stub bank lists; the stored one is the second.
    static var accounts: [[String: Any]] { [
        ["accountId": "A1", "accountNumber": "97104133219", "ownerCustomerId": userId, "name": "Sparekonto",
         "accountType": "High interest account", "available": 50.0, "balance": 50.0, "creditLimit": 0],
        ["accountId": "B2", "accountNumber": accountNr, "ownerCustomerId": userId, "name": "Brukskonto",
         "accountType": "Standard account", "available": 1234.5, "balance": -12345678.05, "creditLimit": 0],
    ] }

    /// A port on 127.0.0.1 where nothing listens.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, length) == 0, getsockname(fd, $0, &length) == 0 else { throw POSIXError(.EADDRINUSE) }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    typealias Result = CLI.Result

    /// A vault of its own (temp dir, imported and unlocked through the CLI).
    final class Box {
        private let folder = TemporaryFolder("lomme-token-test")
        var directory: String { folder.path }
        var vault: String { directory + "/data/vault" }
        var passphraseFile: String { directory + "/passphrase" }

        init() {
            _ = FileManager.default.createFile(atPath: passphraseFile, contents: Data("correct horse battery staple\n".utf8),
                                           attributes: [.posixPermissions: 0o600])
        }

        deinit {
            _ = run(["lock"])
            if let sealed = try? VaultFormat.parse(readFile(vault)) {
                TokenCache.forgetAll(vaultID: Session.vaultID(salt: sealed.salt), keyring: Keyring())
            }
        }

        func importConfig(_ json: String) {
            let result = run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", passphraseFile], stdin: json)
            #expect(result.status == 0, "import: \(result.stderr)")
        }

        /// Runs the binary (or `executable` with LOMME_VAULT_BIN set) on this vault, with no terminal.
        func run(_ arguments: [String], stdin: String? = nil, executable: String? = nil, environment: [String: String] = [:]) -> Result {
            var env = ["LOMME_VAULT": vault, "LOMME_VAULT_BIN": CLI.binary]
            env.merge(environment) { $1 }
            return CLI.run(arguments, stdin: stdin, environment: env, executable: executable)
        }
    }

    static func vault(tokenURL: String?, clientId: String = clientId, secret: String = secret) throws -> Box {
        #expect(FileManager.default.isExecutableFile(atPath: CLI.binary), "build the tool first: swift build")
        let box = Box()
        box.importConfig(config(tokenURL: tokenURL, clientId: clientId, secret: secret))
        let unlocked = box.run(["unlock", "--passphrase-file", box.passphraseFile])
        #expect(unlocked.status == 0, "unlock: \(unlocked.stderr)")
        return box
    }
}

// MARK: - The Authlib server, one pair per suite run

struct OAuthServer: Sendable {
    let port: Int
    let pid: Int32

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    struct Stats { var tokenRequests: Int; var accountsRequests: Int }

    func stats(scheme: String = "http") throws -> Stats {
        let data = try curl(["-sS", "--insecure", scheme + "://127.0.0.1:\(port)/stats"])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        return Stats(tokenRequests: object["token_requests"] ?? -1, accountsRequests: object["accounts_requests"] ?? -1)
    }

    func post(_ path: String) throws {
        _ = try curl(["-sS", "-X", "POST", url(path)])
    }

    /// The status of GET /accounts/ with this bearer token (Authlib's ResourceProtector decides).
    func accountsStatus(token: String) throws -> Int {
        let headers = "Authorization: Bearer \(token)\ncustomerId: \(TokenFixture.userId)\n"
        let data = try curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "@-", url("/accounts/")], stdin: headers)
        return Int(String(decoding: data, as: UTF8.self)) ?? -1
    }

    func curl(_ arguments: [String], stdin: String? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--noproxy", "*", "--max-time", "600"] + arguments  // a guard, not a measure
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// Starts Tests/Servers/oauth_server.py on a free loopback port.
    static func start(lifetime: Int, tls: Bool = false) throws -> OAuthServer {
        let settings: [String: Any] = [
            "lifetime": lifetime,
            "tls": tls,
            "clients": [
                ["client_id": TokenFixture.clientId, "client_secret": TokenFixture.secret, "grant_types": ["client_credentials"]],
                ["client_id": TokenFixture.noGrantId, "client_secret": TokenFixture.noGrantSecret, "grant_types": [String]()],
            ],
            "customer_id": TokenFixture.userId,
            "accounts": TokenFixture.accounts,
        ]
        let process = Process()
        // Debian's python3 with python3-authlib; LOMME_TEST_PYTHON picks another (a venv with
        // Authlib from PyPI, which decodes Basic credentials itself).
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.environment["LOMME_TEST_PYTHON"] ?? "/usr/bin/python3")
        // It ends when this process does; the time limit is a last guard, long enough for a
        // suite on a loaded machine (its default, 10 minutes, was not).
        process.arguments = [TokenFixture.root + "/Tests/Servers/oauth_server.py", "--max-seconds", "7200"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: settings))
        try input.fileHandleForWriting.close()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw POSIXError(.ECONNREFUSED)
        }
        return OAuthServer(port: port, pid: process.processIdentifier)
    }

    func stop() {
        kill(pid, SIGKILL)  // Foundation's Process reaps it
    }
}

/// Starts a long-lived-token server (1 h) and a short one (2 s) around the suite, and
/// stops them after it.
struct OAuthServers: SuiteTrait, TestScoping {
    struct Running: Sendable {
        var long: OAuthServer
        var short: OAuthServer
    }

    @TaskLocal static var current: Running?

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let long = try OAuthServer.start(lifetime: 3600)
        let short: OAuthServer
        do { short = try OAuthServer.start(lifetime: 2) } catch { long.stop(); throw error }
        defer {
            long.stop()
            short.stop()
        }
        try await OAuthServers.$current.withValue(Running(long: long, short: short)) {
            try await function()
        }
    }
}

extension Trait where Self == OAuthServers {
    static var oauthServers: Self { Self() }
}

extension TokenCache {
    /// The key the unlocked session of the vault at `vault` seals entries of `description`
    /// under: what a test needs to read or plant a cached token.
    static func sessionKey(vault: String, description: String) throws -> SecureBytes {
        let sealed = try VaultFormat.parse(readFile(vault))
        let id = try #require(try Keyring().find(Session.keyDescription(salt: sealed.salt)), "the vault is not unlocked")
        let session = try #require(Keyring.read(id).flatMap { Session.Payload($0) })
        return sealingKey(master: session.master, sessionDeadline: session.deadline, description: description)
    }
}
