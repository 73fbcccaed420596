import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `issue --all` after `init --parent --restore`: what a child compares.
@Suite("issue --all after a restore")
struct IssueAllAfterRestoreTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// After a restore, `issue --all` says that a child who took the household's codes
    /// before has nothing to compare, and only a new child compares the fingerprint.
    @Test func issueAllAfterARestoreSaysOnlyANewChildCompares() throws {
        let home = try RecoveryKitTests.Household()
        let box = home.box
        let laptop = Machine(box, "laptop")
        try #require(laptop.run(["init", "--parent", "--restore", "--recovery-file", box.write("kit.txt", home.key)]).status == 0)
        try #require(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        try #require(laptop.run(["child", "add", "anna", "--key", home.anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        let issued = laptop.run(["issue", "--all", "--output-dir", box.path + "/codes"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let said = TmuxSession.flowing(issued.stderr)
        #expect(said.contains("A child whose device took this household's codes before has nothing to compare")
                && said.contains("a new child's device shows it on its first import"), "\(issued.stderr)")
        #expect(!said.contains("Each child's device shows it"), "\(issued.stderr)")
    }
}
