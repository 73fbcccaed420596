import Foundation
@testable import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// The rules on what the user gives: names that are never keys, key files of this user and
/// of the right length, and kinds that take no argument. Each test fails when its rule is
/// broken (bench/mutants.toml plants each break).
@Suite("Rules on input (through the built binary)")
struct InputRuleTests {
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
            #expect(result.stderr.contains("/media/stick/vault.key") || result.reason == .usage, "\(result.stderr)")
        }
        #expect(readFile(m.box.vault) == before)
        #expect(m.run(["get", "clientId", "--no-prompt"]).status == 3, "a refused unlock left a session")
    }
}
