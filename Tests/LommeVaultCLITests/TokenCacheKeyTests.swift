import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// The key a cached token is sealed under comes from the session: its vault key (so not
/// from public values alone) and its deadline (so another session, even of the same key,
/// does not open it). Checked against an independent derivation in Python (hashlib's
/// BLAKE2b, PyNaCl's XChaCha20-Poly1305) from docs/token.md, and through the binary.
@Suite("The cached token's key", .serialized)
struct TokenCacheKeyTests {
    static let opener = """
        import hashlib, struct, sys
        import nacl.bindings as b
        master, deadline, description, payload = sys.stdin.read().split("\\n")[:4]
        key = hashlib.blake2b(b"lomme-vault token cache v2\\0" + struct.pack("<Q", int(deadline)) + description.encode(),
                              digest_size=32, key=bytes.fromhex(master)).digest()
        payload = bytes.fromhex(payload)
        assert payload[0] == 2, "version 2"
        entry = b.crypto_aead_xchacha20poly1305_ietf_decrypt(payload[25:], description.encode(), payload[1:25], key)
        sys.stdout.write(entry[34 + entry[33]:].decode())
        """

    @Test func theCachedTokenOpensWithTheSessionsKeyAndDeadlineOnly() throws {
        let server = try OAuthServer.start(lifetime: 3600)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        let first = box.run(["token", "--no-prompt"])
        #expect(first.status == 0 && !first.out.isEmpty, "\(first.stderr)")
        let sealed = try VaultFormat.parse(readFile(box.vault))
        let sessionName = Session.keyDescription(salt: sealed.salt)
        let session = try #require(try Keyring().find(sessionName).flatMap { Keyring.read($0) }.flatMap { Session.Payload($0) })
        let description = TokenCache.description(vaultID: Session.vaultID(salt: sealed.salt), url: nil)
        let payload = try #require(try Keyring().find(description).flatMap { Keyring.read($0, limit: TokenCache.payloadLimit) })

        // The independent derivation opens the cached entry: the token comes out.
        let script = box.directory + "/open-token.py"
        #expect(FileManager.default.createFile(atPath: script, contents: Data(Self.opener.utf8)))
        let input = [Sodium.hex(session.master.bytes), String(session.deadline), description, Sodium.hex(payload.bytes)].joined(separator: "\n") + "\n"
        let opened = CLI.run([], stdin: input, shell: "/usr/bin/python3 '\(script)'")
        #expect(opened.status == 0 && opened.out == first.out, "the documented derivation does not open the cached token: \(opened.stderr)")

        // The same vault key with another deadline is another session: the cached token is
        // not served there (a new one is fetched).
        var other = session
        other.deadline = session.deadline - 1
        _ = try Keyring().add(sessionName, payload: other.encoded(), timeout: 600)
        let second = box.run(["token", "--no-prompt"])
        #expect(second.status == 0 && !second.out.isEmpty && second.out != first.out, "a session of another deadline was served the cached token")
    }
}
