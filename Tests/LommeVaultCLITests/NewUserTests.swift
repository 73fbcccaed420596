import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Issue 68, the new user's list, through the built binary: each thing a new user tripped
/// over, as it is now.
@Suite("The new user's list (issue 68)")
struct NewUserTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

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

extension NewUserTests {
    /// `status` and `slots` name the recovery slot in plain words, no parentheses inside
    /// parentheses.
    @Test func statusNamesTheRecoverySlotCleanly() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent", "--recovery-kit", box.path + "/kit.pdf"]).status == 0)
        // status and slots never ask, and take no passphrase option.
        let status = CLI.run(["status"], environment: ["LOMME_VAULT": parent.vault])
        #expect(status.out.contains("1 recovery (the recovery kit's key)"), "\(status.out)")
        #expect(!status.out.contains("(recovery key (") && !status.out.contains("))"), "\(status.out)")
        #expect(CLI.run(["slots"], environment: ["LOMME_VAULT": parent.vault]).out.contains("the recovery kit's key"))
    }
}
