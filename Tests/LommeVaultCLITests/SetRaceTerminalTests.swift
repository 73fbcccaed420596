import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Through the built binary: `set nickname` waits on a terminal for the value while another
/// shell runs `unset nickname`; the value typed then is refused (exit 6, a new field needs
/// `set --new`), and the field stays gone. The `unset` runs while the prompt is on the
/// screen, so the race is the same every time.
@Suite("set on a terminal re-checks the field under the lock")
struct SetRaceTerminalTests {
    typealias Family = RecordTruthTests.Family

    @Test func aFieldUnsetWhileItsValueIsTypedIsNotBroughtBack() throws {
        let family = try Family()
        let parent = family.parent
        try #require(parent.run(["set", "--new", "nickname"], stdin: "Kari\n").status == 0)
        let tty = TmuxSession(family.box, command: "\"$LV\" set nickname \(family.parentOptions)")
        try #require(tty.wait(for: "nickname: "))
        #expect(parent.run(["unset", "nickname"]).status == 0)
        let before = readFile(parent.vault)
        tty.type("Ola")
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=6"), "\(tty.screen)")
        let unchanged = readFile(parent.vault) == before
        #expect(unchanged, "the refused set wrote the vault")
        let config = try #require(try family.plaintext()["config"] as? [String: Any])
        #expect(config["nickname"] == nil, "set brought the field back without --new: \(config)")
    }
}
