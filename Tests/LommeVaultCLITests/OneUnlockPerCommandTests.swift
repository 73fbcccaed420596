import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// One unlock serves the whole command: the passphrase is asked once.
@Suite("One unlock a command")
struct OneUnlockPerCommandTests {
    /// A child types the passphrase once: the receipt `import` offers is made from the
    /// vault the import opened.
    @Test func importAsksThePassphraseOnceForTheReceiptToo() throws {
        let (box, _, parentPrint, code, _) = try SealedTerminalTests.aChildWithACode()
        let session = TmuxSession(box, command: "\"$LV\" import --stdin --vault '\(box.path)/child/vault' < '\(code)'")
        session.wait(for: "Passphrase for ")
        session.type("child passphrase 2026")
        session.wait(for: "Is \(parentPrint) the issuer fingerprint")
        session.type("y")
        session.wait(for: "Show a receipt for the parent to photograph")
        session.type("y")
        // Until the command ends, or asks for the passphrase a second time (which nobody types).
        var screen = ""
        for _ in 0..<12_000 {
            screen = session.screen
            if screen.contains("EXIT=") || screen.components(separatedBy: "Passphrase for ").count > 2 { break }
            usleep(50_000)
        }
        #expect(screen.components(separatedBy: "Passphrase for ").count == 2, "the passphrase was asked again: \(screen)")
        #expect(screen.contains("EXIT=0") && screen.contains("Receipt for the code issued"), "\(screen)")
    }
}
