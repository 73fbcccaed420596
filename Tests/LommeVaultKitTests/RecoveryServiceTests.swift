import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// The recovery kit through the library: made with the vault, it opens it (the recovery
/// slot), it is checked without changing anything, a new kit needs the old, and a new
/// laptop restored from it vouches for itself only; the vault never holds the key or the
/// household key's private half.
@Suite("Recovery kit services")
struct RecoveryServiceTests {
    static func parent(kit: Bool = true) throws -> (ServiceBox, UnlockOptions, RecoveryKey?) {
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        let key = kit ? RecoveryKey.generate() : nil
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(source: .file(pw), noPrompt: false, refusal: "", recovery: key)
        return (box, UnlockOptions(source: .file(pw)), key)
    }

    static func contents(_ box: ServiceBox, _ options: UnlockOptions) throws -> VaultContents {
        try Session.open(box.context(ScriptedInteraction()), options, useKeyring: false).contents
    }

    @Test func theKitOpensTheVaultAndItsHouseholdKeyVouchesForThisMachine() throws {
        let (box, options, made) = try Self.parent()
        let key = try #require(made)
        let contents = try Self.contents(box, options)
        let root = try #require(contents.household.root)
        #expect(root.publicKey == key.householdKey.publicKey && root.vouch.isSigned(by: root.publicKey))
        let issuer = try #require(contents.identity).signing.publicKey
        #expect(root.vouch.names(issuer) && root.vouch.issuers.count == 1)
        // Neither the recovery key nor the household key's private half is in the vault.
        let plaintext = Array(contents.json.text.utf8)
        #expect(!plaintext.contains(Array(Sodium.hex(key.householdKey.secretKey.bytes).utf8)))
        #expect(!plaintext.contains(Array(key.text.utf8)) && !plaintext.contains(Array(key.text.replacingOccurrences(of: "-", with: "").utf8)))
        // unlock --with recovery: the slot opens it, with the key from a file as printed.
        let file = box.file("kit.txt", "  " + key.text.replacingOccurrences(of: "-", with: " - ") + "\n")
        let unlocked = try UnlockService(box.context(ScriptedInteraction())).unlock(with: .recovery, idle: 60,
                                                                                    SlotRequest(options: [.recovery: RecoveryKeySource.file(file)], noPrompt: true))
        #expect(unlocked.deadline > 0)
        _ = try? UnlockService(box.context(ScriptedInteraction())).lock()
        let wrong = #expect(throws: LommeError.self) {
            try UnlockService(box.context(ScriptedInteraction())).unlock(with: .recovery, idle: 60,
                                                                         SlotRequest(options: [.recovery: RecoveryKeySource.file(box.file("other", RecoveryKey.generate().text))], noPrompt: true))
        }
        #expect(wrong?.code == .wrongPassphrase)
    }

    @Test func verifyChangesNothingAndTellsAWrongKeyOrATypo() throws {
        let (box, _, made) = try Self.parent()
        let key = try #require(made)
        let before = try Data(contentsOf: URL(fileURLWithPath: box.vault))
        let service = RecoveryService(box.context(ScriptedInteraction()), UnlockOptions(noPrompt: true))
        let checked = try service.verify(.photo(text: key.qrText, path: "kit.jpg"))
        #expect(checked.publicKey == key.householdKey.publicKey)
        #expect((#expect(throws: LommeError.self) { try service.verify(.photo(text: RecoveryKey.generate().qrText, path: "x")) })?.code == .wrongPassphrase)
        var typo = Array(key.text)
        typo[7] = typo[7] == "A" ? "B" : "A"
        let error = #expect(throws: LommeError.self) { try service.verify(.photo(text: String(typo), path: "kit.jpg")) }
        #expect(error?.reason == .recoveryKeyTypo && error?.message.contains("group 2") == true)
        // Typed on a terminal: a typo is told and asked again.
        let asked = ScriptedInteraction([.secret(String(typo)), .secret(key.text.lowercased())])
        #expect(try RecoveryService(box.context(asked), UnlockOptions()).verify(.terminal).publicKey == key.householdKey.publicKey)
        #expect(asked.notices.contains { $0.contains("group 2 of the recovery key has a typo") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.vault)) == before, "verify wrote the vault")
    }

    @Test func aNewKitNeedsTheOldOneWhichVouchesForIt() throws {
        let (box, options, made) = try Self.parent()
        let old = try #require(made)
        let service = RecoveryService(box.context(ScriptedInteraction()), options)
        let needsOld = #expect(throws: LommeError.self) { try service.planKit(old: nil) }
        #expect(needsOld?.code == .usage && needsOld?.reason == .recoveryKitNeeded)
        let stranger = #expect(throws: LommeError.self) { try service.planKit(old: .photo(text: RecoveryKey.generate().qrText, path: "x")) }
        #expect(stranger?.code == .wrongPassphrase && stranger?.reason == .recoveryKeyWrong)
        let kit = try service.planKit(old: .photo(text: old.qrText, path: "kit.jpg"))
        #expect(try Self.contents(box, options).household.root?.publicKey == old.householdKey.publicKey, "nothing written before store")
        try service.store(kit)
        #expect(kit.replaced && kit.root.rotations.map(\.old) == [old.householdKey.publicKey])
        #expect(RootRotation.leads(kit.root.rotations, to: kit.key.householdKey.publicKey) && kit.key.chain == kit.root.rotations)
        let contents = try Self.contents(box, options)
        let issuer = try #require(contents.identity).signing.publicKey
        #expect(contents.household.root == kit.root && kit.root.vouch.names(issuer))
        // The new key opens the vault; the old one no longer does (its slot was replaced).
        let sealed = try VaultFormat.parse(try VaultStore(path: box.vault).read())
        #expect(sealed.slots.filter { $0.kind == SlotKind.recovery.byte }.count == 1)
        let context = box.context(ScriptedInteraction())
        #expect(try SlotKind.recovery.open(context, sealed, SlotRequest(options: [.recovery: RecoveryKeySource.photo(text: kit.key.qrText, path: "k")])).slot > 0)
        #expect(throws: LommeError.self) {
            try SlotKind.recovery.open(context, sealed, SlotRequest(options: [.recovery: RecoveryKeySource.photo(text: old.qrText, path: "k")]))
        }
    }

    @Test func aVaultFromBeforeKitsGetsItsFirstKitWithoutAnOldOne() throws {
        let (box, options, _) = try Self.parent(kit: false)
        #expect(try Self.contents(box, options).household.root == nil)
        let service = RecoveryService(box.context(ScriptedInteraction()), options)
        let kit = try service.planKit(old: nil)
        try service.store(kit)
        #expect(!kit.replaced && kit.root.rotations.isEmpty)
        #expect(try Self.contents(box, options).household.root == kit.root)
    }

    @Test func aNewLaptopVouchesForItselfOnlyWithANewerVersion() throws {
        let (box, options, made) = try Self.parent()
        let key = try #require(made)
        let lost = try #require(try Self.contents(box, options).household.root)
        let laptop = ServiceBox()
        let pw = laptop.file("pw", servicePhrase)
        let service = RecoveryService(laptop.context(ScriptedInteraction()), UnlockOptions(source: .file(pw), noPrompt: true))
        let restored = try service.restore(.photo(text: key.qrText, path: "kit.jpg"))
        #expect(restored.root.publicKey == lost.publicKey, "the same household key")
        #expect(restored.root.vouch.version > lost.vouch.version, "a newer vouch (milliseconds): \(restored.root.vouch.version) \(lost.vouch.version)")
        #expect(restored.root.vouch.issuers == [restored.identity.signing.publicKey.id], "only the new laptop")
        let again = #expect(throws: LommeError.self) { try service.restore(.photo(text: key.qrText, path: "kit.jpg")) }
        #expect(again?.code == .failure && again?.reason == .vaultExists)
        // The kit opens the new laptop's vault too.
        let sealed = try VaultFormat.parse(try VaultStore(path: laptop.vault).read())
        #expect(try SlotKind.recovery.open(laptop.context(ScriptedInteraction()), sealed, SlotRequest(options: [.recovery: key])).slot > 0)
    }

    /// `passwd --rotate` on a terminal asks for the recovery key (after saying why) before the
    /// new passphrase, and the recovery slot takes the new file key: the kit still opens it.
    @Test func passwdRotateAsksForTheKitOnATerminal() throws {
        let (box, options, made) = try Self.parent()
        let key = try #require(made)
        let asked = ScriptedInteraction([.secret(key.text), .secret("a rotated passphrase 2026"), .secret("a rotated passphrase 2026")])
        let result = try UnlockService(box.context(asked)).changePassphrase(old: options, new: .terminal, forceRotation: true)
        #expect(result.rotated && result.removed.isEmpty)
        #expect(asked.notices.contains { $0.contains("recovery slot takes it too") })
        let sealed = try VaultFormat.parse(try VaultStore(path: box.vault).read())
        let opened = try SlotKind.recovery.open(box.context(ScriptedInteraction()), sealed, SlotRequest(options: [.recovery: key]))
        #expect(try VaultFormat.open(sealed, master: opened.key).count > 0)
    }

    /// Two `recovery kit` runs that planned from the same household: the first one's kit
    /// is stored; the second, re-checked under the write lock, writes nothing (its sheet
    /// would open nothing and vouch for nothing the vault holds).
    @Test func aKitPlannedBeforeAnotherWasStoredIsRefusedUnderTheLock() throws {
        let (box, options, made) = try Self.parent()
        let old = try #require(made)
        let service = RecoveryService(box.context(ScriptedInteraction()), options)
        let first = try service.planKit(old: .photo(text: old.qrText, path: "kit.jpg"))
        let second = try service.planKit(old: .photo(text: old.qrText, path: "kit.jpg"))
        try service.store(first)
        let before = try Data(contentsOf: URL(fileURLWithPath: box.vault))
        #expect(throws: LommeError.self) { try service.store(second) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: box.vault)) == before)
        #expect(try Self.contents(box, options).household.root == first.root)
    }
}
