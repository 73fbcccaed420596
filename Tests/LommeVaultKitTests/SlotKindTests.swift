import Glibc
import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// The slot kinds through the library: one registry with unique names and kind bytes, each
/// kind's round trip (make a key-encryption key, wrap the file key, open it again) with real
/// files and real crypto, and a kind the tests add working through every service.
@Suite("Slot kinds")
struct SlotKindTests {
    @Test func theRegistryHasUniqueNamesAndBytesAndFindsEach() {
        let kinds = SlotKinds.builtIn
        let names = kinds.all.map(\.name)
        let bytes = kinds.all.map(\.byte.rawValue)
        #expect(Set(names).count == names.count && Set(bytes).count == bytes.count, "\(names) \(bytes)")
        #expect(names == ["passphrase", "tpm2", "keyfile", "recovery"] && bytes == [1, 2, 3, 4])
        for kind in kinds.all {
            #expect(kinds.named(kind.name)?.byte == kind.byte)
            #expect(kinds.of(kind.byte)?.name == kind.name)
        }
        #expect(kinds.named("fido2") == nil && kinds.of(VaultSlot.Kind(rawValue: 99)) == nil)
        #expect(kinds.enrollableNames == ["tpm2", "keyfile"])
        #expect(kinds.all.filter(\.standsForPassphrase).map(\.name) == ["recovery"])
        // Only a TPM slot (without PIN) and the recovery slot (with the kit) can take a new file key.
        #expect(kinds.all.filter { $0.rewrap != nil }.map(\.name) == ["tpm2", "recovery"])
    }

    @Test func aKeyFileRoundTripsAndIsBoundToItsVault() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        let path = box.path + "/vault.key"
        let enrolled = try SlotService(context).enroll(.keyFile, UnlockOptions(source: .file(pw)), SlotRequest(argument: path))
        #expect(enrolled.id == 1 && enrolled.summary.hasPrefix("keyfile "))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == 32 && info.st_mode & 0o777 == 0o400)
        let sealed = try VaultFormat.parse(try context.store.read())
        let opened = try SlotKind.keyFile.open(context, sealed, SlotRequest(argument: path))
        #expect(opened.slot == 1 && (try? VaultFormat.open(sealed, master: opened.key)) != nil)
        #expect(SlotService(context).info(sealed.slot(id: 1)!).details == "key file")
        // One file gives another key-encryption key in another vault, or another slot.
        let file = SecureBytes.random(count: 32)
        let salt = Sodium.randomBytes(16), otherSalt = Sodium.randomBytes(16)
        let kek = KeyFileSlotKind.kek(file: file, slotSalt: salt, vaultSalt: sealed.salt)
        #expect(!kek.isEqual(to: KeyFileSlotKind.kek(file: file, slotSalt: salt, vaultSalt: Sodium.randomBytes(16))))
        #expect(!kek.isEqual(to: KeyFileSlotKind.kek(file: file, slotSalt: otherSalt, vaultSalt: sealed.salt)))
        #expect(kek.isEqual(to: KeyFileSlotKind.kek(file: file, slotSalt: salt, vaultSalt: sealed.salt)))
        // A second key file of the same vault does not open the first one's slot.
        let second = box.path + "/second.key"
        #expect(throws: LommeError.self) {
            _ = try SlotService(context).enroll(.keyFile, UnlockOptions(source: .file(pw)), SlotRequest(argument: path))
        }
        _ = try SlotService(context).enroll(.keyFile, UnlockOptions(source: .file(pw)), SlotRequest(argument: second))
        let both = try VaultFormat.parse(try context.store.read())
        #expect(try SlotKind.keyFile.open(context, both, SlotRequest(argument: second)).slot == 2)
        #expect(try SlotKind.keyFile.open(context, both, SlotRequest(argument: path)).slot == 1)
    }

    /// A file that appears at the path after `make`'s first step said there was none (while
    /// the passphrase is asked) is never overwritten: the second step creates it with O_EXCL.
    @Test func aKeyFileThatAppearsAfterTheCheckIsNeverOverwritten() throws {
        let box = ServiceBox()
        let context = box.context(ScriptedInteraction(canAsk: false))
        let make = try SlotKind.keyFile.make(context, SlotRequest(argument: box.path + "/late.key"))
        let late = box.file("late.key", "written meanwhile\n")
        let refused = #expect(throws: LommeError.self) { try make(Sodium.randomBytes(16)) }
        #expect(refused?.reason == .outputFileExists, "\(String(describing: refused))")
        #expect(String(decoding: readFile(late), as: UTF8.self) == "written meanwhile\n")
    }

    @Test func thePassphraseKindCannotBeEnrolledAndAKeyFileSlotIsKeptByPasswd() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        #expect(throws: LommeError.self) {
            _ = try SlotService(context).enroll(.passphrase, UnlockOptions(source: .file(pw)), SlotRequest())
        }
        _ = try SlotService(context).enroll(.keyFile, UnlockOptions(source: .file(pw)), SlotRequest(argument: box.path + "/k.key"))
        let changed = try UnlockService(context).changePassphrase(old: UnlockOptions(source: .file(pw)), new: .file(box.file("new", "another passphrase 2026")))
        #expect(!changed.rotated && changed.kept.map(\.id) == [1])
    }

    /// The proof that a kind is one file and one line: `SharedSecretSlotKind.swift`, which
    /// only the tests have, registered in this test's context alone, is enrolled, listed by
    /// `slots`, opens a session, is kept by `passwd`, and is unenrolled by its name, through
    /// the services and real crypto (the kernel keyring too).
    @Test func aKindTheTestsAddEnrollsListsUnlocksAndUnenrolls() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false), slotKinds: SlotKinds.builtIn.adding(.sharedSecret))
        let secret = SecureBytes.random(count: 32)
        let request = SlotRequest(options: [.sharedSecret: secret], noPrompt: true)
        let enrolled = try SlotService(context).enroll(.sharedSecret, UnlockOptions(source: .file(pw)), request)
        #expect(enrolled.id == 1 && enrolled.summary == "shared secret")
        let listed = try SlotService(context).list().slots
        #expect(listed.map(\.kind) == ["passphrase", "shared-secret"] && listed[1].details == "shared secret" && listed[1].readable)
        // Without the registration the slot is one of a newer lomme-vault's, kept as it is.
        let unknown = try SlotService(box.context(ScriptedInteraction(canAsk: false))).list().slots[1]
        #expect(unknown.kind == "unknown kind 127" && !unknown.readable)

        let unlocked = try UnlockService(context).unlock(with: .sharedSecret, idle: 60, request)
        #expect(!unlocked.keptLiveSession)
        let sealed = try VaultFormat.parse(try context.store.read())
        let session = try #require(Session.fromKeyring(context, sealed, refresh: false))
        #expect(session.state.openedBy == SlotKind.sharedSecret.byte)
        #expect(try UnlockService(context).lock() == .forgot(sessions: 1, tokens: 0))
        let other = SlotRequest(options: [.sharedSecret: SecureBytes.random(count: 32)], noPrompt: true)
        #expect((#expect(throws: LommeError.self) { try UnlockService(context).unlock(with: .sharedSecret, idle: 60, other) })?.code == .wrongPassphrase)

        // passwd keeps the file key for a kind without `rewrap`, so the secret still opens.
        let newPhrase = box.file("new", "another passphrase 2026")
        let changed = try UnlockService(context).changePassphrase(old: UnlockOptions(source: .file(pw)), new: .file(newPhrase))
        #expect(!changed.rotated && changed.kept.map(\.id) == [1])
        #expect(try SlotKind.sharedSecret.open(context, try VaultFormat.parse(try context.store.read()), request).slot == 1)

        let removed = try SlotService(context).unenroll("shared-secret", UnlockOptions(source: .file(newPhrase)))
        #expect(removed.id == 1 && removed.kind == "shared-secret")
        #expect(try SlotService(context).list().slots.map(\.kind) == ["passphrase"])
    }
}
