import LommeCore
import LommeTestSupport
import Testing

func hexFixtureV2(_ name: String) -> [UInt8] {
    Sodium.unhex(String(decoding: fixtureV2(name), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "")!
}

/// Version 2 (fixtures/vault-v2, made by make.py there from docs/FORMAT.md with hashlib
/// and PyNaCl): key slots, public keys in the header.
@Suite("Vault format version 2")
struct VaultFormatV2Tests {
    let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))
    let vaultSalt: [UInt8] = Array(0x00..<0x10)
    let fileKey = SecureBytes(copying: hexFixtureV2("file-key.hex"))
    let tpmKEK = SecureBytes(copying: hexFixtureV2("tpm-kek.hex"))

    var tpmParameters: TPM2Slot {
        TPM2Slot(withPIN: true, pcrs: [7], pinSalt: Array(0x30..<0x40), primaryName: [0x00, 0x0B] + [UInt8](repeating: 0x11, count: 32),
                 publicArea: Array("PUBLIC-AREA".utf8), privateArea: Array("PRIVATE-AREA".utf8))
    }

    /// The TPM 2.0 slot's kind byte (its kind's file in LommeVaultKit names it; docs/FORMAT.md).
    let tpmKind = VaultSlot.Kind(rawValue: 2)

    @Test func vectorSealsToTheExactBytes() throws {
        let passKEK = SecureBytes(copying: hexFixtureV2("passphrase-kek.hex"))
        let passphraseSlot = PassphraseSlot(limits: .minimum, salt: Array(0x40..<0x50))
        #expect(try passphraseSlot.kek(passphrase).bytes == passKEK.bytes)
        let first = VaultSlot.wrap(fileKey, kind: .passphrase, id: 0, created: 1_738_324_800, parameters: passphraseSlot.parameters,
                                   kek: passKEK, vaultSalt: vaultSalt, nonce: Array(0x50..<0x68))
        var second = VaultSlot.wrap(fileKey, kind: tpmKind, id: 1, created: 1_738_324_801, parameters: tpmParameters.parameters,
                                    kek: tpmKEK, vaultSalt: vaultSalt, nonce: Array(0x68..<0x80))
        second.lastUsed = 1_738_411_200
        let layout = VaultLayout(salt: vaultSalt, publicKeys: VaultPublicKeys(receiving: ReceivingKey(bytes: Array(0x80..<0xA0)), issuer: IssuerKey(bytes: Array(0xC0..<0xE0))),
                                 slots: [first, second])
        let bytes = VaultFormat.seal(SecureBytes(copying: fixture("plaintext.json")), master: fileKey, layout: layout, nonce: Array(0x10..<0x28))
        #expect(bytes == fixtureV2("vault"))
        #expect(bytes == hexFixtureV2("vault.hex"))
    }

    @Test func vectorOpensWithThePassphraseSlot() throws {
        let sealed = try VaultFormat.parse(fixtureV2("vault"))
        #expect(sealed.version == 2 && sealed.salt == vaultSalt && sealed.nonce == Array(0x10..<0x28))
        #expect(sealed.publicKeys == VaultPublicKeys(receiving: ReceivingKey(bytes: Array(0x80..<0xA0)), issuer: IssuerKey(bytes: Array(0xC0..<0xE0))))
        #expect(sealed.slots.map(\.id) == [0, 1] && sealed.slots.map(\.kind) == [.passphrase, tpmKind])
        #expect(sealed.slots.map(\.created) == [1_738_324_800, 1_738_324_801] && sealed.slots.map(\.lastUsed) == [0, 1_738_411_200])
        let opened = try #require(try VaultFormat.key(sealed, passphrase: passphrase))
        #expect(opened.key.bytes == fileKey.bytes && opened.slot == 0)
        #expect(try VaultFormat.open(sealed, master: opened.key).bytes == fixture("plaintext.json"))
        #expect(try VaultFormat.key(sealed, passphrase: SecureBytes(copying: Array("wrong horse".utf8))) == nil)
    }

    @Test func vectorTPMSlotUnwrapsWithTheTPMsKeyAndPINAuthMatches() throws {
        let sealed = try VaultFormat.parse(fixtureV2("vault"))
        let slot = try #require(sealed.slot(id: 1))
        #expect(TPM2Slot(parameters: slot.parameters) == tpmParameters)
        #expect(slot.unwrap(kek: tpmKEK, vaultSalt: sealed.salt)?.bytes == fileKey.bytes)
        #expect(slot.unwrap(kek: SecureBytes.random(count: 32), vaultSalt: sealed.salt) == nil)
        // Bound to its vault: the same slot under another vault salt does not unwrap.
        #expect(slot.unwrap(kek: tpmKEK, vaultSalt: Array(repeating: 9, count: 16)) == nil)
        let auth = TPM2Slot.authValue(pin: SecureBytes(copying: Array("123456".utf8)), pinSalt: Array(0x30..<0x40), vaultSalt: vaultSalt)
        #expect(auth.bytes == hexFixtureV2("pin-auth.hex"))
    }

    /// Where each byte of the vector lies, from the layout in FORMAT.md.
    struct Regions {
        let tpmRecord: Range<Int>
        let passphraseLastUsed: Range<Int>
        init(_ bytes: [UInt8]) throws {
            let sealed = try VaultFormat.parse(bytes)
            let checkedEnd = 52 + 1 + 64
            var at = checkedEnd + 32 + 1
            passphraseLastUsed = at + 10..<at + 18
            at += 20 + Int(sealed.slots[0].body.count)
            tpmRecord = at..<at + 20 + sealed.slots[1].body.count
        }
    }

    /// Every single-byte change and every truncation: the passphrase gives 4 or 5 — or
    /// opens, but only when the byte is in the TPM slot or a "last used" time, which the
    /// passphrase path does not read (a damaged slot leaves the others working).
    @Test func everySingleByteCorruption() throws {
        let original = fixtureV2("vault")
        let regions = try Regions(original)
        var opened = 0
        func attempt(_ bytes: [UInt8], offset: Int?) {
            do {
                let sealed = try VaultFormat.parse(bytes)
                _ = try VaultFormat.open(sealed, passphrase: passphrase)
                guard let offset, regions.tpmRecord.contains(offset) || regions.passphraseLastUsed.contains(offset) else {
                    Issue.record("a vault changed at \(offset.map(String.init) ?? "its end") opened")
                    return
                }
                opened += 1
            } catch {
                #expect(error.code == .wrongPassphrase || error.code == .damaged, "\(error.message)")
            }
        }
        for offset in original.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var bytes = original
                bytes[offset] ^= flip
                attempt(bytes, offset: offset)
            }
        }
        for length in 0..<original.count { attempt(Array(original[0..<length]), offset: nil) }
        attempt(original + [0], offset: nil)
        #expect(opened > 0)
    }

    @Test func aSwappedPublicKeyIsFoundAtTheNextOpen() throws {
        var bytes = fixtureV2("vault")
        bytes[53] ^= 0x01  // the first byte of the receiving key
        let sealed = try VaultFormat.parse(bytes)
        #expect(sealed.publicKeys?.receiving?.bytes != Array(0x80..<0xA0))
        #expect(throws: LommeError(.damaged, .vaultHeaderChanged, "the vault's header was changed or damaged (its key check does not match the key a slot holds); restore it from the .bak next to it")) {
            try VaultFormat.open(sealed, passphrase: passphrase)
        }
    }

    @Test func slotTableChangesKeepTheBody() throws {
        let sealed = try VaultFormat.parse(fixtureV2("vault"))
        let fewer = try VaultFormat.parse(VaultFormat.replacingSlots(sealed, with: [sealed.slots[0]]))
        #expect(fewer.slots.count == 1)
        #expect(try VaultFormat.open(fewer, passphrase: passphrase).plaintext.bytes == fixture("plaintext.json"))
        #expect(throws: LommeError.self) { try VaultFormat.open(VaultFormat.parse(VaultFormat.replacingSlots(sealed, with: [sealed.slots[1]])), passphrase: passphrase) }
    }

    @Test func roundTripWithFreshKeys() throws {
        let key = SecureBytes.random(count: 32)
        let slotParameters = PassphraseSlot(limits: .minimum, salt: Sodium.randomBytes(16))
        let salt = Sodium.randomBytes(16)
        let slot = PassphraseSlot.make(key, kek: try slotParameters.kek(passphrase), slot: slotParameters, id: 0, created: 1, vaultSalt: salt)
        var contents = VaultContents(config: Config(clientId: "a", clientSecret: "b", userId: "01010112345", accountNr: "12345678903"))
        contents.unknown = [JSON.Member("future", .array([.number("1")]))]
        let bytes = VaultFormat.seal(contents.plaintext(), master: key, layout: VaultLayout(salt: salt, publicKeys: VaultPublicKeys(), slots: [slot]))
        let back = try VaultContents(plaintext: VaultFormat.open(VaultFormat.parse(bytes), passphrase: passphrase).plaintext)
        #expect(back == contents)
    }

    @Test func pcrListsParse() {
        #expect(TPM2Slot.parsePCRs("7") == [7])
        #expect(TPM2Slot.parsePCRs("7+0") == [0, 7])
        #expect(TPM2Slot.parsePCRs("0,7") == [0, 7])
        for bad in ["", "24", "7+7", "-1", "a", "7+"] { #expect(TPM2Slot.parsePCRs(bad) == nil, "\(bad)") }
    }
}
