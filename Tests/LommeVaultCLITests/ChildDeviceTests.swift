import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A parent's commands on a child's device (one that took a parent's sealed code): each says
/// this is a child's device and what to run instead, and changes nothing.
@Suite("A parent's commands on a child's device")
struct ChildDeviceTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    /// A parent with a recovery kit, and Anna's device holding the parent's sealed code.
    static func household() throws -> (box: CLI.Sandbox, parent: Machine, anna: Device, issuer: String) {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent", "--recovery-kit", box.path + "/kit.pdf"]).status == 0)
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        let anna = try Device("anna", in: box)
        try #require(parent.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        try #require(parent.run(["issue", "--to", "anna", "--output", box.path + "/anna.png"]).status == 0)
        try #require(anna.run(["import", box.path + "/anna.png", "--yes", "--no-check"]).status == 0)
        let issuer = parent.run(["key", "--issuer"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        return (box, parent, anna, issuer)
    }

    /// `recovery kit` on a child's device makes no household of the child's own: one line,
    /// exit 1, no kit file, the vault untouched.
    @Test func recoveryKitOnAChildsDeviceIsRefused() throws {
        let (box, _, anna, issuer) = try Self.household()
        let vault = box.path + "/anna/vault"
        let before = readFile(vault)
        let kit = box.path + "/anna-kit.pdf"
        let made = anna.run(["recovery", "kit", "--output", kit])
        #expect(made.status == 1 && made.reason == .childsDevice, "\(made.stderr)")
        #expect(made.stderr.split(separator: "\n").count == 1, "\(made.stderr)")
        #expect(TmuxSession.flowing(made.stderr).contains("this is a child's device (it takes the codes of the parent's machine \(issuer)); the household's recovery kit is made on a parent's machine: run `lomme-vault recovery kit` there; nothing was made"), "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: kit))
        #expect(readFile(vault) == before)
    }

    /// `child list` on a child's device says it is one and what to run there, not "No
    /// children yet"; exit 0, and `--json` is an empty list.
    @Test func childListOnAChildsDeviceSaysWhatToRunInstead() throws {
        let (_, _, anna, issuer) = try Self.household()
        let listed = anna.run(["child", "list"])
        let said = TmuxSession.flowing(listed.stderr)
        #expect(listed.status == 0 && listed.out.isEmpty, "\(listed.stderr)")
        #expect(said.contains("This is a child's device: it takes the codes of the parent's machine \(issuer), and has no children of its own")
                && said.contains("`lomme-vault child add` there") && said.contains("`lomme-vault status`") && said.contains("`lomme-vault import PHOTO`"), "\(listed.stderr)")
        #expect(!said.contains("No children yet"), "\(listed.stderr)")
        #expect(anna.run(["child", "list", "--json"]).out == "[]\n")
    }
}
