import Glibc
import LommeCore
import LommeTestSupport
import Testing

func hexFixture(_ name: String) -> [UInt8] {
    Sodium.unhex(String(decoding: fixture(name), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "")!
}

/// Version 1 files (read only; fixtures/vault-v1, made by make.py there).
@Suite("Vault format version 1")
struct VaultFormatTests {
    let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))
    let salt: [UInt8] = Array(0..<16)

    @Test func vectorMasterKey() throws {
        let master = try KDF.derive(passphrase: passphrase, salt: salt, limits: .minimum)
        #expect(master.bytes == hexFixture("master.hex"))
    }

    @Test func vectorOpens() throws {
        let sealed = try VaultFormat.parse(fixture("vault"))
        #expect(sealed.version == 1 && sealed.salt == salt && sealed.nonce == Array(0x10..<0x28) && sealed.v1Limits == .minimum)
        #expect(try VaultFormat.key(sealed, passphrase: passphrase)?.key.bytes == hexFixture("master.hex"))
        let opened = try VaultFormat.open(sealed, passphrase: passphrase)
        #expect(opened.plaintext.bytes == fixture("plaintext.json"))
        let contents = try VaultContents(plaintext: opened.plaintext)
        #expect(contents.config?.clientId == "demo-client")
        #expect(contents.config?.clientSecret == "s3cret ' value")
        #expect(contents.config?.value(of: "name") == "blåbær")
        #expect(contents.created == Instant(seconds: 1_738_324_800) && contents.updated == contents.created)
        #expect(contents.json["created"] == .string("2025-01-31T12:00:00Z"), "written as it was read")
    }

    @Test func wrongPassphraseIsFour() throws {
        let sealed = try VaultFormat.parse(fixture("vault"))
        #expect(throws: LommeError.self) { try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array("wrong horse".utf8))) }
        do {
            _ = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array("wrong horse".utf8)))
        } catch {
            #expect(error.code == .wrongPassphrase)
        }
    }

    /// Every single-byte change (three different flips at every offset) and every
    /// truncation gives 4 or 5 — never success, never another code, never a crash.
    @Test func everySingleByteCorruptionIsFourOrFive() {
        let original = fixture("vault")
        #expect(original.count == 368)
        var codes: [LommeError.Code: Int] = [:]
        func attempt(_ bytes: [UInt8]) {
            do {
                let sealed = try VaultFormat.parse(bytes)
                _ = try VaultFormat.open(sealed, passphrase: passphrase)
                Issue.record("a corrupted vault opened")
            } catch {
                codes[error.code, default: 0] += 1
                #expect(error.code == .wrongPassphrase || error.code == .damaged, "\(error.message)")
            }
        }
        for offset in original.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var bytes = original
                bytes[offset] ^= flip
                attempt(bytes)
            }
        }
        for length in 0..<original.count { attempt(Array(original[0..<length])) }
        attempt(original + [0])
        // Header bytes after the limits and the check are caught by the key check (4);
        // the body, the AEAD (5).
        #expect(codes[.wrongPassphrase, default: 0] > 0 && codes[.damaged, default: 0] > 0)
    }

    @Test func bodyCorruptionIsDamagedNotWrongPassphrase() throws {
        var bytes = fixture("vault")
        bytes[200] ^= 0x01
        let sealed = try VaultFormat.parse(bytes)
        do {
            _ = try VaultFormat.open(sealed, passphrase: passphrase)
            Issue.record("opened")
        } catch {
            #expect(error.code == .damaged)
        }
    }

    /// A forged header asking for huge limits is refused by `parse`, before the KDF
    /// could allocate anything (the CLI test runs this under a 1 GiB address-space limit).
    @Test func forgedHugeLimitsAreRefusedWithoutAllocating() {
        func forged(ops: UInt32, mem: UInt64) -> [UInt8] {
            var bytes = fixture("vault")
            withUnsafeBytes(of: ops.littleEndian) { bytes.replaceSubrange(12..<16, with: $0) }
            withUnsafeBytes(of: mem.littleEndian) { bytes.replaceSubrange(16..<24, with: $0) }
            return bytes
        }
        for (ops, mem) in [(UInt32(1), UInt64(1) << 40), (1, (1 << 30) + 1024), (11, 8192), (UInt32.max, UInt64.max), (0, 8192), (1, 4096)] {
            do {
                _ = try VaultFormat.parse(forged(ops: ops, mem: mem))
                Issue.record("limits \(ops)/\(mem) were accepted")
            } catch {
                #expect(error.code == .damaged)
            }
        }
        // And the KDF itself refuses, should anyone call it directly.
        #expect(throws: LommeError.self) {
            try KDF.derive(passphrase: passphrase, salt: salt, limits: KDFLimits(opslimit: 3, memlimit: 1 << 34))
        }
        // The largest allowed limits still parse (they are not run here).
        #expect((try? VaultFormat.parse(forged(ops: 10, mem: 1 << 30))) != nil)
    }

    @Test func newerVersionSaysUpgrade() {
        var bytes = fixture("vault")
        bytes[8] = 3
        do {
            _ = try VaultFormat.parse(bytes)
            Issue.record("parsed")
        } catch {
            #expect(error.code == .damaged)
            #expect(error.reason == .vaultNewerFormat)
        }
    }
}

@Suite("Vault contents and helpers")
struct VaultContentsTests {
    @Test func storeKeepsThePrevious() throws {
        let first = Config(clientId: "one", clientSecret: "x", userId: "01010112345", accountNr: "12345678903")
        var second = first
        second.clientId = "two"
        let january = try #require(Instant(text: "2025-01-01T00:00:00Z")), february = try #require(Instant(text: "2025-02-01T00:00:00Z"))
        var contents = VaultContents(config: first, now: january)
        contents.store(second, now: february)
        #expect(contents.config?.clientId == "two")
        #expect(contents.previous?.config.clientId == "one")
        #expect(contents.previous?.updated == january)
        #expect(contents.previous?.replaced == february)
        #expect(contents.created == january && contents.updated == february)
    }

    /// Every version wrote its times as RFC 3339; a time that is none is damage, never kept as text.
    @Test func aVaultTimeThatIsNoTimeIsDamage() throws {
        let plaintext = #"{"version":1,"created":"yesterday","updated":"2025-01-31T12:00:00Z","device":{}}"#
        let error = #expect(throws: LommeError.self) { try VaultContents(plaintext: SecureBytes(copying: Array(plaintext.utf8))) }
        #expect(error?.code == .damaged)
    }

    @Test func plaintextIsPadded() {
        let contents = VaultContents(config: nil, now: Instant(seconds: 1_735_689_600))
        #expect(contents.plaintext().count % VaultContents.padding == 0)
    }

    @Test func timestamps() {
        #expect(Instant(seconds: 0).text == "1970-01-01T00:00:00Z")
        #expect(Instant(seconds: 1_738_324_800).text == "2025-01-31T12:00:00Z")
    }

    @Test func durations() {
        #expect(DurationText.parse("10m") == 600)
        #expect(DurationText.parse("1h30m") == 5400)
        #expect(DurationText.parse("45") == 45)
        #expect(DurationText.parse("2s") == 2)
        #expect(DurationText.parse("m") == nil)
        #expect(DurationText.parse("10x") == nil)
        #expect(DurationText.parse("5m3") == nil)
        #expect(DurationText.parse("3d") == 259_200)
        #expect(DurationText.parse("1m30s") == 90)
        // Reported exactly, in the form parse reads back.
        for (seconds, text) in [(0, "0s"), (45, "45s"), (90, "1m30s"), (600, "10m"), (5400, "1h30m"), (7205, "2h5s"), (129_600, "1d12h")] {
            #expect(DurationText.format(UInt64(seconds)) == text)
            #expect(DurationText.parse(text) == UInt32(seconds))
        }
        #expect(throws: LommeError.usage(.durationTooLong, "--timeout can be at most 12h")) { try DurationText.parse("13h", option: "--timeout", atMost: 43_200) }
        #expect(throws: LommeError.self) { try DurationText.parse("0", option: "--timeout", atMost: 60) }
    }

    @Test func calibrationStaysWithinCaps() {
        // Not a timing assertion: only that the result is usable and within the caps.
        let limits = KDF.calibrate(target: 0.05)
        #expect(limits.isWithinCaps)
        #expect(limits.memlimit >= 64 << 20)
    }
}
