import Foundation
import LommeTestSupport
import Testing

/// The questions sealed import asks on a real terminal (tmux): compare the issuer
/// fingerprint on first use, and confirm dropping the pin for a plain code.
@Suite("Sealed import on a terminal (tmux)")
struct SealedTerminalTests {
    typealias Device = SealedFlowTests.Device

    /// A child's device, a sealed code its parent issued to it (in a file), the parent's
    /// issuer fingerprint, and the child's vault options quoted for a shell.
    static func aChildWithACode() throws -> (box: CLI.Sandbox, child: Device, parentPrint: String, code: String, options: String) {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let parentPrint = try SealedAttackTests.signingPrint(parent)
        let code = box.write("code.txt", try SealedAttackTests.issue(from: parent, to: child, in: box, name: "real"))
        return (box, child, parentPrint, code, child.options.map { "'\($0)'" }.joined(separator: " "))
    }

    @Test func firstUseAsksToCompareTheFingerprintAndAllowPlainAsksAgainDespiteYes() throws {
        let (box, child, parentPrint, code, options) = try Self.aChildWithACode()

        let first = TmuxSession(box, command: "\"$LV\" import --stdin \(options) < '\(code)'")
        first.wait(for: "Is \(parentPrint) the issuer fingerprint the parent's machine shows (under the code, or with `lomme-vault key --issuer`)? Store it and pin it?")
        first.type("y")
        // Stored; the receipt for the parent is offered, and drawn when asked for.
        first.wait(for: "Show a receipt for the parent to photograph (`lomme-vault child confirm` on their machine)?")
        first.type("y")
        first.wait(for: "EXIT=")
        #expect(first.screen.contains("EXIT=0") && first.screen.contains("Receipt for the code issued"), "\(first.screen)")
        #expect(first.screen.contains("▀") || first.screen.contains("▄"), "the receipt's QR code is drawn: \(first.screen)")
        #expect(SealedAttackTests.status(child).contains("pinned issuer: \(parentPrint)"))

        let plain = box.write("plain.json", Sample.configB)
        let before = readFile(box.path + "/child/vault")
        let again = TmuxSession(box, command: "\"$LV\" import --stdin --yes --no-check --allow-plain \(options) < '\(plain)'")
        again.wait(for: "Drop the pin and store the plain code?")
        again.type("n")
        again.wait(for: "EXIT=")
        #expect(again.screen.contains("EXIT=1") && again.screen.contains("the pin is kept"), "\(again.screen)")
        #expect(readFile(box.path + "/child/vault") == before, "answering no changed the vault")
    }

    /// `--expect-issuer` means "compared already" (for scripts): on a terminal too, a code
    /// of that issuer is stored and pinned with no question, as `import --help` says.
    @Test func expectIssuerAsksNothingOnATerminal() throws {
        let (box, child, parentPrint, code, options) = try Self.aChildWithACode()
        let tty = TmuxSession(box, command: "\"$LV\" import --stdin --expect-issuer \(parentPrint) \(options) < '\(code)'")
        tty.wait(for: "EXIT=")
        #expect(tty.screen.contains("EXIT=0") && !tty.screen.contains("[y/N]"), "\(tty.screen)")
        #expect(SealedAttackTests.status(child).contains("pinned issuer: \(parentPrint)"))
        let help = TmuxSession.flowing(CLI.run(["import", "--help"]).out)
        #expect(help.contains("asks on the terminal unless --yes or --expect-issuer") && help.contains("store and pin it without asking"), "\(help)")
    }
}
