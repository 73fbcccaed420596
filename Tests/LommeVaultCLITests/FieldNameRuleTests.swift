import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A field's name, as `get`, `set` and `unset` take it: one rule in one place
/// (`SetService.resolve`). A known field in any case is that field; any other name that is
/// no field of the config is exit 6 ("no such field"), a near miss naming the field.
@Suite("Field names: one rule")
struct FieldNameRuleTests {
    typealias Machine = HouseholdStoryTests.Machine

    /// A parent with the config stored and an extra field `nickname`.
    static func parent() throws -> (CLI.Sandbox, Machine) {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        try #require(parent.run(["set", "--new", "nickname"], stdin: "Bluebird\n").status == 0)
        return (box, parent)
    }

    /// `set` of a name that is no field is exit 6 whether it is a near miss or not; a near
    /// miss of an extra field names `set --new` too, a near miss of a known field does not.
    @Test func setOfNoFieldIsExitSixNearMissOrNot() throws {
        let (_, parent) = try Self.parent()
        let before = readFile(parent.vault)
        for (name, reason, words, newLine) in [("nickname2", LommeError.Reason.fieldNearMiss, "did you mean nickname? (`lomme-vault set nickname`)", true),
                                               ("clientSecert", .fieldNearMiss, "did you mean clientSecret?", false),
                                               ("wholly-other", .fieldUnknown, "the stored config has no field wholly-other", true)] {
            let result = parent.run(["set", name], stdin: "value\n")
            let said = TmuxSession.flowing(result.stderr)
            #expect(result.status == 6 && result.reason == reason && said.contains(words), "\(name): \(result.stderr)")
            #expect(said.contains("`lomme-vault set --new \(name)`") == newLine, "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
        }
        let unset = parent.run(["unset", "nicknam"])
        #expect(unset.status == 6 && unset.reason == .fieldNearMiss && unset.stderr.contains("did you mean nickname?") && !unset.stderr.contains("--new"), "\(unset.stderr)")
        #expect(readFile(parent.vault) == before, "a refused name changed the vault")
    }

    /// `get` takes a name as `set` does: a known field in any case (clientsecret), an extra
    /// one in any case; a near miss names the field and the `get` to run, exit 6.
    @Test func getTakesANameAsSetDoes() throws {
        let (_, parent) = try Self.parent()
        for (name, value) in [("clientsecret", Sample.secretB), ("CLIENTID", "client-B"), ("tokenurl", "https://bank.example/token"), ("NickName", "Bluebird")] {
            let got = parent.run(["get", name, "-n"])
            #expect(got.status == 0 && got.out == value, "\(name): \(got.stderr)")
        }
        for (name, words) in [("clientSecert", "there is no field clientSecert; did you mean clientSecret? (`lomme-vault get clientSecret`)"),
                              ("nicknam", "did you mean nickname? (`lomme-vault get nickname`)"),
                              ("secretExpires", "the stored config has no field secretExpires (its fields: clientId, clientSecret, userId, accountNr, tokenUrl, nickname)"),
                              ("wholly-other", "the stored config has no field wholly-other")] {
            let got = parent.run(["get", name])
            let said = TmuxSession.flowing(got.stderr)
            #expect(got.status == 6 && [.fieldNearMiss, .fieldUnknown].contains(got.reason) && said.contains(words) && got.out.isEmpty, "\(name): \(got.stderr)")
            #expect(!said.contains("--new") && !said.contains("nothing was stored"), "\(name): \(got.stderr)")
        }
        let invalid = parent.run(["get", "with space"])
        #expect(invalid.status == 64 && invalid.reason == .fieldNameInvalid, "\(invalid.stderr)")
    }
}
