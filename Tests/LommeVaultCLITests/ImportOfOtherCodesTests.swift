import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `import` of a photo of one of lomme-vault's own codes that is no config (a recovery
/// kit, a child's receipt): named as `scan` names it, with what to do with it instead;
/// exit 7, the vault unchanged.
@Suite("import of lomme-vault's other codes")
struct ImportOfOtherCodesTests {
    typealias Machine = HouseholdStoryTests.Machine

    @Test func aKitOrAReceiptIsNamedWithWhatToDo() throws {
        let (box, parent, anna, _) = try ChildDeviceTests.household()
        let laptop = Machine(box, "laptop")
        let kit = box.path + "/kit.png"
        try #require(laptop.run(["init", "--parent", "--recovery-kit", kit]).status == 0)
        try #require(anna.run(["receipt", "--output", box.path + "/receipt.png"]).status == 0)
        let annaVault = box.path + "/anna/vault"
        let before = (readFile(annaVault), readFile(parent.vault))

        let kitImported = anna.run(["import", kit, "--yes"])
        let kitSaid = TmuxSession.flowing(kitImported.stderr)
        #expect(kitImported.status == 7 && kitImported.reason == .codeIsRecoveryKit && kitSaid.contains("the QR code in \(kit) is a household's recovery kit, not a config")
                && kitSaid.contains("`lomme-vault init --parent --restore --recovery-image PHOTO`"), "\(kitImported.stderr)")
        #expect(!kitSaid.contains("other text"), "\(kitImported.stderr)")

        let receiptImported = parent.run(["import", box.path + "/receipt.png", "--yes"])
        let receiptSaid = TmuxSession.flowing(receiptImported.stderr)
        #expect(receiptImported.status == 7 && receiptImported.reason == .codeIsReceipt && receiptSaid.contains("is a child's receipt (what `lomme-vault receipt` shows), not a config")
                && receiptSaid.contains("checks it with `lomme-vault child confirm PHOTO`"), "\(receiptImported.stderr)")
        #expect(!receiptSaid.contains("other text"), "\(receiptImported.stderr)")
        #expect(readFile(annaVault) == before.0 && readFile(parent.vault) == before.1)
        // Given as text on standard input: the same words.
        let text = anna.run(["receipt", "--text"]).out
        let piped = parent.run(["import", "--stdin", "--yes"], stdin: text)
        #expect(piped.status == 7 && piped.reason == .codeIsReceipt && TmuxSession.flowing(piped.stderr).contains("this is a child's receipt (what `lomme-vault receipt` shows), not a config"), "\(piped.stderr)")
    }
}
