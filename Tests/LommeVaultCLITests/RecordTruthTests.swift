import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The parent's record tells the truth, through the built binary: a code is recorded before
/// it leaves and counts as handed out only once its file is synced or its drawing finished;
/// `child list` says why a child is not current; the child's receipt confirms that child's
/// last code and nothing else.
@Suite("The record tells the truth")
struct RecordTruthTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    /// A parent with the config stored and two children, Anna and Ola, each with a vault.
    struct Family {
        let box = CLI.Sandbox()
        let parent: Machine
        let anna: Device
        let ola: Device

        init() throws {
            parent = Machine(box, "parent")
            try #require(parent.run(["init", "--parent"]).status == 0)
            let stored = parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB)
            try #require(stored.status == 0, "\(stored.stderr)")
            anna = try Device("anna", in: box)
            ola = try Device("ola", in: box)
            for (name, device, account) in [("anna", anna, "97104133219"), ("ola", ola, "12345678903")] {
                let added = parent.run(["child", "add", name, "--key", device.key.text, "--account", account, "--yes"])
                try #require(added.status == 0, "\(added.stderr)")
            }
        }

        /// `child list --json`, by name.
        func children() throws -> [String: [String: Any]] {
            let listed = parent.run(["child", "list", "--json"])
            let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.out.utf8)) as? [[String: Any]], "\(listed.stderr)")
            return Dictionary(uniqueKeysWithValues: array.map { ($0["name"] as! String, $0) })
        }

        func reasons(_ name: String) throws -> [String] { try children()[name]?["notCurrent"] as? [String] ?? ["?"] }

        /// The parent's vault as PyNaCl opens it (Tests/scripts/vault-open.py).
        func plaintext() throws -> [String: Any] {
            let opened = CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/vault-open.py' '\(parent.vault)' '\(parent.folder)/pw'")
            try #require(opened.status == 0, "\(opened.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: Data(opened.out.utf8)) as? [String: Any])
        }

        func records() throws -> [[String: Any]] {
            try #require((try plaintext()["household"] as? [String: Any])?["issued"] as? [[String: Any]])
        }

        /// The options a shell line in tmux gives the parent's vault.
        var parentOptions: String { "--vault '\(parent.vault)' --passphrase-file '\(parent.folder)/pw'" }
    }

    @Test func aCodeThatCannotBeWrittenIsRecordedButNeverHandedOut() throws {
        let family = try Family()
        let missing = family.box.path + "/no-such-folder/anna.png"
        let failed = family.parent.run(["issue", "--to", "anna", "--output", missing])
        #expect(failed.status == 1 && failed.reason == .fileNotWritten, "\(failed.stderr)")
        let records = try family.records()
        #expect(records.count == 1 && records[0]["child"] as? String == "anna" && records[0]["handedOut"] is NSNull,
                "recorded before it left, not handed out: \(records)")
        let anna = try #require(try family.children()["anna"])
        #expect(anna["current"] as? Bool == false && anna["notCurrent"] as? [String] == ["neverHandedOut"] && anna["pending"] is String)
        let table = family.parent.run(["child", "list"]).out
        #expect(table.contains("no: never handed out"), "\(table)")
        // Written: handed out, current.
        #expect(family.parent.run(["issue", "--to", "anna", "--output", family.box.path + "/anna.png"]).status == 0)
        #expect(try family.children()["anna"]?["current"] as? Bool == true)
        #expect(try family.records().last?["handedOut"] is Int)
    }

    /// Ctrl-C while `issue` waits for a larger window, and a kill: recorded, never handed
    /// out. A drawing that finishes: handed out.
    @Test func interruptedDrawingsAreNotHandedOut() throws {
        let family = try Family()
        // The script's shell ignores SIGINT so that it lives to print the exit status.
        let small = TmuxSession(family.box, command: "trap '' INT; \"$LV\" issue --to anna \(family.parentOptions)", columns: 60, rows: 20)
        try #require(small.wait(for: "drawn when the window is large enough"))
        small.tmux(["send-keys", "-t", "t", "C-c"])
        try #require(small.wait(for: "EXIT="))
        #expect(small.screen.contains("EXIT=130"), "\(small.screen)")
        #expect(try family.reasons("anna") == ["neverHandedOut"])

        let killed = TmuxSession(family.box, command: "\"$LV\" issue --to ola \(family.parentOptions)", columns: 60, rows: 20)
        try #require(killed.wait(for: "drawn when the window is large enough"))
        let pid = try #require(killed.childPid)
        kill(pid, SIGKILL)
        try #require(killed.wait(for: "EXIT="))
        #expect(try family.reasons("ola") == ["neverHandedOut"])
        #expect(try family.records().count == 2)

        let drawn = TmuxSession(family.box, command: "\"$LV\" issue --to anna \(family.parentOptions)", columns: 120, rows: 80)
        try #require(drawn.wait(for: "EXIT="))
        #expect(drawn.screen.contains("EXIT=0"), "\(drawn.screen)")
        #expect(try family.children()["anna"]?["current"] as? Bool == true)
    }

    @Test func issueAllChecksThatEveryCodeFitsBeforeRecordingAny() throws {
        let family = try Family()
        let long = "note=" + String(repeating: "a long remark ", count: 150)
        let added = family.parent.run(["child", "add", "kari", "--key", try Device("kari", in: family.box).key.text,
                                       "--account", "97104133219", "--field", long, "--yes"])
        try #require(added.status == 0, "\(added.stderr)")
        let before = readFile(family.parent.vault)
        let all = family.parent.run(["issue", "--all", "--output-dir", family.box.path + "/codes"])
        #expect(all.status == 1 && all.stderr.hasPrefix("lomme-vault: kari's code does not fit a QR code at level M"), "\(all.stderr)")
        #expect(all.reason == .qrPayloadTooLarge && all.stderr.split(separator: "\n").count == 1, "\(all.stderr)")
        #expect(readFile(family.parent.vault) == before, "nothing recorded")
        #expect(!FileManager.default.fileExists(atPath: family.box.path + "/codes/anna.png"))
    }

    /// A second round killed after Anna's new code was recorded and before its file was
    /// written: Anna's old file is not where the new one goes, and the record says why
    /// she is not current. (strace kills the process as it renames the new file in.)
    @Test func aKilledRoundLeavesNoOldCodeBesideTheRecord() throws {
        let family = try Family()
        let codes = family.box.path + "/codes"
        #expect(family.parent.run(["issue", "--all", "--output-dir", codes]).status == 0)
        #expect(try family.children().values.allSatisfy { $0["current"] as? Bool == true })
        #expect(family.parent.run(["set", "clientSecret"], stdin: "a renewed secret\n").status == 0)
        let killed = CLI.run(["issue", "--all", "--output-dir", codes, "--passphrase-file", family.parent.folder + "/pw"],
                             environment: ["LOMME_VAULT": family.parent.vault],
                             shell: "exec strace -f -qq -o /dev/null -e trace=renameat -e inject=renameat:signal=SIGKILL:when=2 \"$LV\" \"$@\"")
        #expect(killed.status != 0, "\(killed.status) \(killed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: codes + "/anna.png"), "the old code is not where the new one goes")
        #expect(FileManager.default.fileExists(atPath: codes + "/anna.png.old"), "it was moved aside")
        let anna = try #require(try family.children()["anna"])
        #expect(anna["current"] as? Bool == false && anna["notCurrent"] as? [String] == ["secretRenewed"] && anna["pending"] is String)
        #expect(try family.records().count == 3, "anna's new code was recorded before it could leave")
    }

    @Test func aReceiptConfirmsThatChildAndNoOtherAndOldOrForeignOnesChangeNothing() throws {
        let family = try Family()
        let box = family.box
        #expect(family.parent.run(["issue", "--to", "anna", "--output", box.path + "/anna.png"]).status == 0)
        #expect(family.parent.run(["issue", "--to", "ola", "--output", box.path + "/ola.png"]).status == 0)
        for (child, device) in [("anna", family.anna), ("ola", family.ola)] {
            #expect(device.run(["import", box.path + "/\(child).png", "--yes", "--no-check"]).status == 0)
        }
        let first = family.anna.run(["receipt", "--text"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.hasPrefix("LR1:") && first.count == 90, "\(first)")
        // An independent reader: PyNaCl opens it with the two vaults' keys.
        let opened = CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/receipt-open.py' '\(family.parent.vault)' '\(family.parent.folder)/pw' '\(box.path)/anna/vault' '\(box.path)/anna.pw' '\(first)'")
        #expect(opened.status == 0 && opened.out.hasPrefix("ok "), "\(opened.out) \(opened.stderr)")

        // A phone photo of the screen: turned, blurred, JPEG.
        #expect(family.anna.run(["receipt", "--output", box.path + "/receipt.png"]).status == 0)
        let photo = box.path + "/receipt.jpg"
        #expect(CLI.run([], shell: "convert '\(box.path)/receipt.png' -background white -rotate 12 -blur 0x1.2 -quality 75 '\(photo)'").status == 0)
        let confirmed = family.parent.run(["child", "confirm", photo])
        #expect(confirmed.status == 0 && confirmed.stderr.contains("Confirmed: anna's device holds the code"), "\(confirmed.stderr)")
        var children = try family.children()
        #expect(children["anna"]?["confirmed"] as? Bool == true && children["ola"]?["confirmed"] as? Bool == false)

        // A new code for Anna: the receipt for the old one is refused, nothing changes.
        #expect(family.parent.run(["issue", "--to", "anna", "--output", box.path + "/anna2.png"]).status == 0)
        #expect(family.anna.run(["import", box.path + "/anna2.png", "--yes", "--no-check"]).status == 0)
        let before = readFile(family.parent.vault)
        let older = family.parent.run(["child", "confirm", photo])
        #expect(older.status == 7 && older.reason == .receiptOlderCode, "\(older.stderr)")
        #expect(older.stderr.split(separator: "\n").count == 1)
        #expect(readFile(family.parent.vault) == before)

        // A receipt for a code of another household's parent: refused, nothing changes.
        let stranger = try Device("stranger", in: box)
        let foreign = stranger.run(["issue", "--from", box.write("config.json", Sample.configB), "--no-check", "--to", family.ola.key.text,
                                    "--output", box.path + "/foreign.png"])
        #expect(foreign.status == 0, "\(foreign.stderr)")
        #expect(family.ola.run(["import", box.path + "/foreign.png", "--yes", "--no-check", "--trust-new-issuer"]).status == 0)
        let foreignReceipt = family.ola.run(["receipt", "--text"]).out
        let refused = family.parent.run(["child", "confirm", CLI.qrImage(foreignReceipt.trimmingCharacters(in: .whitespacesAndNewlines), in: box, name: "foreign")])
        #expect(refused.status == 7 && refused.reason == .receiptUnknownCode, "\(refused.stderr)")
        #expect(readFile(family.parent.vault) == before)

        // Anna's old device, after `child rekey` to a new one: its receipt is no child's.
        let newDevice = try Device("anna-new", in: box)
        #expect(family.parent.run(["child", "rekey", "anna", "--key", newDevice.key.text, "--yes"]).status == 0)
        let rekeyedBefore = readFile(family.parent.vault)
        let oldDevice = family.parent.run(["child", "confirm", CLI.qrImage(family.anna.run(["receipt", "--text"]).out, in: box, name: "old-device")])
        #expect(oldDevice.status == 7 && oldDevice.reason == .receiptNoChild, "\(oldDevice.stderr)")
        #expect(readFile(family.parent.vault) == rekeyedBefore)
        children = try family.children()
        #expect(children["anna"]?["confirmed"] as? Bool == false, "the new device has confirmed nothing")

        // Not a receipt at all: said so.
        let notOne = family.parent.run(["child", "confirm", box.path + "/ola.png"])
        #expect(notOne.status == 7 && notOne.reason == .receiptNotOne, "\(notOne.stderr)")
    }

    @Test func setStoresNoNearMissAndPrintsNoValue() throws {
        let family = try Family()
        let parent = family.parent
        let value = "Xq7-value-that-must-not-show"
        let before = readFile(parent.vault)
        for (name, code, words) in [("clientSecert", 6, "did you mean clientSecret?"), ("clientsecrets", 6, "did you mean clientSecret?"),
                                    ("ClientSecrt", 6, "did you mean clientSecret?"), ("tokenURI", 6, "did you mean tokenUrl?"),
                                    ("userid1", 6, "did you mean userId?"), ("nickname", 6, "set --new nickname")] {
            let result = parent.run(["set", name], stdin: value + "\n")
            #expect(result.status == Int32(code) && result.stderr.contains(words), "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains(value) && result.out.isEmpty, "\(name)")
            #expect(readFile(parent.vault) == before, "\(name) changed the vault")
        }
        // Any case of a known field is that field.
        let secret = parent.run(["set", "ClientSecret"], stdin: value + "\n")
        #expect(secret.status == 0 && secret.stderr.contains("Set clientSecret"), "\(secret.stderr)")
        #expect(!secret.stderr.contains(value))
        let plaintext = try family.plaintext()
        let config = try #require(plaintext["config"] as? [String: Any])
        #expect(config["clientSecret"] as? String == value && config.keys.sorted() == ["accountNr", "clientId", "clientSecret", "tokenUrl", "userId"])

        // A new field needs --new; one whose name says token is a secret everywhere.
        #expect(parent.run(["set", "--new", "clientsecret"], stdin: "x\n").status == 64)
        let added = parent.run(["set", "--new", "apiToken"], stdin: "tok-Secret-42\n")
        #expect(added.status == 0, "\(added.stderr)")
        let issued = parent.run(["issue", "--to", "anna", "--output", family.box.path + "/anna.png"])
        #expect(issued.status == 0 && issued.stderr.contains("apiToken") && !issued.stderr.contains("tok-Secret-42"), "\(issued.stderr)")
        let imported = family.anna.run(["import", family.box.path + "/anna.png", "--yes", "--no-check"])
        #expect(imported.status == 0 && imported.stderr.contains("apiToken") && !imported.stderr.contains("tok-Secret-42"), "\(imported.stderr)")
        let plain = parent.run(["issue", "--output", family.box.path + "/plain.png"])
        #expect(plain.status == 0 && !plain.stderr.contains("tok-Secret-42"))
        let scanned = CLI.run(["scan", family.box.path + "/plain.png"])
        #expect(scanned.out.contains("apiToken") && !scanned.out.contains("tok-Secret-42"), "\(scanned.out)")
        #expect(family.anna.run(["get", "apiToken"]).out == "tok-Secret-42", "asked by name, it is given")

        // unset: an extra field, never one of the four.
        #expect(parent.run(["unset", "apitoken"]).status == 0)
        #expect(parent.run(["unset", "clientId"]).status == 64)
        let none = parent.run(["unset", "apiToken"])
        #expect(none.status == 6, "\(none.stderr)")
    }

    /// A field asked on a terminal whose name says password: without echo, twice.
    @Test func aSecretNamedFieldIsAskedWithoutEcho() throws {
        let family = try Family()
        let tty = TmuxSession(family.box, command: "\"$LV\" set --new dbPassword \(family.parentOptions)")
        try #require(tty.wait(for: "dbPassword (not shown): "))
        tty.type("hunter2-long")
        try #require(tty.wait(for: "dbPassword again: "))
        tty.type("hunter2-long")
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=0") && !tty.screen.contains("hunter2"), "\(tty.screen)")
    }

    @Test func whatTheParentChangesMakesChildrenStaleWithTheReason() throws {
        let family = try Family()
        #expect(family.parent.run(["issue", "--all", "--output-dir", family.box.path + "/codes"]).status == 0)
        #expect(try family.children().values.allSatisfy { $0["current"] as? Bool == true })
        let expiry = family.parent.run(["set", "secretExpires"], stdin: "2099-02-24\n")
        #expect(expiry.stderr.contains("Not current now: anna (expiry changed), ola (expiry changed)"), "\(expiry.stderr)")
        #expect(try family.reasons("ola") == ["expiryChanged"])
        #expect(family.parent.run(["issue", "--to", "ola", "--output", family.box.path + "/ola.png"]).status == 0)
        #expect(try family.reasons("ola") == [] && family.reasons("anna") == ["expiryChanged"])
        let table = family.parent.run(["child", "list"]).out
        #expect(table.contains("no: expiry changed") && table.contains("yes"), "\(table)")
    }

    /// Codes issued one after another are a millisecond apart at most and never dated after
    /// the moment they were made: the child takes the last one, not "from the future".
    @Test func issueTimesNeverRunAheadOfTheClock() throws {
        let family = try Family()
        try #require(family.parent.run(["unlock"]).status == 0)
        defer { _ = CLI.run(["lock"], environment: ["LOMME_VAULT": family.parent.vault]) }
        var last = ""
        for index in 0..<25 {
            last = family.box.path + "/code-\(index).png"
            #expect(family.parent.run(["issue", "--to", "anna", "--output", last]).status == 0)
        }
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let device = try #require(try family.plaintext()["device"] as? [String: Any])
        let lastIssued = try #require(device["lastIssuedMs"] as? Int64)
        #expect(lastIssued <= wall, "the last code is dated \(lastIssued - wall) ms ahead of the clock")
        let imported = family.anna.run(["import", last, "--yes", "--no-check"])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    /// `issue --all` paused at "Enter: the next code" while another shell removes the next
    /// child: no code for them is sealed or recorded.
    @Test func aChildRemovedWhileIssueAllWaitsGetsNoCode() throws {
        let family = try Family()
        let tty = TmuxSession(family.box, command: "\"$LV\" issue --all \(family.parentOptions)", columns: 120, rows: 90)
        try #require(tty.wait(for: "Enter: the next code (ola)"))
        #expect(family.parent.run(["child", "remove", "ola", "--yes"]).status == 0)
        tty.type("")
        try #require(tty.wait(for: "EXIT="))
        #expect(tty.screen.contains("EXIT=0") && tty.screen.contains("warning: ola was removed"), "\(tty.screen)")
        #expect(try family.records().compactMap { $0["child"] as? String } == ["anna"])
    }

    /// A folder someone else can write into, or a link, is refused: whoever could write
    /// there could swap two children's codes.
    @Test func theOutputFolderMustBeTheUsersOwn() throws {
        let family = try Family()
        let box = family.box
        let before = readFile(family.parent.vault)
        func refused(_ folder: String, _ words: String) {
            let result = family.parent.run(["issue", "--all", "--output-dir", folder])
            #expect(result.status == 1 && result.stderr.contains(words) && result.stderr.hasSuffix("nothing was issued\n"), "\(folder): \(result.stderr)")
            #expect(readFile(family.parent.vault) == before, "\(folder): recorded")
        }
        let open = box.path + "/open"
        mkdir(open, 0o755)
        chmod(open, 0o777)
        refused(open, "other users may write into it")
        mkdir(box.path + "/real", 0o755)
        symlink(box.path + "/real", box.path + "/link")
        refused(box.path + "/link", "symbolic link")
        refused(box.path + "/link/", "symbolic link")
        if getuid() == 0 {
            let theirs = box.path + "/theirs"
            mkdir(theirs, 0o755)
            chown(theirs, 65534, 65534)
            refused(theirs, "belongs to another user")
        }
        // A sticky folder others may write into (as /tmp) is fine: they cannot replace our files.
        let sticky = box.path + "/sticky"
        mkdir(sticky, 0o755)
        chmod(sticky, 0o1777)
        #expect(family.parent.run(["issue", "--all", "--output-dir", sticky]).status == 0)
    }

    /// `issue --to lvk1…` to a key on no child's list is recorded too (by the key's fingerprint).
    @Test func aCodeToAKeyOnNoChildsListIsRecorded() throws {
        let family = try Family()
        let stranger = try Device("neighbour", in: family.box)
        #expect(family.parent.run(["issue", "--to", stranger.key.text, "--output", family.box.path + "/x.png"]).status == 0)
        let records = try family.records()
        #expect(records.count == 1 && records[0]["child"] == nil && records[0]["recipient"] as? String == stranger.key.fingerprint)
        #expect(records[0]["handedOut"] is Int)
    }
}
