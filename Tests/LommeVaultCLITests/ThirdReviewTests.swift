import Foundation
@testable import LommeCore
@testable import LommeVaultKit
import LommeTestSupport
import Testing

/// Issue 51, the holes of the third review, each through the built binary.
@Suite("The third review's holes (through the built binary)")
struct ThirdReviewTests {
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
            #expect(result.stderr.contains("copy the key again"), "\(arguments): \(result.stderr)")
        }
        #expect(readFile(box.vault) == before, "a refused key changed the vault")
        #expect(!FileManager.default.fileExists(atPath: box.path + "/code.png"))
        let list = CLI.run(["child", "list", "--json"] + options, environment: env)
        let children = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout)) as? [[String: Any]])
        #expect(children.count == 1, "\(list.out)")
    }
}

/// Only a person renews the 12 h hard limit: an unlock with a slot that opens for any
/// program (a key file, a TPM slot without PIN) keeps a live session's deadline; a
/// passphrase (or a TPM PIN) proven now sets a new one. The session is planted with a
/// deadline ten minutes away and read back from the keyring, as PromiseKeyringTests do: no
/// waiting, no clock.
@Suite("Only a person renews the session's hard limit", .serialized)
struct HardLimitRenewalTests {
    /// The session's deadline, read from the keyring (nil: no session).
    static func deadline(_ vault: String) throws -> UInt64? {
        let sealed = try VaultFormat.parse(readFile(vault))
        guard let id = try Keyring().find(Session.keyDescription(salt: sealed.salt)) else { return nil }
        return Keyring.read(id).flatMap { Session.Payload($0) }?.deadline
    }

    /// A live session of `vault` ending at `deadline`, as a passphrase typed earlier left it.
    static func plant(_ vault: String, passphrase: String, deadline: UInt64) throws {
        let sealed = try VaultFormat.parse(readFile(vault))
        let master = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array(passphrase.utf8))).master
        try Session.store(Keyring(), sealed, master: master, idle: 600, deadline: deadline)
    }

    @Test func aKeyFileNeverMovesALiveSessionsEnd() throws {
        let m = KeyFileSlotTests.Vault()
        defer { _ = m.run(["lock"]) }
        let key = m.box.path + "/vault.key"
        #expect(m.run(["enroll", "keyfile", key, "--passphrase-file", m.pw]).status == 0)
        let soon = UInt64(time(nil)) + 600
        try Self.plant(m.box.vault, passphrase: "key file test passphrase", deadline: soon)
        let unlocked = m.run(["unlock", "--with", "keyfile", key, "--no-prompt"])
        #expect(unlocked.status == 0 && unlocked.stderr.contains("the session's end is not moved"), "\(unlocked.stderr)")
        #expect(try Self.deadline(m.box.vault) == soon, "a key file moved the session's end")
        // With no live session the key file starts one (12 h at most).
        _ = m.run(["lock"])
        #expect(m.run(["unlock", "--with", "keyfile", key, "--no-prompt"]).status == 0)
        let fresh = try #require(try Self.deadline(m.box.vault))
        #expect(fresh > soon && fresh <= UInt64(time(nil)) + 43200)
        // The control: a passphrase proven now sets a new 12 h end over a live session.
        try Self.plant(m.box.vault, passphrase: "key file test passphrase", deadline: soon)
        #expect(m.run(["unlock", "--passphrase-file", m.pw]).status == 0)
        #expect(try #require(try Self.deadline(m.box.vault)) > soon)
    }

    @Test func aTPMSlotRenewsItOnlyWithAPIN() throws {
        let m = try TPMSlotTests.Machine()
        defer { _ = m.run(["lock"]) }
        #expect(m.run(["enroll", "tpm2", "--passphrase-file", m.pw]).status == 0)
        let soon = UInt64(time(nil)) + 600
        try Self.plant(m.box.vault, passphrase: "tpm test passphrase", deadline: soon)
        #expect(m.run(["unlock", "--with", "tpm2", "--no-prompt"]).status == 0)
        #expect(try Self.deadline(m.box.vault) == soon, "a TPM slot without PIN moved the session's end")
        _ = m.run(["unenroll", "tpm2", "--passphrase-file", m.pw])
        #expect(m.run(["enroll", "tpm2", "--pin-file", m.pin, "--passphrase-file", m.pw]).status == 0)
        try Self.plant(m.box.vault, passphrase: "tpm test passphrase", deadline: soon)
        #expect(m.run(["unlock", "--with", "tpm2", "--pin-file", m.pin, "--no-prompt"]).status == 0)
        #expect(try #require(try Self.deadline(m.box.vault)) > soon, "a PIN typed now did not set a new end")
    }
}

@Suite("A vault past 1 MiB (through the built binary)")
struct VaultTooLargeTests {
    /// Extra fields of 60 000 characters, one `set` at a time (each keeps the config before
    /// as the previous one): the write that would pass 1 MiB says the vault is too large and
    /// what to do (not "check the disk, and report this"), writes nothing, and the vault
    /// still opens.
    @Test func aWritePastOneMiBSaysTooLargeAndWritesNothing() throws {
        let vault = PromiseVault()
        let value = String(repeating: "x", count: 60_000) + "\n"
        var refused: CLI.Result?
        for number in 1...20 {
            let before = vault.bytes
            let result = vault.run(["set", "--new", "note\(number)"], stdin: value)
            if result.status != 0 {
                refused = result
                #expect(vault.bytes == before, "a refused write changed the vault")
                break
            }
            #expect(vault.bytes.count <= 1 << 20)
        }
        let result = try #require(refused, "twenty fields of 60 000 characters were stored")
        expectRefusal(result, 1, "more than the 1 MiB a vault may hold, so nothing was written")
        #expect(!result.stderr.contains("report this"), "\(result.stderr)")
        #expect(vault.run(["get", "clientId"]).out == "client-A")
    }
}
