import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The config changed two ways between syncs, through the built binary: both machines set
/// a different client secret (the same revision), then sync. Both keep both and agree on
/// which is stored; `child list` and `status` say the config is in conflict, naming both
/// machines; `issue` refuses (exit 1, naming both, nothing written) on either machine —
/// until `set` on one machine and a sync: then both agree and issue again, and the child
/// takes the codes.
@Suite("A config changed two ways")
struct ConfigConflictTests {
    typealias Machine = HouseholdStoryTests.Machine

    @Test func aConfigSetTwoWaysIsShownAndStopsIssuingUntilSetAgain() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/sync"
        for machine in [mor, far] { try TwoParents.require(home.sync(machine, folder), "sync on \(machine.name)") }
        // Both set the secret, neither having synced the other's.
        try home.setSecret(mor, "set on mor's")
        try home.setSecret(far, "set on far's")
        for machine in [mor, far, mor] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        #expect(home.sameSecret(mor, far), "the same files give both machines the same stored config")

        for (machine, other) in [(mor, "far's machine"), (far, "mor's machine")] {
            // child list and status say so, naming both machines.
            let list = machine.run(["child", "list"])
            #expect(list.status == 0 && list.stderr.contains("changed two ways") && list.stderr.contains(other) && list.stderr.contains("this machine"),
                    "\(machine.name): \(list.stderr)")
            try TwoParents.require(machine.run(["unlock"]), "unlock")
            let status = CLI.run(["status"], environment: ["LOMME_VAULT": machine.vault])
            #expect(status.stderr.contains("changed two ways") && status.stderr.contains(other), "\(machine.name): \(status.stderr)")
            let json = CLI.run(["status", "--json"], environment: ["LOMME_VAULT": machine.vault])
            #expect((try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])?["configConflict"] as? Bool == true)
            _ = CLI.run(["lock"], environment: ["LOMME_VAULT": machine.vault])
            // issue refuses: exit 1, naming both machines; nothing written.
            let before = readFile(machine.vault)
            let png = box.path + "/conflict-\(machine.name).png"
            let refused = machine.run(["issue", "--to", "anna", "--output", png])
            #expect(refused.status == 1 && refused.reason == .configConflict && refused.stderr.contains(other)
                    && refused.stderr.contains("this machine") && refused.stderr.contains("lomme-vault set"), "\(machine.name): \(refused.status) \(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: png) && TwoParents.unchanged(machine.vault, before), "\(machine.name): nothing written")
            let all = machine.run(["issue", "--all", "--output-dir", box.path + "/all-\(machine.name)"])
            #expect(all.status == 1 && all.reason == .configConflict, "\(machine.name): \(all.status) \(all.stderr)")
        }

        // far decides: set again there, then a sync each; both agree, no conflict, both issue.
        try home.setSecret(far, "decided on far's")
        for machine in [far, mor] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        #expect(home.sameSecret(mor, far))
        let decided = home.secret(mor) == "decided on far's"
        #expect(decided, "the set after the conflict is the household's config")
        for machine in [mor, far] {
            let list = machine.run(["child", "list"])
            #expect(!list.stderr.contains("changed two ways"), "\(machine.name): \(list.stderr)")
            let taken = home.take(try home.issue(from: machine, "after-\(machine.name).png"))
            #expect(taken.status == 0, "\(machine.name)'s code after the conflict: \(taken.stderr)")
        }
        let holds = home.anna.run(["get", "clientSecret"]).out == "decided on far's"
        #expect(holds, "Anna holds the decided secret")
    }
}
