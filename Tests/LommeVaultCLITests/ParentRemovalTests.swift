import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Removing a parent's machine, through the built binary: `parent remove NAME` needs this
/// household's kit and, without a terminal, --yes; it says to renew the secret at the bank;
/// a child that then takes a code of the remaining machine refuses the removed machine's
/// codes from then on (exit 7, the device untouched), issued before the removal or after;
/// the remaining machine's sync refuses the removed machine's journal written after the
/// removal, naming the file, and takes nothing of it.
@Suite("Removing a parent's machine")
struct ParentRemovalTests {
    typealias Machine = HouseholdStoryTests.Machine

    @Test func aRemovedMachinesCodesAndJournalAreRefusedFromItsRemovalOn() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/sync"
        for machine in [mor, far, mor] { try TwoParents.require(home.sync(machine, folder), "sync on \(machine.name)") }
        // Anna takes a code of far's: far's machine is one of the household's.
        #expect(home.take(try home.issue(from: far, "far-before.png")).status == 0)
        let farBefore = try home.issue(from: far, "far-before-2.png")

        // Refused without --yes (no terminal), without the kit, and with another household's kit; nothing written.
        let before = readFile(mor.vault)
        let unasked = mor.run(["parent", "remove", "far", "--recovery-file", home.kit])
        #expect(unasked.status == 1 && unasked.reason == .noTerminalToConfirm && unasked.stderr.contains("--yes"), "\(unasked.status) \(unasked.stderr)")
        let noKit = mor.run(["parent", "remove", "far", "--yes"])
        #expect(noKit.status != 0 && noKit.reason == .noTerminalToAsk && noKit.stderr.contains("--recovery-file"), "\(noKit.status) \(noKit.stderr)")
        let other = Machine(box, "other")
        let otherPDF = box.path + "/other-kit.pdf"
        try #require(other.run(["init", "--parent", "--recovery-kit", otherPDF]).status == 0)
        let otherKit = box.write("other-kit.txt", try RecoveryKitTests.readKit(otherPDF, in: box).qr + "\n")
        #expect(mor.run(["parent", "remove", "far", "--recovery-file", otherKit, "--yes"]).status == 4)
        #expect(mor.run(["parent", "remove", "mor", "--recovery-file", home.kit, "--yes"]).status == 1, "not this machine itself")
        #expect(mor.run(["parent", "remove", "nobody", "--recovery-file", home.kit, "--yes"]).status == 6)
        #expect(TwoParents.unchanged(mor.vault, before))

        // With the kit: removed, and told to renew the secret at the bank.
        let removed = mor.run(["parent", "remove", "far", "--recovery-file", home.kit, "--yes"])
        try #require(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stderr.contains("at the bank") && removed.stderr.contains("set clientSecret") && removed.stderr.contains("issue --all"), "\(removed.stderr)")
        let listed = try home.parents(mor)
        #expect(listed["far"]?["removed"] as? Bool == true && listed["mor"]?["removed"] as? Bool == false, "\(listed)")

        // far's machine does not know yet, and issues again; mor's machine issues after the removal.
        let farAfter = try home.issue(from: far, "far-after.png")
        let fromMor = try home.issue(from: mor, "mor-after.png")
        // Anna takes mor's code (the new vouch) without a question …
        let taken = home.take(fromMor)
        #expect(taken.status == 0 && !taken.stderr.contains("--trust-new-issuer"), "\(taken.stderr)")
        // … and refuses far's codes from then on, issued before the removal or after.
        let annaVault = box.path + "/anna/vault"
        let annaBefore = readFile(annaVault)
        for code in [farAfter, farBefore] {
            let refused = home.take(code)
            #expect(refused.status == 7 && refused.reason == .issuerRevoked, "\(code): \(refused.status) \(refused.stderr)")
            #expect(TwoParents.unchanged(annaVault, annaBefore), "\(code): the device is untouched")
        }

        // far's machine changes the config and adds a child, and syncs: its journal, written
        // after the removal, is refused on mor's — named — and nothing of it is taken.
        try home.setSecret(far, "set on the removed machine")
        let eve = try home.device("eve")
        try TwoParents.require(far.run(["child", "add", "eve", "--key", eve.key.text, "--account", "12345678903", "--yes"]), "child add on far")
        try TwoParents.require(home.sync(far), "sync on far")
        let morBefore = try home.records(mor)
        let morSecretBefore = home.secret(mor)
        let synced = home.sync(mor)
        // Said by name, and ignored: not a failure of the sync (a nightly sync goes on working).
        #expect(synced.status == 0 && synced.stderr.contains(home.journalName(far)) && synced.stderr.contains("ignored")
                && synced.stderr.contains("removed"), "\(synced.stderr)")
        let keptSecret = home.secret(mor) == morSecretBefore
        #expect(keptSecret, "the removed machine's config is not taken")
        #expect(try home.children(mor).map { $0["name"] as? String } == ["anna"], "its child is not taken")
        #expect(try home.records(mor) == morBefore, "nor its records")
    }
}
