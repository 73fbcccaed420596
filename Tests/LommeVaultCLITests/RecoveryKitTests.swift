import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The household survives the parent's laptop, through the built binary: the kit as a PDF
/// read by tools no one here wrote (poppler, zbarimg), checked, used to unlock, photographed;
/// the laptop lost and restored from it; the children following the household key without
/// a question and refusing the lost laptop; a stranger refused; a household from before
/// kits given one.
@Suite("Recovery kit and household key")
struct RecoveryKitTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    /// The text `pdftoppm` + `zbarimg` read from a kit PDF, and the rendered page.
    static func readKit(_ pdf: String, in box: CLI.Sandbox) throws -> (qr: String, page: String) {
        let prefix = box.path + "/page-\(UUID().uuidString.prefix(6))"
        let rendered = CLI.run([], shell: "pdftoppm -r 150 -png '\(pdf)' '\(prefix)' && zbarimg --quiet --raw '\(prefix)-1.png'")
        try #require(rendered.status == 0, "poppler/zbar: \(rendered.stderr)")
        return (rendered.out.trimmingCharacters(in: .whitespacesAndNewlines), prefix + "-1.png")
    }

    /// A parent with a kit (PDF), the config, and Anna's device holding a code from it.
    struct Household {
        let box = CLI.Sandbox()
        let parent: Machine
        let anna: Device
        let kit: String
        let key: String

        init() throws {
            parent = Machine(box, "parent")
            kit = box.path + "/kit.pdf"
            let made = parent.run(["init", "--parent", "--recovery-kit", kit])
            try #require(made.status == 0, "\(made.stderr)")
            #expect(made.stderr.contains("Wrote the household's recovery kit to \(kit)"), "\(made.stderr)")
            #expect(CLI.mode(kit) == 0o600, "the kit is a secret")
            key = try RecoveryKitTests.readKit(kit, in: box).qr
            // The key without dashes, a dot and the day it was made (days since 1970).
            let today = Int(time(nil) / 86_400)
            #expect(key.hasPrefix("LVR1:") && key.count == 5 + 35 + 1 + String(today).count && key.hasSuffix(".\(today)"))
            try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
            anna = try Device("anna", in: box)
            try #require(parent.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
            try give(from: parent)
        }

        /// A code from `machine` to Anna, imported on her device.
        func give(from machine: Machine, name: String = "anna.png") throws {
            let issued = machine.run(["issue", "--to", "anna", "--output", box.path + "/" + name])
            try #require(issued.status == 0, "\(issued.stderr)")
            let imported = anna.run(["import", box.path + "/" + name, "--yes", "--no-check"])
            try #require(imported.status == 0, "\(imported.stderr)")
        }

        /// The household key Anna's device pinned (hex), and the parent's (hex).
        func pinned() throws -> (child: String?, parent: String?) {
            let child = (try RecoveryKitTests.plaintext(box.path + "/anna/vault", box.path + "/anna.pw")["device"] as? [String: Any])?["household"] as? [String: Any]
            let parent = ((try RecoveryKitTests.plaintext(self.parent.vault, self.parent.folder + "/pw")["household"] as? [String: Any])?["root"] as? [String: Any])
            return (child?["key"] as? String, parent?["public"] as? String)
        }
    }

    @Test func theKitIsAPageOthersReadAndItOpensTheVault() throws {
        let home = try Household()
        let box = home.box
        // pdftotext finds the key's groups and the household's fingerprint.
        let text = CLI.run([], shell: "pdftotext '\(home.kit)' -").out
        let compact = Array(home.key.dropFirst(5).prefix(35))
        let groups = stride(from: 0, to: 35, by: 5).map { String(compact[$0..<$0 + 5]) }
        #expect(groups.count == 7 && groups.allSatisfy { text.contains($0) }, "\(text)")
        let root = try #require(try home.pinned().parent.flatMap(Sodium.unhex))
        #expect(text.contains(Fingerprint.of(root)), "the household's fingerprint: \(text)")
        // verify: right (the text as printed, in a file), wrong by one character, changes nothing.
        let before = readFile(home.parent.vault)
        let printed = box.write("kit.txt", groups.joined(separator: " - ") + "\n")
        let right = home.parent.run(["recovery", "verify", "--recovery-file", printed])
        #expect(right.status == 0 && right.stderr.contains("is this household's"), "\(right.stderr)")
        var typo = Array(groups.joined(separator: "-"))
        typo[8] = typo[8] == "A" ? "B" : "A"
        let wrong = home.parent.run(["recovery", "verify", "--recovery-file", box.write("typo.txt", String(typo))])
        #expect(wrong.status == 64 && wrong.stderr == "lomme-vault: group 2 of the recovery key has a typo; check it against the kit\n", "\(wrong.stderr)")
        let stranger = home.parent.run(["recovery", "verify", "--recovery-file", box.write("other.txt", "LVR1:" + Self.otherKey())])
        #expect(stranger.status == 4 && stranger.stderr.split(separator: "\n").count == 1, "\(stranger.stderr)")
        #expect(readFile(home.parent.vault) == before, "verify changed the vault")
        // A phone photo of the printed page is the key too.
        let photo = box.path + "/kit-photo.jpg"
        let page = try Self.readKit(home.kit, in: box).page
        #expect(CLI.run([], shell: "convert '\(page)' -background white -rotate 7 -blur 0x1.4 -resize 60% -quality 70 '\(photo)'").status == 0)
        let byPhoto = home.parent.run(["recovery", "verify", "--recovery-image", photo])
        #expect(byPhoto.status == 0, "\(byPhoto.stderr)")
        // A photo that is not a kit: no code (2), another code (7, saying what it is).
        let blank = box.path + "/blank.png"
        #expect(CLI.run([], shell: "convert -size 200x200 xc:white '\(blank)'").status == 0)
        #expect(home.parent.run(["recovery", "verify", "--recovery-image", blank]).status == 2)
        let code = home.parent.run(["recovery", "verify", "--recovery-image", box.path + "/anna.png"])
        #expect(code.status == 7 && code.reason == .notARecoveryKit, "\(code.stderr)")
        // scan shows what a kit is, never its key.
        let scanned = CLI.run(["scan", page])
        #expect(scanned.out.contains("recovery kit") && !scanned.out.contains(String(groups[0] + "-" + groups[1])), "\(scanned.out)")
    }

    /// The passphrase forgotten: `unlock --with recovery`, then `passwd`.
    @Test func theKitUnlocksAndThenANewPassphraseIsSet() throws {
        let home = try Household()
        let box = home.box
        let file = box.write("kit.txt", home.key + "\n")
        let env = ["LOMME_VAULT": home.parent.vault]
        defer { _ = CLI.run(["lock"], environment: env) }
        let unlocked = CLI.run(["unlock", "--with", "recovery", "--recovery-file", file, "--no-prompt"], environment: env)
        #expect(unlocked.status == 0 && unlocked.stderr.contains("lomme-vault passwd"), "\(unlocked.stderr)")
        let newPhrase = box.write("new", "a brand new passphrase 2026\n")
        let changed = CLI.run(["passwd", "--new-passphrase-file", newPhrase, "--no-prompt"], environment: env)
        #expect(changed.status == 0, "\(changed.stderr)")
        _ = CLI.run(["lock"], environment: env)
        #expect(CLI.run(["get", "clientId", "--passphrase-file", newPhrase], environment: env).status == 0)
        let oldPhrase = CLI.run(["get", "clientId", "--passphrase-file", home.parent.folder + "/pw"], environment: env)
        #expect(oldPhrase.status == 4)
        // The kit still opens it after the new passphrase.
        #expect(CLI.run(["recovery", "verify", "--recovery-file", file], environment: env).status == 0)
        let wrongKit = CLI.run(["unlock", "--with", "recovery", "--recovery-file", box.write("x", Self.otherKey()), "--no-prompt"], environment: env)
        #expect(wrongKit.status == 4, "\(wrongKit.stderr)")
    }

    /// What a thief of the vault and its passphrase cannot do: make a kit (the old one is
    /// needed) or vouch for anything; nothing of the kit is in the vault.
    @Test func theVaultAndPassphraseAloneCannotMakeAKit() throws {
        let home = try Household()
        let before = readFile(home.parent.vault)
        let noOld = home.parent.run(["recovery", "kit", "--output", home.box.path + "/new.pdf"], stdin: "")
        #expect(noOld.status != 0 && !FileManager.default.fileExists(atPath: home.box.path + "/new.pdf"), "\(noOld.stderr)")
        let wrongOld = home.parent.run(["recovery", "kit", "--output", home.box.path + "/new.pdf", "--recovery-file", home.box.write("x", Self.otherKey())])
        #expect(wrongOld.status == 4 && !FileManager.default.fileExists(atPath: home.box.path + "/new.pdf"), "\(wrongOld.stderr)")
        #expect(readFile(home.parent.vault) == before)
        // Neither the key nor the household key's private half is in the opened vault.
        let plaintext = CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/vault-open.py' '\(home.parent.vault)' '\(home.parent.folder)/pw'").out
        #expect(try home.pinned().child == home.pinned().parent, "Anna pinned the household key with the issuer")
        let key = String(home.key.dropFirst(5))
        #expect(!plaintext.isEmpty && !plaintext.contains(key) && !plaintext.contains(key.replacingOccurrences(of: "-", with: "")))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(plaintext.utf8)) as? [String: Any])
        let household = try #require(root["household"] as? [String: Any])["root"] as? [String: Any]
        #expect(household?.keys.sorted() == ["made", "public", "vouch"], "only the public half and what it signed: \(String(describing: household))")
    }

    /// The story: the laptop's folder gone, a new laptop from the kit, the child following
    /// without a question, the lost laptop's codes refused, a stranger's parent refused.
    @Test func aNewLaptopFromTheKitIsFollowedAndTheLostOneRefused() throws {
        let home = try Household()
        let box = home.box
        // A copy of the laptop before it is lost: what a thief might keep issuing from.
        let thief = Machine(box, "thief")
        #expect(CLI.run([], shell: "rm -rf '\(thief.folder)' && cp -a '\(home.parent.folder)' '\(thief.folder)'").status == 0)
        #expect(CLI.run([], shell: "rm -rf '\(home.parent.folder)'").status == 0)
        let laptop = Machine(box, "laptop")
        let restored = laptop.run(["init", "--parent", "--restore", "--recovery-file", box.write("kit.txt", home.key)])
        #expect(restored.status == 0 && restored.stderr.contains("lomme-vault issue --all"), "\(restored.stderr)")
        // A vault already there is never overwritten.
        let before = readFile(laptop.vault)
        let again = laptop.run(["init", "--parent", "--restore", "--recovery-file", box.path + "/kit.txt"])
        #expect(again.status == 1 && again.reason == .vaultExists, "\(again.stderr)")
        #expect(readFile(laptop.vault) == before)
        // The config again, Anna again from her key, a code: imported with no question.
        #expect(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        #expect(laptop.run(["child", "add", "anna", "--key", home.anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        #expect(laptop.run(["issue", "--to", "anna", "--output", box.path + "/new.png"]).status == 0)
        let imported = home.anna.run(["import", box.path + "/new.png", "--yes", "--no-check"])
        #expect(imported.status == 0 && imported.stderr.contains("vouches for it") && imported.stderr.contains("no longer trusts"),
                "\(imported.stderr)")
        #expect(!imported.stderr.contains("--trust-new-issuer"))
        // The lost laptop's code, issued after: refused, the child's vault unchanged.
        #expect(thief.run(["issue", "--to", "anna", "--output", box.path + "/lost.png"]).status == 0)
        let annaBefore = readFile(box.path + "/anna/vault")
        let lost = home.anna.run(["import", box.path + "/lost.png", "--yes", "--no-check"])
        #expect(lost.status == 7 && lost.reason == .issuerRevoked, "\(lost.stderr)")
        #expect(readFile(box.path + "/anna/vault") == annaBefore)
        // A stranger's parent (a household of its own): refused.
        let stranger = Machine(box, "stranger")
        #expect(stranger.run(["init", "--parent", "--recovery-kit", box.path + "/stranger.pdf"]).status == 0)
        let foreign = stranger.run(["issue", "--from", box.write("c.json", Sample.configB), "--no-check", "--to", home.anna.key.text,
                                    "--output", box.path + "/foreign.png"])
        #expect(foreign.status == 0)
        let refused = home.anna.run(["import", box.path + "/foreign.png", "--yes", "--no-check"])
        #expect(refused.status == 7 && refused.reason == .householdForeign, "\(refused.stderr)")
        #expect(readFile(box.path + "/anna/vault") == annaBefore)
    }

    /// A household made before kits (no household key): given a kit, its child learns the
    /// key from the next code, and then follows a restore too.
    @Test func aHouseholdFromBeforeKitsGetsOneAndItsChildFollowsARestore() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"], stdin: "").status == 0)  // no terminal: no kit
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        let anna = try Device("anna", in: box)
        try #require(parent.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        try #require(parent.run(["issue", "--to", "anna", "--output", box.path + "/1.png"]).status == 0)
        try #require(anna.run(["import", box.path + "/1.png", "--yes", "--no-check"]).status == 0)
        // The parent makes a kit now: no old one needed.
        let kit = parent.run(["recovery", "kit", "--output", box.path + "/kit.png"])
        #expect(kit.status == 0, "\(kit.stderr)")
        let key = CLI.run([], shell: "zbarimg --quiet --raw '\(box.path)/kit.png'").out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("LVR1:"))
        try #require(parent.run(["issue", "--to", "anna", "--output", box.path + "/2.png"]).status == 0)
        let learned = anna.run(["import", box.path + "/2.png", "--yes", "--no-check"])
        #expect(learned.status == 0 && learned.stderr.contains("Household key") && learned.stderr.contains("pinned"), "\(learned.stderr)")
        // Laptop lost; restored; Anna follows.
        #expect(CLI.run([], shell: "rm -rf '\(parent.folder)'").status == 0)
        let laptop = Machine(box, "laptop")
        #expect(laptop.run(["init", "--parent", "--restore", "--recovery-image", box.path + "/kit.png"]).status == 0)
        #expect(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        #expect(laptop.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        #expect(laptop.run(["issue", "--to", "anna", "--output", box.path + "/3.png"]).status == 0)
        let followed = anna.run(["import", box.path + "/3.png", "--yes", "--no-check"])
        #expect(followed.status == 0 && followed.stderr.contains("vouches for it"), "\(followed.stderr)")
    }

    /// A new kit made with the old one: the child takes the new household key (the old one
    /// vouched for it); the old kit then opens nothing.
    @Test func aNewKitIsVouchedForByTheOldAndTheChildFollows() throws {
        let home = try Household()
        let box = home.box
        let old = box.write("old.txt", home.key)
        let made = home.parent.run(["recovery", "kit", "--output", box.path + "/kit2.svg", "--recovery-file", old])
        #expect(made.status == 0 && made.stderr.contains("replaces the old one"), "\(made.stderr)")
        #expect(CLI.mode(box.path + "/kit2.svg") == 0o600)
        #expect(home.parent.run(["recovery", "verify", "--recovery-file", old]).status == 4, "the old kit opens nothing")
        // An existing file is never written over.
        let over = home.parent.run(["recovery", "kit", "--output", box.path + "/kit2.svg", "--recovery-file", old])
        #expect(over.status != 0)
        let before = try home.pinned()
        #expect(before.child != nil && before.child != before.parent, "the child holds the old household key until the next code")
        try home.give(from: home.parent, name: "after.png")
        let after = try home.pinned()
        #expect(after.child != nil && after.child == after.parent, "the child follows the new household key")
    }

    /// A key of another household's kit (well formed; fixtures/recovery-v1's, which made no vault here).
    static func otherKey() -> String { "CWCTU-LKKXC-JXLYX-L7NF8-UYU58-MTQXY-6Z5AL" }

    /// A vault's contents as PyNaCl opens it (Tests/scripts/vault-open.py).
    static func plaintext(_ vault: String, _ pw: String) throws -> [String: Any] {
        let opened = CLI.run([], shell: "/usr/bin/python3 '\(packageRoot)/Tests/scripts/vault-open.py' '\(vault)' '\(pw)'")
        try #require(opened.status == 0, "\(opened.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(opened.out.utf8)) as? [String: Any])
    }
}
