import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Two parents' machines of one household, through the built binary: mor's vault holds the
/// recovery kit, the config and Anna; far's was made with `init --parent --join` and handed
/// the household (`parent add --key … --output FILE` on mor's, `import FILE` on far's);
/// Anna's device holds a code of mor's. The suites of the second parent's story share it
/// (SecondParentTests, ChildTakesEitherParentTests, SyncFolderStoryTests, SyncThroughGitTests,
/// ParentRemovalTests, IssuedByShownTests, ConfigConflictTests).
struct TwoParents {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    let box: CLI.Sandbox
    let mor: Machine
    let far: Machine
    let anna: Device
    /// The recovery key as the kit's QR code holds it, in a file (`--recovery-file`).
    let kit: String

    /// mor with the kit, the config and Anna (who holds a code of mor's); far joined and
    /// handed the household when `joined`, else nothing of far's made yet.
    init(joined: Bool = true) throws {
        box = CLI.Sandbox()
        mor = Machine(box, "mor")
        far = Machine(box, "far")
        let pdf = box.path + "/kit.pdf"
        try Self.require(mor.run(["init", "--parent", "--recovery-kit", pdf]), "init --parent")
        kit = box.write("kit.txt", try RecoveryKitTests.readKit(pdf, in: box).qr + "\n")
        try FileManager.default.removeItem(atPath: pdf)
        try Self.require(mor.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB), "import")
        anna = try Device("anna", in: box)
        try Self.require(mor.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]), "child add")
        try Self.require(take(try issue(from: mor, "anna-first.png")), "Anna's first code")
        if joined { try join() }
    }

    /// far: `init --parent --join`, its parent key added on mor's with the kit and handed
    /// the household as a file, imported on far's. Returns far's parent key.
    @discardableResult
    func join() throws -> String {
        try Self.require(far.run(["init", "--parent", "--join"]), "init --parent --join")
        let key = try parentKey(far)
        let handOver = box.path + "/far.lvh"
        try Self.require(mor.run(["parent", "add", "far", "--key", key, "--recovery-file", kit, "--output", handOver, "--yes", "--as", "mor"]),
                         "parent add")
        try Self.require(far.run(["import", handOver, "--yes"]), "import of the hand-over")
        return key
    }

    /// A machine's parent key (`key --parent --text`).
    func parentKey(_ machine: Machine) throws -> String {
        let shown = machine.run(["key", "--parent", "--text"])
        try Self.require(shown, "key --parent --text")
        let key = shown.out.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(key.hasPrefix("lvp1"), "a parent key: \(key)")
        return key
    }

    /// A sealed code from `machine` to `child`, written to `name` in the sandbox. Each code
    /// of the story is issued in a later second than the one before, as people issue them:
    /// records of one revision sort by their issue second, then by their random id
    /// (`Household.recordOrder`), so two codes of one second would be "last" by chance.
    @discardableResult
    func issue(from machine: Machine, _ name: String, to child: String = "anna") throws -> String {
        let png = box.path + "/" + name
        let marker = box.path + "/.last-issue-second"
        let last = (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { Int($0) } ?? 0
        while time(nil) <= last { usleep(50_000) }
        try Self.require(machine.run(["issue", "--to", child, "--output", png]), "issue from \(machine.name)")
        try String(time(nil)).write(toFile: marker, atomically: true, encoding: .utf8)
        return png
    }

    /// Anna's device imports `png` as a child does: --yes (no terminal here), and never
    /// --trust-new-issuer.
    func take(_ png: String, device: Device? = nil) -> CLI.Result {
        (device ?? anna).run(["import", png, "--yes", "--no-check"])
    }

    /// A device of a child (a vault made with `init`), for a second child or a new phone.
    func device(_ name: String) throws -> Device { try Device(name, in: box) }

    /// `sync [DIR]` on `machine`.
    @discardableResult
    func sync(_ machine: Machine, _ folder: String? = nil) -> CLI.Result {
        machine.run(["sync"] + (folder.map { [$0] } ?? []))
    }

    /// A new client secret set on `machine` (from standard input, never argv).
    func setSecret(_ machine: Machine, _ secret: String) throws {
        try Self.require(machine.run(["set", "clientSecret"], stdin: secret + "\n"), "set clientSecret on \(machine.name)")
    }

    /// The client secret `machine` stores (for comparing only: never put into a message).
    func secret(_ machine: Machine) -> String { machine.run(["get", "clientSecret"]).out }

    /// True when both machines store the same client secret (the values stay out of messages).
    func sameSecret(_ a: Machine, _ b: Machine) -> Bool {
        let first = secret(a), second = secret(b)
        return !first.isEmpty && first == second
    }

    /// `child list --json` on `machine`.
    func children(_ machine: Machine) throws -> [[String: Any]] {
        let listed = machine.run(["child", "list", "--json"])
        try Self.require(listed, "child list --json on \(machine.name)")
        return try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]])
    }

    /// What every machine must agree on of the children: name, receiving key, account,
    /// the last code handed out and whether it was confirmed (`issuedBy` says "this
    /// machine" on the issuing one, so it is compared apart).
    func childFacts(_ machine: Machine) throws -> [String] {
        try children(machine).map { child in
            ["name", "receivingKey", "accountNr", "lastIssued", "confirmed"].map { "\($0)=\(child[$0] ?? "nil")" }.joined(separator: " ")
        }.sorted()
    }

    /// `parent list --json` on `machine`, by name.
    func parents(_ machine: Machine) throws -> [String: [String: Any]] {
        let listed = machine.run(["parent", "list", "--json"])
        try Self.require(listed, "parent list --json on \(machine.name)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: items.map { ($0["name"] as? String ?? "?", $0) })
    }

    /// The record of `machine`'s vault, read by an independent reader
    /// (Tests/scripts/vault-open.py): each code's id, whether it was confirmed, and the
    /// revision it carried.
    func records(_ machine: Machine) throws -> [String] {
        let plain = try RecoveryKitTests.plaintext(machine.vault, machine.folder + "/pw")
        let issued = (plain["household"] as? [String: Any])?["issued"] as? [[String: Any]] ?? []
        return issued.map { "\($0["id"] ?? "?") confirmed=\($0["confirmed"] != nil) revision=\($0["revision"] ?? "none")" }.sorted()
    }

    /// The file name a machine's journal has in the folder: `lomme-` and its issuer
    /// fingerprint, lower case, without dashes.
    func journalName(_ machine: Machine) -> String {
        let issuer = machine.run(["key", "--issuer"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        return "lomme-" + issuer.replacingOccurrences(of: "-", with: "").lowercased() + ".journal"
    }

    /// True when the file at `path` still holds `before` (compared here, so a failure never
    /// prints a vault's bytes).
    static func unchanged(_ path: String, _ before: [UInt8]) -> Bool { readFile(path) == before }

    static func require(_ result: CLI.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(result.status == 0, "\(what): exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
    }
}
