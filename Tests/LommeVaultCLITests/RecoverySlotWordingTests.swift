import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// How `status` and `slots` name the recovery slot.
@Suite("The recovery slot in plain words")
struct RecoverySlotWordingTests {
    typealias Machine = HouseholdStoryTests.Machine

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
