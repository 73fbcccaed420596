import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// What a receipt promises, through the built binary: the child's device makes one only for
/// the sealed code whose config it holds now; the parent's `child confirm` of it marks that
/// code handed out and confirmed, a second confirm of the same receipt changes nothing, and
/// a receipt naming another credential than the record's is refused. Each refusal is one
/// line on stderr with its exit code, and leaves the vault as it was.
@Suite("Receipt promises")
struct ReceiptPromiseTests {
    typealias Family = RecordTruthTests.Family
    typealias Device = SealedFlowTests.Device

    /// Anna's device, given a sealed code of the parent's and holding it.
    static func annaHoldsACode(_ family: Family, name: String = "anna.png") throws {
        let code = family.box.path + "/" + name
        let issued = family.parent.run(["issue", "--to", "anna", "--output", code])
        try #require(issued.status == 0, "\(issued.stderr)")
        let imported = family.anna.run(["import", code, "--yes", "--no-check"])
        try #require(imported.status == 0, "\(imported.stderr)")
    }

    /// The receipt `device` shows (`receipt --text`), which must be made.
    static func receipt(_ device: Device) throws -> String {
        let made = device.run(["receipt", "--text"])
        try #require(made.status == 0, "\(made.stderr)")
        return made.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A refusal: `status`, one line on stderr, nothing on stdout.
    static func expectRefused(_ result: CLI.Result, _ status: Int32, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(what): exit \(result.status), wanted \(status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("lomme-vault: ") && result.stderr.split(separator: "\n").count == 1,
                "\(what): one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.out.isEmpty, "\(what): printed \(result.out)", sourceLocation: sourceLocation)
    }

    /// The parent's record of `id`.
    static func record(_ family: Family, id: String) throws -> [String: Any] {
        try #require(try family.records().first { $0["id"] as? String == id }, "no record of \(id)")
    }

    /// After `set FIELD` on the child, and after a plain code replaced the sealed config
    /// (`import --allow-plain`), the config held is not what the last sealed code carried:
    /// `receipt` refuses (exit 6, as its help says), writes nothing and draws nothing. A
    /// new sealed code makes it true again.
    @Test func aReceiptIsMadeOnlyForTheSealedCodeTheDeviceHoldsNow() throws {
        let family = try Family()
        let box = family.box
        let anna = family.anna
        let vault = box.path + "/anna/vault"
        try Self.annaHoldsACode(family)
        _ = try Self.receipt(anna)

        func refused(_ after: String) {
            let before = readFile(vault)
            Self.expectRefused(anna.run(["receipt", "--text"]), 6, "receipt --text after \(after)")
            let file = box.path + "/receipt-after-\(after.prefix(3)).png"
            Self.expectRefused(anna.run(["receipt", "--output", file]), 6, "receipt --output after \(after)")
            #expect(!FileManager.default.fileExists(atPath: file), "after \(after): a receipt was written")
            let unchanged = readFile(vault) == before
            #expect(unchanged, "after \(after): the child's vault changed")
        }

        // `set` on the child's device.
        let set = anna.run(["set", "tokenUrl"], stdin: "https://bank.example/another-token\n")
        try #require(set.status == 0, "\(set.stderr)")
        refused("set")

        // A new sealed code: the receipt is true again.
        try Self.annaHoldsACode(family, name: "anna2.png")
        _ = try Self.receipt(anna)

        // A plain code over the pinned issuer.
        let plain = family.parent.run(["issue", "--output", box.path + "/plain.png"])
        try #require(plain.status == 0, "\(plain.stderr)")
        let replaced = anna.run(["import", box.path + "/plain.png", "--yes", "--no-check", "--allow-plain"])
        try #require(replaced.status == 0, "\(replaced.stderr)")
        refused("a plain code")
    }

    /// A code recorded but never marked handed out (the run was killed after its file was
    /// written and before the record said so) that the child imported anyway: the child's
    /// receipt proves it arrived, so `child confirm` marks it handed out and confirmed, and
    /// `child list` shows the child current and confirmed.
    @Test func aConfirmedReceiptMarksTheCodeHandedOut() throws {
        let family = try Family()
        let box = family.box
        let codes = box.path + "/codes"
        // strace kills `issue --all` at its third rename of the vault: the backup before the
        // write that marks Anna's code handed out (the first two wrote its record), after
        // her file was renamed into place.
        let killed = CLI.run(["issue", "--all", "--output-dir", codes, "--passphrase-file", family.parent.folder + "/pw"],
                             environment: ["LOMME_VAULT": family.parent.vault],
                             shell: "exec strace -f -qq -o /dev/null -e trace=rename -e inject=rename:signal=SIGKILL:when=3 \"$LV\" \"$@\"")
        #expect(killed.status != 0, "\(killed.status) \(killed.stderr)")
        let records = try family.records()
        try #require(records.count == 1 && records[0]["child"] as? String == "anna" && records[0]["handedOut"] is NSNull,
                     "anna's code recorded, not handed out: \(records)")
        try #require(FileManager.default.fileExists(atPath: codes + "/anna.png"), "anna's file was written")
        try #require(try family.reasons("anna") == ["neverHandedOut"])
        let id = try #require(records[0]["id"] as? String)

        let imported = family.anna.run(["import", codes + "/anna.png", "--yes", "--no-check"])
        try #require(imported.status == 0, "\(imported.stderr)")
        let confirmed = family.parent.run(["child", "confirm", CLI.qrImage(try Self.receipt(family.anna), in: box, name: "receipt")])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        let record = try Self.record(family, id: id)
        #expect(record["handedOut"] is Int && record["confirmed"] is Int, "handed out and confirmed: \(record)")
        let anna = try #require(try family.children()["anna"])
        #expect(anna["current"] as? Bool == true && anna["notCurrent"] as? [String] == [], "\(anna)")
        #expect(anna["confirmed"] as? Bool == true && anna["confirmedAt"] is String, "\(anna)")
    }

    /// The same receipt confirmed again: exit 0 (it is confirmed), and nothing written —
    /// the vault's bytes are the same and the confirmation keeps its first time.
    @Test func theSameReceiptConfirmedTwiceChangesNothing() throws {
        let family = try Family()
        try Self.annaHoldsACode(family)
        let photo = CLI.qrImage(try Self.receipt(family.anna), in: family.box, name: "receipt")
        let first = family.parent.run(["child", "confirm", photo])
        #expect(first.status == 0, "\(first.stderr)")
        let id = try #require(try family.records().last?["id"] as? String)
        let confirmedAt = try #require(try Self.record(family, id: id)["confirmed"] as? Int)
        let listed = family.parent.run(["child", "list", "--json"]).out
        let before = readFile(family.parent.vault)

        let again = family.parent.run(["child", "confirm", photo])
        #expect(again.status == 0 && again.stderr.split(separator: "\n").count == 1, "\(again.status): \(again.stderr)")
        let unchanged = readFile(family.parent.vault) == before
        #expect(unchanged, "the second confirm rewrote the vault")
        #expect(try Self.record(family, id: id)["confirmed"] as? Int == confirmedAt)
        #expect(family.parent.run(["child", "list", "--json"]).out == listed)
    }

    /// A receipt made by Anna's device for this parent and for her code, right in all but the
    /// credential it names (made with PyNaCl, `Tests/scripts/receipt-make.py`): refused (exit
    /// 7), nothing changed. The same script naming the record's credential is confirmed, so
    /// the refusal is for the credential alone.
    @Test func aReceiptNamingAnotherCredentialIsRefused() throws {
        let family = try Family()
        let box = family.box
        try Self.annaHoldsACode(family)
        let record = try #require(try family.records().last)
        let id = try #require(record["id"] as? String), credential = try #require(record["credential"] as? String)
        func made(naming credential: String) throws -> String {
            let script = "/usr/bin/python3 '\(packageRoot)/Tests/scripts/receipt-make.py' '\(family.parent.vault)' '\(family.parent.folder)/pw' "
                + "'\(box.path)/anna/vault' '\(box.path)/anna.pw' \(id) \(credential)"
            let result = CLI.run([], shell: script)
            try #require(result.status == 0, "receipt-make.py: \(result.stderr)")
            return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var other = Array(credential)
        other[0] = other[0] == "0" ? "1" : "0"
        let before = readFile(family.parent.vault)
        let refused = family.parent.run(["child", "confirm", CLI.qrImage(try made(naming: String(other)), in: box, name: "other-credential")])
        Self.expectRefused(refused, 7, "a receipt naming another credential")
        let unchanged = readFile(family.parent.vault) == before
        #expect(unchanged, "a refused receipt changed the vault")
        #expect(try family.children()["anna"]?["confirmed"] as? Bool == false)

        let right = family.parent.run(["child", "confirm", CLI.qrImage(try made(naming: credential), in: box, name: "right-credential")])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(try family.children()["anna"]?["confirmed"] as? Bool == true)
    }
}
