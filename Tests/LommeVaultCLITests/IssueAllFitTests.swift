import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `issue --all` checks that every child's code fits a QR code before it records any, and
/// checks it with codes as long as the real ones: with a recovery kit a code carries the
/// household key, its vouch and the rotation from the old key (some 330 characters), and
/// a check without them passes a code that then cannot be made — one child's code issued,
/// the next recorded and never made. Through the built binary.
@Suite("issue --all checks the fit of the real codes")
struct IssueAllFitTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    /// Alphanumeric characters in a version 40 QR code at level M (ISO/IEC 18004, table 7):
    /// `issue --all`'s level for sealed codes.
    static let capacity = 3391

    /// A parent with a recovery kit and the config stored; with `newKit`, a second kit made
    /// with the first, so that codes carry the rotation too.
    static func parent(_ name: String, in box: CLI.Sandbox, newKit: Bool) throws -> Machine {
        let parent = Machine(box, name)
        let kit = box.path + "/\(name)-kit.pdf"
        let made = parent.run(["init", "--parent", "--recovery-kit", kit])
        try #require(made.status == 0, "\(made.stderr)")
        let stored = parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB)
        try #require(stored.status == 0, "\(stored.stderr)")
        if newKit {
            let old = box.write("\(name)-kit.txt", try RecoveryKitTests.readKit(kit, in: box).qr + "\n")
            let again = parent.run(["recovery", "kit", "--output", box.path + "/\(name)-kit2.pdf", "--recovery-file", old])
            try #require(again.status == 0, "\(again.stderr)")
        }
        return parent
    }

    static func add(_ name: String, _ device: Device, note: Int, to parent: Machine) throws {
        let added = parent.run(["child", "add", name, "--key", device.key.text, "--account", "97104133219",
                                "--field", "note=" + String(repeating: "x", count: note), "--yes"])
        try #require(added.status == 0, "\(added.stderr)")
    }

    @Test func aCodeThatFitsOnlyWithoutTheHouseholdIsCaughtBeforeAnyIsRecorded() throws {
        let box = CLI.Sandbox()
        let parent = try Self.parent("parent", in: box, newKit: true)
        let anna = try Device("anna", in: box), kari = try Device("kari", in: box)
        let short = 1000
        try Self.add("anna", anna, note: short, to: parent)
        // How long Anna's code is (each further byte of a field is 1.5 characters of Base45).
        let probe = box.path + "/probe.png"
        try #require(parent.run(["issue", "--to", "anna", "--output", probe]).status == 0)
        let measured = CLI.run(["scan", "--raw", probe]).out.trimmingCharacters(in: .whitespacesAndNewlines).count
        try #require(measured > 2000 && measured < Self.capacity, "\(measured)")
        // Kari's code: 70 characters too long with everything it carries; without the
        // rotation (147 characters), let alone without any household statement, it would fit.
        let long = short + (Self.capacity + 70 - measured) * 2 / 3
        try Self.add("kari", kari, note: long, to: parent)

        let listed = parent.run(["child", "list", "--json"]).out
        let before = readFile(parent.vault)
        let codes = box.path + "/codes"
        let all = parent.run(["issue", "--all", "--output-dir", codes])
        #expect(all.status == 1 && all.reason == .qrPayloadTooLarge && all.stderr.hasPrefix("lomme-vault: kari") && all.stderr.split(separator: "\n").count == 1,
                "\(all.status): \(all.stderr)")
        let unchanged = readFile(parent.vault) == before
        #expect(unchanged, "a code was recorded")
        #expect(parent.run(["child", "list", "--json"]).out == listed)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: codes)) ?? []).isEmpty, "a code was written")

        // The control: the same children of a parent whose kit was never replaced (codes
        // without a rotation) both get their codes.
        let other = try Self.parent("other", in: box, newKit: false)
        try Self.add("anna", anna, note: short, to: other)
        try Self.add("kari", kari, note: long, to: other)
        let fits = other.run(["issue", "--all", "--output-dir", box.path + "/other-codes"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(FileManager.default.fileExists(atPath: box.path + "/other-codes/kari.png"))
    }
}
