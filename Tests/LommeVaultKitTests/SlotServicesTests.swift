import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// SlotService and the `tpm2` kind through the library: scripted answers, real files,
/// a real (software) TPM.
@Suite("Slot services")
struct SlotServicesTests {
    @Test func aNewPINIsAskedTwiceAndATooShortOneAgain() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let tpm = try SoftwareTPM()
        let asked = ScriptedInteraction([.secret("123"), .secret("246810"), .secret("246810")])
        let enrolled = try SlotService(box.context(asked, tpm: tpm.tcti)).enroll(.tpm2, UnlockOptions(source: .file(pw)),
                                                                                 SlotRequest(options: [.pin: PassphraseSource.terminal]))
        #expect(enrolled.id == 1 && TPM2Slot(parameters: enrolled.parameters)?.withPIN == true)
        #expect(enrolled.notes.contains { $0.hasPrefix("The TPM locks out after 3 wrong PINs") }, "\(enrolled.notes)")
        #expect(asked.questions == ["New TPM PIN: ", "New TPM PIN: ", "Repeat it: "])
        #expect(asked.notices.count == 1 && asked.notices[0].contains("too short"), "\(asked.notices)")
        // The slot opens with that PIN, asked once.
        let sealed = try VaultFormat.parse(try box.context(ScriptedInteraction()).store.read())
        let unlocking = ScriptedInteraction([.secret("246810")])
        let opened = try SlotKind.tpm2.open(box.context(unlocking, tpm: tpm.tcti), sealed, SlotRequest())
        #expect(opened.slot == 1)
        #expect(try VaultFormat.open(sealed, master: opened.key).count > 0)
        #expect(unlocking.questions.count == 1 && unlocking.questions[0].hasPrefix("TPM PIN for "))
    }

    @Test func aWrongPINOnATerminalIsAskedAgainWhileTheTPMAllows() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let tpm = try SoftwareTPM()
        _ = try SlotService(box.context(ScriptedInteraction(), tpm: tpm.tcti))
            .enroll(.tpm2, UnlockOptions(source: .file(pw)), SlotRequest(options: [.pin: PassphraseSource.file(box.file("pin", "135790\n"))]))
        let sealed = try VaultFormat.parse(try box.context(ScriptedInteraction()).store.read())
        let asked = ScriptedInteraction([.secret("0000"), .secret("135790")])
        _ = try SlotKind.tpm2.open(box.context(asked, tpm: tpm.tcti), sealed, SlotRequest())
        #expect(asked.notices == ["lomme-vault: wrong PIN; 2 tries left before the TPM locks out"], "\(asked.notices)")
    }

    @Test func listingNeedsNoKeyAndUnenrollKeepsTheLastPassphraseSlot() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        let (version, slots) = try SlotService(context).list()
        #expect(version == 2 && slots.map(\.kind) == ["passphrase"] && slots[0].id == 0)
        #expect(throws: LommeError.failure(.slotLastPassphrase, "slot 0 is the vault's only passphrase slot, the way in when a TPM is gone; it stays (`lomme-vault passwd` changes the passphrase)")) {
            try SlotService(context).unenroll("0", UnlockOptions(source: .file(pw)))
        }
    }
}
