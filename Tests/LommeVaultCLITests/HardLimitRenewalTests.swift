import Foundation
@testable import LommeCore
@testable import LommeVaultKit
import LommeTestSupport
import Testing

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
