import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// docs/contract.md, "Files", asserted on the file's bytes and modes.
@Suite("Promises: the vault file")
struct PromiseVaultFileTests {
    /// Version 2 offsets (FORMAT.md): the vault salt and the body nonce are fixed; the key
    /// check and the first slot come after the public keys, whose length is in the header.
    static let salt = 10..<26, nonce = 26..<50
    static func checkedEnd(_ bytes: [UInt8]) -> Int { 52 + Int(bytes[50]) + Int(bytes[51]) << 8 }
    /// The first slot's parameters (a passphrase slot: KDF id, opslimit, memlimit, salt).
    static func firstSlotParameters(_ bytes: [UInt8]) -> Int { checkedEnd(bytes) + 32 + 1 + 20 }

    @Test func everyWriteHasAFreshNonceAndPasswdAFreshSalt() throws {
        let vault = PromiseVault()
        let first = vault.bytes
        #expect(vault.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        let second = vault.bytes
        #expect(second[Self.salt] == first[Self.salt], "an import keeps the key and its salt")
        #expect(second[Self.nonce] != first[Self.nonce], "an import re-sealed under the same key with the same nonce")
        let pw2 = vault.box.write("pw2", "the second promise passphrase\n")
        #expect(vault.run(["passwd", "--new-passphrase-file", pw2]).status == 0)
        let third = vault.bytes
        #expect(third[Self.salt] != second[Self.salt], "passwd kept the salt")
        #expect(third[Self.nonce] != second[Self.nonce], "passwd kept the nonce")
        let slotSalt = { (bytes: [UInt8]) in bytes[(Self.firstSlotParameters(bytes) + 13)..<(Self.firstSlotParameters(bytes) + 29)] }
        #expect(slotSalt(third) != slotSalt(second), "passwd kept the passphrase slot's salt")
    }

    /// An independent reader (PyNaCl, from FORMAT.md) opens the file: Argon2id13, the
    /// subkeys, the key check, and the whole header as associated data — without it, no.
    @Test func anIndependentReaderOpensItWithTheHeaderAsAssociatedData() throws {
        let vault = PromiseVault()
        let script = packageRoot + "/Tests/scripts/vault-open.py"
        let opened = CLI.run([], shell: "/usr/bin/python3 '\(script)' '\(vault.box.vault)' '\(vault.pw)'")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.out.contains(#""clientId":"client-A""#), "\(opened.out.prefix(80))")
        let withoutAD = CLI.run([], shell: "/usr/bin/python3 '\(script)' '\(vault.box.vault)' '\(vault.pw)' --ad none")
        #expect(withoutAD.status == 5, "the body authenticates without the header as associated data")
    }

    /// Forged headers are refused as damaged (exit 5) from the header alone: no KDF runs,
    /// so a forged header cannot make the tool spend time or memory.
    /// (Offsets in the passphrase slot's parameters; -1 is the header's flags byte.)
    @Test(arguments: [
        (0, [UInt8(2)], "not understood"),                                           // KDF id
        (-1, [1], "unknown header flags"),
        (1, [11, 0, 0, 0], "outside what lomme-vault allows"),                       // 11 passes
        (5, [0, 4, 0, 64, 0, 0, 0, 0], "outside what lomme-vault allows"),           // 1 GiB + 1 KiB
        (5, [0, 16, 0, 0, 0, 0, 0, 0], "outside what lomme-vault allows"),           // 4 KiB
    ] as [(Int, [UInt8], String)])
    func forgedHeadersAreDamagedBeforeAnyKDF(_ field: Int, _ value: [UInt8], _ words: String) {
        let vault = PromiseVault()
        var bytes = vault.bytes
        let offset = field < 0 ? 9 : Self.firstSlotParameters(bytes) + field
        bytes.replaceSubrange(offset..<offset + value.count, with: value)
        vault.replace(with: bytes)
        expectRefusal(vault.run(["get", "clientId"]), 5, words)
    }

    /// The key check is compared whole: a check value wrong in its first or last byte is a
    /// changed header (exit 5: the passphrase slot gave an authenticated key), and says so.
    @Test(arguments: [0, 31])
    func theKeyCheckIsComparedWhole(_ index: Int) {
        let vault = PromiseVault()
        var bytes = vault.bytes
        bytes[Self.checkedEnd(bytes) + index] ^= 0x01
        vault.replace(with: bytes)
        expectRefusal(vault.run(["get", "clientId"]), 5, "header was changed")
    }

    @Test func aWrongPassphraseIsExitFourAndABadBodyExitFive() {
        let vault = PromiseVault()
        let wrong = vault.box.write("wrong", "not the passphrase\n")
        expectRefusal(CLI.run(["get", "clientId", "--passphrase-file", wrong] + vault.args), 4, "wrong passphrase")
        var bytes = vault.bytes
        bytes[bytes.count - 1] ^= 0x01
        vault.replace(with: bytes)
        expectRefusal(vault.run(["get", "clientId"]), 5, "does not authenticate")
    }

    /// Mode 0600 in a 0700 directory; a vault any other bit lets others read is refused.
    @Test func modesAreExactAndEveryGroupOrOtherBitIsRefused() throws {
        let vault = PromiseVault()
        #expect(CLI.mode(vault.box.vault) == 0o600)
        #expect(CLI.mode(vault.box.path + "/data") == 0o700)
        for bit in [0o040, 0o020, 0o010, 0o004, 0o002, 0o001] {
            #expect(chmod(vault.box.vault, mode_t(0o600 | bit)) == 0)
            expectRefusal(vault.run(["get", "clientId"]), 1, "chmod 600")
        }
        #expect(chmod(vault.box.vault, 0o600) == 0)
        #expect(vault.run(["get", "clientId"]).out == "client-A")
    }

    @Test(.enabled(if: getuid() == 0, "only root can give a file to another user"))
    func aVaultOfAnotherUserIsRefused() {
        let vault = PromiseVault()
        #expect(chown(vault.box.vault, 65534, 65534) == 0)
        expectRefusal(vault.run(["get", "clientId"]), 1, "belongs to another user")
    }

    @Test func aSymbolicLinkIsNotFollowed() {
        let vault = PromiseVault()
        let link = vault.box.path + "/link"
        #expect(symlink(vault.box.vault, link) == 0)
        expectRefusal(CLI.run(["get", "clientId", "--vault", link, "--passphrase-file", vault.pw]), 1, "symbolic link")
    }

    @Test func theBakIsTheLastGoodVersion() {
        let vault = PromiseVault()
        let first = vault.bytes
        #expect(vault.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        #expect(readFile(vault.box.vault + ".bak") == first)
        #expect(CLI.mode(vault.box.vault + ".bak") == 0o600)
    }
}
