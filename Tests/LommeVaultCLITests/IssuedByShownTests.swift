import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Shown where people look, through the built binary: `child list` (and its `--json`
/// `issuedBy`) says which parent's machine issued each child's last code, on both machines;
/// `parent list` and `status` say when the other machine was last heard from, and a freshly
/// synced household gets no warning of a silent machine (the 14 days themselves:
/// LommeCoreTests' SilentParentTests, with a fixed clock).
@Suite("Which parent issued, shown")
struct IssuedByShownTests {
    @Test func childListSaysWhichMachineIssuedEachLastCode() throws {
        let home = try TwoParents()
        let box = home.box, mor = home.mor, far = home.far
        let folder = box.path + "/sync"
        let ola = try home.device("ola"), per = try home.device("per")
        for (name, device) in [("ola", ola), ("per", per)] {
            try TwoParents.require(mor.run(["child", "add", name, "--key", device.key.text, "--account", "12345678903", "--yes"]), "child add \(name)")
        }
        for machine in [mor, far] { try TwoParents.require(home.sync(machine, folder), "sync") }
        // Anna's last code is mor's (from the set-up), Ola's is far's; Per has none.
        #expect(home.take(try home.issue(from: far, "ola.png", to: "ola"), device: ola).status == 0)
        for machine in [far, mor] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        let expected: [String: [String: String?]] = [
            "mor": ["anna": "this machine", "ola": "far's machine", "per": nil],
            "far": ["anna": "mor's machine", "ola": "this machine", "per": nil],
        ]
        for machine in [mor, far] {
            let children = try home.children(machine)
            for child in children {
                let name = child["name"] as? String ?? "?"
                let want = expected[machine.name]?[name] ?? nil
                if let want {
                    #expect(child["issuedBy"] as? String == want, "\(machine.name): \(name): \(child)")
                } else {
                    #expect(child["issuedBy"] is NSNull, "\(machine.name): \(name): no code, no issuer: \(child)")
                }
            }
            #expect(children.count == 3)
            // The table says it in the "last handed out" column.
            let table = machine.run(["child", "list"])
            let rows = table.out.split(separator: "\n")
            for (name, want) in expected[machine.name] ?? [:] {
                let row = rows.first { $0.hasPrefix(name + " ") }.map(String.init) ?? ""
                #expect(want.map { row.contains(" by " + $0) } ?? !row.contains(" by "), "\(machine.name): \(row)")
            }
            // Freshly synced: no warning of a silent machine, no conflict.
            #expect(!table.stderr.contains("warning"), "\(table.stderr)")
        }
    }

    @Test func statusOfAFreshlySyncedHouseholdNamesTheOtherMachineWithoutAWarning() throws {
        let home = try TwoParents()
        let mor = home.mor, far = home.far
        let folder = home.box.path + "/sync"
        for machine in [mor, far, mor] { try TwoParents.require(home.sync(machine, folder), "sync on \(machine.name)") }
        // status reads the household only unlocked (it never asks): unlock, look, lock.
        try TwoParents.require(mor.run(["unlock"]), "unlock")
        defer { _ = CLI.run(["lock"], environment: ["LOMME_VAULT": mor.vault]) }
        let status = CLI.run(["status"], environment: ["LOMME_VAULT": mor.vault])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(!status.stderr.contains("not been heard from") && !status.stderr.contains("warning"), "\(status.stderr)")
        let heard = try #require(try home.parents(mor)["far"]?["lastHeard"] as? String)
        #expect(status.out.contains("far (heard from \(Instant(text: heard)?.shown ?? heard))") && status.out.contains("mor (this machine)"), "\(status.out)")
        let json = CLI.run(["status", "--json"], environment: ["LOMME_VAULT": mor.vault])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let parents = try #require(report["parents"] as? [[String: Any]])
        #expect(parents.first { $0["name"] as? String == "far" }?["lastHeard"] as? String == heard, "\(parents)")
        #expect(report["configConflict"] as? Bool == false)
    }
}
