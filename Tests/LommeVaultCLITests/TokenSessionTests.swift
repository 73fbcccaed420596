import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// Cached access tokens live no longer than the unlocked session,
/// against a real Authlib server whose tokens say they live a day.
@Suite("Token and session", .serialized)
struct TokenSessionTests {
    /// The cached entry of the vault's default token URL, and the ms it is still kept.
    func cached(_ box: TokenFixture.Box) throws -> (entry: TokenCache.Entry, keptFor: UInt64)? {
        let bytes = readFile(box.vault)
        let sealed = try VaultFormat.parse(bytes)
        let description = TokenCache.description(vaultID: Session.vaultID(salt: sealed.salt), url: nil)
        guard let id = try Keyring().find(description), let payload = Keyring.read(id, limit: TokenCache.payloadLimit),
              let entry = TokenCache.open(payload, fingerprint: TokenCache.fingerprint(bytes),
                                          key: try TokenCache.sessionKey(vault: box.vault, description: description), description: description)
        else { return nil }
        let now = TokenCache.nowMilliseconds()
        return (entry, entry.cacheUntil > now ? entry.cacheUntil - now : 0)
    }

    /// The session's key as the kernel holds it, to end it as its idle timeout would.
    func sessionKey(_ box: TokenFixture.Box) throws -> Keyring.KeyID? {
        try Keyring().find(Session.keyDescription(salt: try VaultFormat.parse(readFile(box.vault)).salt))
    }

    /// After auto-lock, `token` serves no cached token. The session is unlocked for an hour
    /// (the cached call comes in time however slow the machine); its idle end is then brought
    /// near (the key's kernel timeout cut to a second) and waited past.
    @Test("after auto-lock, token serves no cached token")
    func autoLockEndsTheCache() throws {
        let server = try OAuthServer.start(lifetime: 86400)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        #expect(box.run(["unlock", "--timeout", "1h", "--passphrase-file", box.passphraseFile]).status == 0)
        let script = """
            "$LV" token --no-prompt; echo " first: $?"
            "$LV" token --no-prompt; echo " cached: $?"
            """
        let r = CLI.run([], environment: ["LOMME_VAULT": box.vault], shell: script)
        Keyring.setTimeout(try #require(try sessionKey(box)), 1)
        let locked = CLI.run([], environment: ["LOMME_VAULT": box.vault], shell: #"sleep 2; "$LV" token --no-prompt 2>/dev/null; echo " after auto-lock: $?""#)
        let lines = (r.out + locked.out).split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(r.out) \(r.stderr)")
        guard lines.count == 3 else { return }
        let token = try #require(lines[0].components(separatedBy: " first: ").first)
        #expect(!token.isEmpty && lines[0].hasSuffix(" first: 0"), "\(r.stderr)")
        #expect(lines[1] == token + " cached: 0")
        #expect(lines[2] == " after auto-lock: 3", "a cached token outlived the session: \(lines[2])")
    }

    @Test("the cache keeps a token an hour at most, and never past the session's end")
    func cacheIsCapped() throws {
        let server = try OAuthServer.start(lifetime: 86400)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        let first = box.run(["token", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout)) as? [String: Any])
        let life = try #require(object["expires_in"] as? Int)
        #expect(life > 86000, "the endpoint's own lifetime is reported: \(life)")
        let token = try #require(object["access_token"] as? String)
        let hour = try #require(try cached(box))
        #expect(hour.keptFor <= 3600_000 && hour.keptFor > 3500_000, "kept for \(hour.keptFor) ms")

        // The session as it is 11 h 50 min after the passphrase was typed (ten minutes left:
        // time enough for the call below however loaded the machine).
        let sealed = try VaultFormat.parse(readFile(box.vault))
        let description = Session.keyDescription(salt: sealed.salt)
        var session = try #require(try Keyring().find(description).flatMap { Keyring.read($0) }.flatMap { Session.Payload($0) })
        session.deadline = UInt64(time(nil)) + 600
        _ = try Keyring().add(description, payload: session.encoded(), timeout: 600)
        let second = box.run(["token", "--refresh"])
        #expect(second.status == 0 && second.out != token, "\(second.stderr)")
        let short = try #require(try cached(box))
        #expect(short.keptFor <= 601_000, "kept for \(short.keptFor) ms past a session ending in 600 s")
        #expect(short.entry.token.accessToken == second.out)
    }

    /// Every key this user can read, from every keyring (/proc/keys lists them all), read
    /// with keyctl: what another process of the user could take.
    static func everyReadableKey() -> String {
        let script = #"for id in $(awk '{print $1}' /proc/keys); do keyctl pipe "$(printf %d "0x$id")" 2>/dev/null; echo; done"#
        return CLI.run([], shell: script).out
    }

    @Test("a cached token is sealed: no keyring holds it readable, during the session or after it")
    func theCachedTokenIsNeverInAKeyringInClear() throws {
        let server = try OAuthServer.start(lifetime: 86400)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        #expect(box.run(["unlock", "--timeout", "1h", "--passphrase-file", box.passphraseFile]).status == 0)
        let token = box.run(["token", "--no-prompt"])
        #expect(token.status == 0 && token.out.count > 8, "\(token.stderr)")
        #expect(box.run(["token", "--no-prompt"]).out == token.out, "cached while the session lives")
        #expect(try cached(box) != nil, "the session's key opens the cached entry")
        #expect(!Self.everyReadableKey().contains(token.out), "the token is readable in a keyring during the session")
        // After the idle timeout the session's key is gone, and nothing readable holds the
        // token (the timeout brought near, to a second, and waited past).
        Keyring.setTimeout(try #require(try sessionKey(box)), 1)
        Thread.sleep(forTimeInterval: 2)
        #expect(!Self.everyReadableKey().contains(token.out), "the token is readable in a keyring after the session")
        #expect(box.run(["token", "--no-prompt"]).status == 3)
    }

    @Test("without an unlocked session a token is fetched, never cached")
    func noSessionNoCache() throws {
        let server = try OAuthServer.start(lifetime: 86400)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        #expect(box.run(["lock"]).status == 0)
        let sealed = try VaultFormat.parse(readFile(box.vault))
        let description = TokenCache.description(vaultID: Session.vaultID(salt: sealed.salt), url: nil)
        let start = try server.stats().tokenRequests
        let first = box.run(["token", "--passphrase-file", box.passphraseFile])
        let second = box.run(["token", "--passphrase-file", box.passphraseFile])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        #expect(first.out != second.out, "a token was served from a cache without a session")
        #expect(try server.stats().tokenRequests == start + 2)
        #expect(try Keyring().find(description) == nil, "a token was cached without a session")
        #expect(!Self.everyReadableKey().contains(first.out) && !Self.everyReadableKey().contains(second.out))
    }
}
