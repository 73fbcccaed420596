import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The children need do nothing when a second parent's machine joins, through the built
/// binary: a child's device takes a code of either parent's machine without
/// --trust-new-issuer and says whose machine issued it; a code carrying an older revision
/// of the config is refused (exit 7, the device untouched) whichever machine issued it and
/// however late; codes of the newest revision are taken from both machines in either
/// order, whatever their issue times; a replay of one machine's code is refused as before;
/// a receipt goes to the machine whose code it was, and its confirmation reaches the other
/// by sync.
@Suite("A child takes either parent's code")
struct ChildTakesEitherParentTests {
    @Test func theSecondParentsCodeIsTakenWithoutAQuestionNamingItsMachine() throws {
        let home = try TwoParents()
        let farIssuer = try ParentKey(text: try home.parentKey(home.far)).issuer.fingerprint
        let taken = home.take(try home.issue(from: home.far, "from-far.png"))
        #expect(taken.status == 0, "\(taken.stderr)")
        #expect(!taken.stderr.contains("--trust-new-issuer") && !taken.stderr.contains("first sealed code"), "\(taken.stderr)")
        #expect(taken.stderr.contains("Issuer \(farIssuer) (far's machine): another parent's machine of this household"), "\(taken.stderr)")
        #expect(taken.stderr.contains("taken without a question"), "\(taken.stderr)")
        // And mor's next code: its machine named too.
        let back = home.take(try home.issue(from: home.mor, "from-mor.png"))
        #expect(back.status == 0 && back.stderr.contains("(mor's machine)"), "\(back.stderr)")
    }

    @Test func aCodeOfAnOlderRevisionIsRefusedWhoeverIssuedItHoweverLate() throws {
        let home = try TwoParents()
        let annaVault = home.box.path + "/anna/vault"
        // mor renews the secret (the next revision) and issues; Anna takes it.
        try home.setSecret(home.mor, "renewed on mor's 1")
        #expect(home.take(try home.issue(from: home.mor, "mor-new.png")).status == 0)
        // far has not synced: its code, issued after mor's, carries the older revision.
        let before = readFile(annaVault)
        let stale = home.take(try home.issue(from: home.far, "far-stale.png"))
        #expect(stale.status == 7 && stale.reason == .olderRevision, "\(stale.status) \(stale.stderr)")
        #expect(TwoParents.unchanged(annaVault, before), "a refused code leaves the device's vault as it was")
        let keeps = home.anna.run(["get", "clientSecret"]).out == home.secret(home.mor)
        #expect(keeps, "Anna keeps the newest config")
        // After a sync far's codes carry the newest revision, and are taken.
        let folder = home.box.path + "/sync"
        for machine in [home.mor, home.far] { try TwoParents.require(home.sync(machine, folder), "sync") }
        #expect(home.sameSecret(home.mor, home.far))
        let fresh = home.take(try home.issue(from: home.far, "far-fresh.png"))
        #expect(fresh.status == 0 && fresh.stderr.contains("far's machine"), "\(fresh.stderr)")
        // mor's own code of the older revision (its first to her) is refused too.
        let replay = home.take(home.box.path + "/anna-first.png")
        #expect(replay.status == 7, "\(replay.status) \(replay.stderr)")
    }

    @Test func newestCodesOfBothMachinesAreTakenInEitherOrderAndReplaysRefused() throws {
        let home = try TwoParents()
        let box = home.box
        // far's code is issued first, mor's after it: both of the same (newest) revision.
        let fromFar = try home.issue(from: home.far, "far.png")
        let fromMor = try home.issue(from: home.mor, "mor.png")
        let other = HouseholdKeyChainTests.copy(of: "anna", as: "anna-other-order", in: box)
        let otherDevice = { (png: String) in CLI.run(["import", png, "--yes", "--no-check"] + other) }

        // Anna: mor's (the later) first, then far's earlier one: both taken, the clocks decide nothing.
        #expect(home.take(fromMor).status == 0)
        let earlier = home.take(fromFar)
        #expect(earlier.status == 0 && earlier.stderr.contains("far's machine"), "\(earlier.status) \(earlier.stderr)")
        // The other order on a copy of her device.
        #expect(otherDevice(fromFar).status == 0)
        #expect(otherDevice(fromMor).status == 0)

        // A replay of a machine's code after another code is refused as before (exit 7), the device untouched.
        let annaVault = box.path + "/anna/vault"
        let before = readFile(annaVault)
        let replayed = home.take(fromMor)
        #expect(replayed.status == 7 && replayed.reason == .rollback, "\(replayed.status) \(replayed.stderr)")
        #expect(TwoParents.unchanged(annaVault, before))
        let replayedFar = otherDevice(fromFar)
        #expect(replayedFar.status == 7, "\(replayedFar.status) \(replayedFar.stderr)")
        // And an older code of mor's (its first to her), also refused.
        #expect(home.take(box.path + "/anna-first.png").status == 7)
        #expect(TwoParents.unchanged(annaVault, before))
    }

    @Test func aReceiptIsConfirmedByTheIssuingMachineAndTheConfirmationSyncs() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/sync"
        try TwoParents.require(home.sync(mor, folder), "sync")
        // far issues; Anna takes it and shows a receipt; far syncs, so mor knows far's record.
        #expect(home.take(try home.issue(from: far, "far.png")).status == 0)
        let receipt = box.path + "/receipt.png"
        try TwoParents.require(home.anna.run(["receipt", "--output", receipt]), "receipt")
        for machine in [far, mor] { try TwoParents.require(home.sync(machine, folder), "sync on \(machine.name)") }
        #expect(try home.records(mor) == home.records(far), "mor holds far's record")

        // mor's machine refuses it: the code is far's (exit 7), nothing written.
        let morBefore = readFile(mor.vault)
        let onMor = mor.run(["child", "confirm", receipt])
        #expect(onMor.status == 7 && onMor.reason == .receiptOtherParent && onMor.stderr.contains("far's machine"), "\(onMor.status) \(onMor.stderr)")
        #expect(TwoParents.unchanged(mor.vault, morBefore))
        // far's confirms it.
        let onFar = far.run(["child", "confirm", receipt])
        #expect(onFar.status == 0 && onFar.stderr.contains("Confirmed"), "\(onFar.stderr)")
        #expect(try home.children(far).first?["confirmed"] as? Bool == true)
        #expect(try home.children(mor).first?["confirmed"] as? Bool == false, "not before a sync")
        // After far's sync and mor's, mor shows Anna confirmed, for far's code.
        for machine in [far, mor] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        let anna = try #require(try home.children(mor).first)
        #expect(anna["confirmed"] as? Bool == true && anna["confirmedAt"] as? String != nil, "\(anna)")
        #expect(anna["issuedBy"] as? String == "far's machine", "\(anna)")
        #expect(try home.records(mor) == home.records(far))
    }
}
