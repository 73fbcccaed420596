import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A forgotten passphrase: what the last wrong try says.
@Suite("A forgotten passphrase")
struct ForgottenPassphraseTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// Three wrong passphrases on a vault with a recovery kit: the last line says how the
    /// kit opens it; on a vault without one it says nothing of it.
    @Test func theThirdWrongPassphrasePointsToTheRecoveryKit() throws {
        let box = CLI.Sandbox()
        let withKit = Machine(box, "kit"), without = Machine(box, "nokit")
        try #require(withKit.run(["init", "--parent", "--recovery-kit", box.path + "/kit.pdf"]).status == 0)
        try #require(without.run(["init", "--parent"]).status == 0)
        for (machine, hinted) in [(withKit, true), (without, false)] {
            let session = TmuxSession(box, command: "\"$LV\" get clientId --vault '\(machine.vault)'")
            for attempt in 1...3 {
                session.wait(for: "Passphrase for ", count: attempt)
                session.type("not the passphrase \(attempt)")
            }
            session.wait(for: "EXIT=")
            let screen = session.flowed
            #expect(screen.contains("wrong passphrase for \(machine.vault) (3 tries)") && screen.contains("EXIT=4"), "\(screen)")
            #expect(screen.contains("if the passphrase is forgotten, the recovery kit's key opens the vault: `lomme-vault unlock --with recovery`, then `lomme-vault passwd`") == hinted, "\(screen)")
        }
    }
}
