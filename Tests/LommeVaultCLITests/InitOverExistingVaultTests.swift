import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `init` over an existing vault: refused before anything is made, shown or asked.
@Suite("init over an existing vault")
struct InitOverExistingVaultTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// `init --parent` on an existing vault says so before a kit is made: on a terminal no
    /// kit is drawn and no group asked; with --recovery-kit no file appears.
    @Test func initOnAnExistingVaultSaysSoBeforeAnyKit() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"]).status == 0)
        let before = readFile(parent.vault)
        let kit = box.path + "/kit.pdf"
        let file = parent.run(["init", "--parent", "--recovery-kit", kit])
        // Required: a kit shown on the terminal below would wait for its groups for ever.
        try #require(file.status == 1 && file.stderr.contains("init never overwrites one") && file.stderr.contains("nothing was made"), "\(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: kit))
        let session = TmuxSession(box, command: "\"$LV\" init --parent --vault '\(parent.vault)'")
        session.wait(for: "EXIT=")
        let screen = session.flowed
        #expect(screen.contains("a vault already exists at \(parent.vault); init never overwrites one") && screen.contains("EXIT=1"), "\(screen)")
        #expect(!screen.contains("LVR1") && !screen.lowercased().contains("type group") && !screen.contains("Passphrase"), "\(screen)")
        #expect(readFile(parent.vault) == before)
    }
}
