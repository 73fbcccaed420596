import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `child set NAME`: a child's own account number and extra fields changed, checked as
/// `child add` checks them, carried by the child's next code and, through the sync folder,
/// to the other parent's machine.
@Suite("child set: a child's account and fields")
struct ChildSetTests {
    typealias Machine = HouseholdStoryTests.Machine

    static func anna(_ parent: Machine) throws -> [String: Any] {
        let listed = parent.run(["child", "list", "--json"])
        let children = try #require(try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [[String: Any]], "\(listed.stderr)")
        return try #require(children.first { $0["name"] as? String == "anna" })
    }

    @Test func theAccountAndFieldsChangeAndTheNextCodeCarriesThem() throws {
        let (box, parent, anna, _) = try ChildDeviceTests.household()
        let set = parent.run(["child", "set", "Anna", "--account", "1234.56.78903", "--field", "name=Anna", "--field", "nickname=Bee"])
        #expect(set.status == 0 && TmuxSession.flowing(set.stderr).contains("anna: account 1234 56 78903, fields name=Anna, nickname=Bee. Give them a code that carries it with `lomme-vault issue --to anna`"), "\(set.stderr)")
        var listed = try Self.anna(parent)
        #expect(listed["accountNr"] as? String == "12345678903", "\(listed)")
        #expect(listed["fields"] as? [String: String] == ["name": "Anna", "nickname": "Bee"], "\(listed)")
        #expect((listed["notCurrent"] as? [String]).map(Set.init) == ["accountChanged", "fieldsChanged"], "\(listed)")
        // The next code carries them to the child's device.
        try #require(parent.run(["issue", "--to", "anna", "--output", box.path + "/anna2.png"]).status == 0)
        try #require(anna.run(["import", box.path + "/anna2.png", "--yes", "--no-check"]).status == 0)
        #expect(anna.run(["get", "accountNr"]).out == "12345678903" && anna.run(["get", "nickname"]).out == "Bee")
        // A field removed, in any case; one replaced.
        #expect(parent.run(["child", "set", "anna", "--unset-field", "NICKNAME", "--field", "name=Anne"]).status == 0)
        listed = try Self.anna(parent)
        #expect(listed["fields"] as? [String: String] == ["name": "Anne"], "\(listed)")
        // The same values again: unchanged, nothing written.
        let before = readFile(parent.vault)
        let same = parent.run(["child", "set", "anna", "--field", "name=Anne"])
        #expect(same.status == 0 && same.stderr.contains("Unchanged") && readFile(parent.vault) == before, "\(same.stderr)")
    }

    @Test func badInputIsOneLineTheContractsCodeAndChangesNothing() throws {
        let (_, parent, _, _) = try ChildDeviceTests.household()
        let before = readFile(parent.vault)
        for (arguments, code, reason, words) in [
            (["anna", "--account", "12345678904"], 7, .accountNrChecksum, "--account: accountNr fails the account number check digit"),
            (["anna", "--account", "1234"], 7, .accountNrMalformed, "--account: accountNr must be an 11-digit"),
            (["anna", "--field", "clientSecret=x"], 64, .childFieldReserved, "--field may not set clientSecret"),
            (["anna", "--field", "apiToken=x"], 64, .childFieldSecret, "its name says it is a secret"),
            (["anna", "--field", "tokenUrl=http://bank.example/token"], 7, nil, "tokenUrl"),
            (["anna", "--unset-field", "nickname"], 6, .fieldUnknown, "anna has no field nickname (they have none); nothing changed"),
            (["anna", "--field", "nickname=x", "--unset-field", "nickname"], 64, .childFieldMalformed, "give one of them"),
            (["kari", "--account", "12345678903"], 6, .noSuchChild, "there is no child called kari"),
            (["anna"], 64, .usage, "give what changes"),
        ] as [([String], Int32, LommeError.Reason?, String)] {
            let result = parent.run(["child", "set"] + arguments)
            #expect(result.status == code && (reason == nil || result.reason == reason) && result.stderr.contains(words), "\(arguments): \(result.status) \(String(describing: result.reason)) \(result.stderr)")
            #expect(result.stderr.hasPrefix("lomme-vault: ") || result.stderr.hasPrefix("Error:"), "\(arguments): \(result.stderr)")
            #expect(readFile(parent.vault) == before, "\(arguments) changed the vault")
        }
        #expect(parent.run(["child", "set", "anna", "--account", "12345678904", "--no-check"]).status == 0)
    }

    /// Set on far's machine, the change reaches mor's at the next sync, as a rekey does; and
    /// one set on mor's after it reaches far's. Each is the child's next version: were it not,
    /// the machine with the lower id would lose its change (an equal version goes to the
    /// higher id), one way or the other.
    @Test func theOtherParentsMachineTakesTheChange() throws {
        let home = try TwoParents()
        let folder = home.box.path + "/shared"
        try TwoParents.require(home.sync(home.mor, folder), "sync DIR on mor")
        try TwoParents.require(home.sync(home.far, folder), "sync DIR on far")
        try TwoParents.require(home.far.run(["child", "set", "anna", "--account", "12345678903", "--field", "nickname=Bee"]), "child set on far")
        for machine in [home.far, home.mor] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        let onMor = try Self.anna(home.mor)
        #expect(onMor["accountNr"] as? String == "12345678903" && (onMor["fields"] as? [String: String])?["nickname"] == "Bee", "\(onMor)")
        try TwoParents.require(home.mor.run(["child", "set", "anna", "--field", "nickname=Bumble"]), "child set on mor")
        for machine in [home.mor, home.far] { try TwoParents.require(home.sync(machine), "sync on \(machine.name)") }
        let onFar = try Self.anna(home.far)
        #expect(onFar["accountNr"] as? String == "12345678903" && (onFar["fields"] as? [String: String])?["nickname"] == "Bumble", "\(onFar)")
    }
}
