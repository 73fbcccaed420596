import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A value typed at `set` on a terminal that fails its field's rule is said and asked again,
/// three tries in all, as a passphrase is; standard input's bad value ends the command.
@Suite("set asks again for a bad value on a terminal")
struct SetValueRetryTests {
    typealias Machine = HouseholdStoryTests.Machine

    static func parent() throws -> (CLI.Sandbox, Machine) {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        return (box, parent)
    }

    @Test func aBadValueIsAskedAgainThenTaken() throws {
        let (box, parent) = try Self.parent()
        let tty = TmuxSession(box, command: "\"$LV\" set accountNr --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'")
        try #require(tty.wait(for: "accountNr: "))
        tty.type("1234")
        // The notice, or the end (a command that does not ask again ends at once).
        try #require(TerminalKitTests.waitForAny(tty, ["; type it again.", "EXIT="]) == "; type it again.", "\(tty.flowed)")
        try #require(tty.wait(for: "accountNr: ", count: 2))
        tty.type("97104133219")
        try #require(tty.wait(for: "EXIT="))
        let screen = tty.flowed
        #expect(screen.contains("accountNr must be an 11-digit Norwegian account number, like 1234 56 78903; type it again.") && screen.contains("EXIT=0"), "\(screen)")
        #expect(parent.run(["get", "accountNr"]).out == "97104133219")
    }

    @Test func threeBadValuesEndTheCommandAndStandardInputsOneDoes() throws {
        let (box, parent) = try Self.parent()
        let before = readFile(parent.vault)
        let tty = TmuxSession(box, command: "\"$LV\" set userId --vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'")
        for attempt in 1...3 {
            try #require(tty.wait(for: "userId: ", count: attempt))
            tty.type("not a number \(attempt)")
            if attempt < 3 {
                try #require(TerminalKitTests.waitForAny(tty, ["; type it again.", "EXIT="]) != "EXIT=", "\(tty.flowed)")
            }
        }
        try #require(tty.wait(for: "EXIT="))
        let screen = tty.flowed
        #expect(screen.components(separatedBy: "; type it again.").count == 3 && screen.contains("EXIT=7"), "\(screen)")
        #expect(readFile(parent.vault) == before)
        let piped = parent.run(["set", "userId"], stdin: "not a number\n")
        #expect(piped.status == 7 && !piped.stderr.contains("type it again"), "\(piped.stderr)")
        #expect(readFile(parent.vault) == before)
    }
}
