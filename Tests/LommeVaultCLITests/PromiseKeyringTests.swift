import Foundation
@testable import LommeCore
@testable import LommeVaultKit
import Testing

/// docs/contract.md, "Unlocking" and "Tokens": the session key and cached tokens in the kernel keyring,
/// checked from outside (keyctl, /proc/keys) and by planting keys the tool must not use.
@Suite("Promises: keyring", .serialized)
struct PromiseKeyringTests {
    func description(_ vault: PromiseVault) throws -> String {
        Session.keyDescription(salt: try VaultFormat.parse(vault.bytes).salt)
    }

    /// Seconds left on a key as /proc/keys shows it (reading it does not use the key).
    func secondsLeft(_ id: Keyring.KeyID) -> Int? {
        guard let text = Keyring.timeoutText(id) else { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()) else { return nil }
        return count * unit
    }

    @Test func theKeyIsTheUsersAloneCheckedWhole() throws {
        let vault = PromiseVault()
        #expect(vault.run(["unlock"]).status == 0)
        defer { _ = CLI.run(["lock"] + vault.args) }
        let name = try description(vault)
        let id = try #require(try Keyring().find(name))
        let uid = getuid(), gid = getgid()
        #expect(CLI.run([], shell: "keyctl rdescribe \(id)").out == "user;\(uid);\(gid);3f3f0000;\(name)\n")
        // keyctl prints the key's serial right-aligned in 9 columns ("%9d"): a serial of
        // fewer digits has leading spaces.
        let line = String(CLI.run([], shell: "keyctl describe \(id)").out.drop(while: { $0 == " " }))
        let expected = "\(id): alswrvalswrv------------ \(String(repeating: " ", count: 5 - "\(uid)".count))\(uid) \(String(repeating: " ", count: 5 - "\(gid)".count))\(gid) user: \(name)\n"
        #expect(line == expected)
    }

    /// An unlock that is never used ends after its idle time: the kernel's timeout is the
    /// idle time from the start (not 12 h), and the key is gone after it, with nobody using it.
    /// (Only what is past is checked against the clock: a loaded machine may take seconds
    /// between the unlock and a look at the key, never less than the time waited.)
    @Test func anUnusedUnlockEndsAfterItsIdleTime() throws {
        let vault = PromiseVault()
        defer { _ = CLI.run(["lock"] + vault.args) }
        let name = try description(vault)
        #expect(vault.run(["unlock", "--timeout", "1h"]).status == 0)
        let id = try #require(try Keyring().find(name))
        let left = try #require(secondsLeft(id), "/proc/keys shows no timeout: \(Keyring.timeoutText(id) ?? "?")")
        #expect(left <= 3600 && left > 600, "\(left) s")
        #expect(CLI.run(["lock"] + vault.args).status == 0)
        #expect(vault.run(["unlock", "--timeout", "4s"]).status == 0)
        if let short = try Keyring().find(name), let left = secondsLeft(short) { #expect(left <= 4, "\(left) s") }
        let gone = CLI.run([], shell: "sleep 6; keyctl search @u user '\(name)' >/dev/null 2>&1; echo $?")
        #expect(gone.out == "1\n", "the key outlived its idle time unused")
    }

    /// A use puts the kernel's timeout back to the idle time and no further: cut to 100 s
    /// first (as if idle all but that), it is over 100 s after a `get`, at most the hour.
    @Test func useRefreshesToTheIdleTimeAndNoFurther() throws {
        let vault = PromiseVault()
        #expect(vault.run(["unlock", "--timeout", "1h"]).status == 0)
        defer { _ = CLI.run(["lock"] + vault.args) }
        let id = try #require(try Keyring().find(try description(vault)))
        Keyring.setTimeout(id, 100)
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + vault.args).out == "client-A")
        let left = try #require(secondsLeft(id))
        #expect(left <= 3600 && left > 100, "\(left) s")
    }

    /// The payload's deadline is 12 h after the unlock; longer timeouts are refused.
    @Test func theHardLimitIsTwelveHours() throws {
        let vault = PromiseVault()
        let before = UInt64(time(nil))
        #expect(vault.run(["unlock"]).status == 0)
        defer { _ = CLI.run(["lock"] + vault.args) }
        let id = try #require(try Keyring().find(try description(vault)))
        let raw = try #require(Keyring.read(id))
        let payload = try #require(Session.Payload(raw))
        #expect(payload.deadline >= before + 43200 && payload.deadline <= UInt64(time(nil)) + 43200)
        let long = vault.run(["unlock", "--timeout", "13h"])
        #expect(long.status == 64 && long.reason == .durationTooLong && long.stderr.contains("12h"), "\(long.stderr)")
    }

    /// Keys planted under the vault's name: past the deadline, or not this vault's key.
    /// Neither is used (exit 3), and both are removed; a good one is used (the control).
    @Test func aKeyPastItsDeadlineOrForAnotherVaultIsNotUsed() throws {
        let vault = PromiseVault()
        let name = try description(vault)
        let now = UInt64(time(nil))
        func plant(_ master: SecureBytes, deadline: UInt64) throws {
            _ = try Keyring().add(name, payload: Session.Payload(master: master, deadline: deadline, idle: 600).encoded(), timeout: 600)
        }
        defer { _ = CLI.run(["lock"] + vault.args) }
        try plant(try vault.master(), deadline: now - 5)
        expectRefusal(CLI.run(["get", "clientId", "--no-prompt"] + vault.args), 3, "locked")
        #expect(try Keyring().find(name) == nil, "the expired session was not removed")
        try plant(SecureBytes.random(count: 32), deadline: now + 600)
        expectRefusal(CLI.run(["get", "clientId", "--no-prompt"] + vault.args), 3, "locked")
        #expect(try Keyring().find(name) == nil, "the foreign key was not removed")
        try plant(try vault.master(), deadline: now + 600)
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + vault.args).out == "client-A")
    }

    /// Cached tokens planted for `--url http://127.0.0.1:1/token` (nothing listens there):
    /// one past its cache deadline while the kernel still keeps it, one for other vault
    /// contents. Neither is served (exit 8: the endpoint is unreachable); a good one is.
    @Test func aStaleCachedTokenIsNeverServed() throws {
        let vault = PromiseVault()
        // A cached token is served only while the vault is unlocked, sealed under the session's key.
        #expect(vault.run(["unlock"]).status == 0)
        defer { _ = vault.run(["lock"]) }
        let url = "http://127.0.0.1:1/token"
        let name = TokenCache.description(vaultID: Session.vaultID(salt: try VaultFormat.parse(vault.bytes).salt), url: url)
        let now = TokenCache.nowMilliseconds()
        let current = TokenCache.fingerprint(vault.bytes)
        let key = try TokenCache.sessionKey(vault: vault.box.vault, description: name)
        func plant(_ token: String, cacheUntil: UInt64, fingerprint: [UInt8]) throws {
            let entry = TokenCache.Entry(token: AccessToken(accessToken: token, tokenType: "Bearer", expiresIn: nil), expiresAt: now + 600_000, cacheUntil: cacheUntil)
            _ = try Keyring().add(name, payload: TokenCache.seal(entry, fingerprint: fingerprint, key: key, description: name), timeout: 600)
        }
        defer { _ = try? TokenCache.forget(name, keyring: Keyring()) }
        try plant("stale-token", cacheUntil: now - 1000, fingerprint: current)
        var result = vault.run(["token", "--url", url, "--timeout", "5"])
        #expect(result.status == 8 && !result.out.contains("stale-token"), "\(result.status) \(result.stderr)")
        try plant("foreign-token", cacheUntil: now + 600_000, fingerprint: [UInt8](repeating: 1, count: 16))
        result = vault.run(["token", "--url", url, "--timeout", "5"])
        #expect(result.status == 8 && !result.out.contains("foreign-token"), "\(result.status) \(result.stderr)")
        try plant("good-token", cacheUntil: now + 600_000, fingerprint: current)
        result = vault.run(["token", "--url", url, "--timeout", "5"])
        #expect(result.status == 0 && result.out == "good-token", "\(result.status) \(result.stderr)")
    }
}
