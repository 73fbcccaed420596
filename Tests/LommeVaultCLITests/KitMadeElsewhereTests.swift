import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A new recovery kit made on the other parent's machine replaces the kit everywhere: when
/// sync brings the new household key, this vault's recovery slot — which opened with the
/// replaced kit — goes in the same write, from the vault and its `.bak` alike, and sync says
/// so. A lost kit, replaced on either machine, opens neither machine's vault.
@Suite("A kit made on another machine")
struct KitMadeElsewhereTests {
    typealias Machine = HouseholdStoryTests.Machine

    @Test func aKitReplacedOnTheOtherMachineNoLongerOpensThisVault() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/sync"
        for machine in [mor, far] { try TwoParents.require(home.sync(machine, folder), "first sync on \(machine.name)") }
        let before = mor.run(["recovery", "verify", "--recovery-file", home.kit])
        try #require(before.status == 0, "the kit opens mor's vault before: \(before.stderr)")

        // far makes a new kit (the old one vouches for it), then syncs; mor syncs after.
        let newPDF = box.path + "/new-kit.pdf"
        try TwoParents.require(far.run(["recovery", "kit", "--output", newPDF, "--recovery-file", home.kit]), "recovery kit on far's")
        try TwoParents.require(home.sync(far), "far's sync")
        let taken = home.sync(mor)
        try TwoParents.require(taken, "mor's sync")
        #expect(taken.stderr.contains("new recovery kit, made on far's machine") && taken.stderr.contains("recovery slot was removed"), "\(taken.stderr)")

        // The replaced kit opens neither mor's vault nor its .bak (no recovery slot is left
        // in either); `recovery verify` says it is a replaced kit (exit 4).
        for vault in [mor.vault, mor.vault + ".bak"] {
            let unlocked = CLI.run(["unlock", "--with", "recovery", "--vault", vault, "--recovery-file", home.kit, "--no-prompt"])
            #expect(unlocked.status != 0, "\(vault): the replaced kit unlocked it: \(unlocked.stderr)")
            let slots = CLI.run(["slots", "--json", "--vault", vault]).out
            #expect(!slots.isEmpty && !slots.contains("\"recovery\""), "\(vault): \(slots)")
        }
        let old = mor.run(["recovery", "verify", "--recovery-file", home.kit])
        #expect(old.status == 4 && old.reason == .recoveryKeyWrong, "\(old.status) \(old.stderr)")
        // mor's passphrase still opens it, and mor issues under the new household key: Anna
        // takes it without a question.
        #expect(mor.run(["get", "clientId"]).status == 0)
        let code = home.take(try home.issue(from: mor, "after-new-kit.png"))
        #expect(code.status == 0, "\(code.stderr)")
        // A second sync changes nothing more and says nothing of the kit again.
        let again = home.sync(mor)
        #expect(again.status == 0 && !again.stderr.contains("new recovery kit"), "\(again.stderr)")
    }
}
