import Foundation
@testable import LommeCore
@testable import LommeVaultKit
import LommeTestSupport
import Testing

/// A receiving key is compared as X25519 reads it, through the built binary: one written in a
/// non-canonical form (bit 255 set) is refused wherever a key is given.
@Suite("A receiving key in a non-canonical form")
struct NonCanonicalKeyTests {
    /// The same X25519 key written with bit 255 set: X25519 ignores that bit, so it is the
    /// same device, but its bytes (and so its text and fingerprint) differ.
    static func bit255(_ text: String) throws -> String {
        var bytes = try #require(Bech32.decode(text, prefix: ReceivingKey.textPrefix))
        bytes[31] |= 0x80
        return Bech32.encode(prefix: ReceivingKey.textPrefix, data: bytes)
    }

    /// Keys are compared as X25519 reads them: the non-canonical text of a child's key, or
    /// of the parent's own, is refused (exit 64) wherever a receiving key is given, as text
    /// or as a photo, and nothing is written.
    @Test func aReceivingKeyWithBit255SetIsRefusedEverywhere() throws {
        let box = CLI.Sandbox()
        let (options, env, annaKey) = HouseholdInputTests.parent(box)
        let own = CLI.run(["key", "--text"] + options, environment: env).out.trimmingASCIIWhitespace()
        #expect(own.hasPrefix("lvk1"), "\(own)")
        let anna = try Self.bit255(annaKey), mine = try Self.bit255(own)
        #expect(anna != annaKey && mine != own)
        let photo = box.path + "/anna-key.png"
        #expect(CLI.run([], shell: "printf %s '\(anna.uppercased())' | qrencode -o '\(photo)'").status == 0)
        let before = readFile(box.vault)
        let cases: [[String]] = [
            ["child", "add", "ola", "--key", anna, "--account", "12345678903", "--yes"],
            ["child", "add", "ola", "--key-image", photo, "--account", "12345678903", "--yes"],
            ["child", "add", "ola", "--key", mine, "--account", "12345678903", "--yes"],
            ["child", "rekey", "anna", "--key", anna, "--yes"],
            ["child", "rekey", "anna", "--key", mine, "--yes"],
            ["issue", "--to", anna, "--output", box.path + "/code.png"],
            ["issue", "--to", mine, "--output", box.path + "/code.png"],
        ]
        for arguments in cases {
            let result = CLI.run(arguments + options, environment: env)
            expectRefusal(result, 64, "not written the way `lomme-vault key` writes it")
            #expect(result.reason == .receivingKeyNotCanonical && result.stderr.contains("copy the key again"), "\(arguments): \(result.stderr)")
        }
        #expect(readFile(box.vault) == before, "a refused key changed the vault")
        #expect(!FileManager.default.fileExists(atPath: box.path + "/code.png"))
        let list = CLI.run(["child", "list", "--json"] + options, environment: env)
        let children = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout)) as? [[String: Any]])
        #expect(children.count == 1, "\(list.out)")
    }
}
