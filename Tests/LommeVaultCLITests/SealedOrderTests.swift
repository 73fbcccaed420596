import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Sealed codes issued one after another by the built binary, as fast as it runs (several
/// fall in one second): each is newer than the last, so the child stores them in order and
/// refuses any earlier one afterwards. Decoded with zbarimg.
@Suite("Sealed codes in order (through the built binary)")
struct SealedOrderTests {
    typealias Device = SealedFlowTests.Device

    @Test func codesIssuedInQuickSuccessionImportInOrderAndNeverBackwards() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let codes = try (0..<3).map { try SealedAttackTests.issue(from: parent, to: child, in: box, name: "code\($0)") }
        for (index, code) in codes.enumerated() {
            let imported = child.run(["import", "--stdin", "--yes"], stdin: code)
            #expect(imported.status == 0, "code \(index): \(imported.stderr)")
        }
        for (index, code) in codes.dropLast().enumerated() {
            let replayed = child.run(["import", "--stdin", "--yes"], stdin: code)
            #expect(replayed.status == 7 && replayed.reason == .rollback, "code \(index): \(replayed.stderr)")
        }
    }

    /// A receiving key given to import is named for what it is, not parsed as a config.
    @Test func aReceivingKeyIsNotImportedAsAConfig() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let before = readFile(box.path + "/child/vault")
        expectRefusal(child.run(["import", "--stdin", "--yes"], stdin: child.key.text), 7, "receiving key")
        let unchanged = readFile(box.path + "/child/vault") == before
        #expect(unchanged)
    }
}
