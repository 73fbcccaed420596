import Glibc
import LommeCore
import LommeTestSupport
@testable import LommeVaultKit
import Testing

/// The slot kinds through the library: one registry with unique names and kind bytes, and
/// each kind's round trip (make a key-encryption key, wrap the file key, open it again)
/// with real files and real crypto.
@Suite("Slot kinds")
struct SlotKindTests {
    @Test func theRegistryHasUniqueNamesAndBytesAndFindsEach() {
        let names = SlotKinds.all.map { $0.name }
        let bytes = SlotKinds.all.map { $0.kind.rawValue }
        #expect(Set(names).count == names.count && Set(bytes).count == bytes.count, "\(names) \(bytes)")
        #expect(names == ["passphrase", "tpm2", "keyfile", "recovery"])
        for kind in SlotKinds.all {
            #expect(SlotKinds.named(kind.name)?.kind == kind.kind)
            #expect(SlotKinds.of(kind.kind)?.name == kind.name)
        }
        #expect(SlotKinds.named("fido2") == nil && SlotKinds.of(VaultSlot.Kind(rawValue: 99)) == nil)
        #expect(SlotKinds.enrollableNames == ["tpm2", "keyfile"])
    }

    @Test func aKeyFileRoundTripsAndIsBoundToItsVault() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        let path = box.path + "/vault.key"
        let enrolled = try SlotService(context).enroll(KeyFileSlotKind.self, UnlockOptions(source: .file(pw)), SlotRequest(argument: path))
        #expect(enrolled.id == 1 && enrolled.summary.hasPrefix("keyfile "))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == 32 && info.st_mode & 0o777 == 0o400)
        let sealed = try VaultFormat.parse(try context.store.read())
        let opened = try KeyFileSlotKind(context).open(sealed, SlotRequest(argument: path))
        #expect(opened.slot == 1 && (try? VaultFormat.open(sealed, master: opened.key)) != nil)
        #expect(SlotService.Info.of(sealed.slot(id: 1)!).details == "key file")
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
            _ = try SlotService(context).enroll(KeyFileSlotKind.self, UnlockOptions(source: .file(pw)), SlotRequest(argument: path))
        }
        _ = try SlotService(context).enroll(KeyFileSlotKind.self, UnlockOptions(source: .file(pw)), SlotRequest(argument: second))
        let both = try VaultFormat.parse(try context.store.read())
        #expect(try KeyFileSlotKind(context).open(both, SlotRequest(argument: second)).slot == 2)
        #expect(try KeyFileSlotKind(context).open(both, SlotRequest(argument: path)).slot == 1)
    }

    @Test func thePassphraseKindCannotBeEnrolledAndNothingReWrapsWithoutAQuestionButATPMWithoutPIN() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        #expect(throws: LommeError.self) {
            _ = try SlotService(context).enroll(PassphraseSlotKind.self, UnlockOptions(source: .file(pw)), SlotRequest())
        }
        let path = box.path + "/k.key"
        _ = try SlotService(context).enroll(KeyFileSlotKind.self, UnlockOptions(source: .file(pw)), SlotRequest(argument: path))
        let sealed = try VaultFormat.parse(try context.store.read())
        for asking in [false, true] {
            #expect(try KeyFileSlotKind(context).rewrapKEK(sealed.slots[1], from: sealed.salt, to: sealed.salt, SlotRequest(), asking: asking) == nil)
            #expect(try PassphraseSlotKind(context).rewrapKEK(sealed.slots[0], from: sealed.salt, to: sealed.salt, SlotRequest(), asking: asking) == nil)
        }
    }
}
