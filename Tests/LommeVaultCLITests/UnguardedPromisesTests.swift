import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// Issue 51, item 6: promises the code kept but no test guarded. Each test fails when the
/// promise is broken (bench/mutants.toml plants each break).
@Suite("Promises no test guarded (through the built binary)")
struct UnguardedPromisesTests {
    /// Names may not start with lvk1 in any case (a name is never taken for a key), and
    /// `child rekey` never gives a child this machine's own receiving key.
    @Test func childNamesAndKeys() throws {
        let box = CLI.Sandbox()
        let (options, env, _) = HouseholdInputTests.parent(box)
        let before = readFile(box.vault)
        let key = ReceivingKeyPair.generate().publicKey.text
        for name in ["lvk1anna", "LVK1anna", "Lvk1x"] {
            expectRefusal(CLI.run(["child", "add", name, "--key", key, "--account", "12345678903", "--yes"] + options, environment: env),
                          64, "may not start with lvk1")
        }
        let own = CLI.run(["key", "--text"] + options, environment: env).out.trimmingASCIIWhitespace()
        expectRefusal(CLI.run(["child", "rekey", "anna", "--key", own, "--yes"] + options, environment: env), 1, "is this machine's own")
        #expect(readFile(box.vault) == before, "a refused child command changed the vault")
    }

    /// A key file is the vault key's equal: one that another user owns (who could have read
    /// or replaced it) is refused, and so is a file longer than the 32 bytes a key file
    /// holds, even when its first 32 bytes are the key (the control: those 32 alone open).
    @Test func aKeyFileOfAnotherUserOrOfAnotherLengthIsRefused() throws {
        let m = KeyFileSlotTests.Vault()
        defer { _ = m.run(["lock"]) }
        let key = m.box.path + "/vault.key"
        #expect(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]).status == 0)
        let bytes = readFile(key)
        #expect(bytes.count == 32)
        func file(_ name: String, _ contents: [UInt8], owner: uid_t? = nil) -> String {
            let path = m.box.path + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(contents), attributes: [.posixPermissions: 0o400]))
            if let owner { #expect(chown(path, owner, getgid()) == 0, "chown: \(String(cString: strerror(errno)))") }
            return path
        }
        let longer = file("longer.key", bytes + [0x0A])
        expectRefusal(m.run(["unlock", "--with", "keyfile", longer, "--no-prompt"]), 4, "not a lomme-vault key file (33 bytes")
        // As root, a copy given to nobody; as another user, a file root owns.
        let foreign = getuid() == 0 ? file("foreign.key", bytes, owner: 65534) : "/etc/hostname"
        let refused = m.run(["unlock", "--with", "keyfile", foreign, "--no-prompt"])
        expectRefusal(refused, 1, "belongs to another user")
        #expect(m.run(["get", "clientId", "--no-prompt"]).status == 3, "a refused key file left a session")
        m.unlocks(with: file("copy.key", bytes))
    }

    /// A slot kind that takes no argument refuses one (exit 64), for `enroll` and for
    /// `unlock --with`, instead of ignoring it: `enroll tpm2 /media/stick/key` is a mistake.
    @Test func anArgumentToAKindThatTakesNoneIsRefused() throws {
        let m = KeyFileSlotTests.Vault()
        let before = readFile(m.box.vault)
        let cases: [[String]] = [
            ["enroll", "tpm2", "/media/stick/vault.key", "--passphrase-file", m.pw],
            ["unlock", "--with", "tpm2", "/media/stick/vault.key", "--no-prompt"],
            ["unlock", "--with", "passphrase", "extra", "--passphrase-file", m.pw],
        ]
        for arguments in cases {
            let result = m.run(arguments)
            expectRefusal(result, 64, "takes no argument")
            #expect(result.stderr.contains("/media/stick/vault.key") || result.stderr.contains("extra"), "\(result.stderr)")
        }
        #expect(readFile(m.box.vault) == before)
        #expect(m.run(["get", "clientId", "--no-prompt"]).status == 3, "a refused unlock left a session")
    }
}

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
