import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Issue 68, the new user's list, through the built binary: each thing a new user tripped
/// over, as it is now.
@Suite("The new user's list (issue 68)")
struct NewUserTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

    /// After a restore, `issue --all` says that a child who took the household's codes
    /// before has nothing to compare, and only a new child compares the fingerprint.
    @Test func issueAllAfterARestoreSaysOnlyANewChildCompares() throws {
        let home = try RecoveryKitTests.Household()
        let box = home.box
        let laptop = Machine(box, "laptop")
        try #require(laptop.run(["init", "--parent", "--restore", "--recovery-file", box.write("kit.txt", home.key)]).status == 0)
        try #require(laptop.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        try #require(laptop.run(["child", "add", "anna", "--key", home.anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        let issued = laptop.run(["issue", "--all", "--output-dir", box.path + "/codes"])
        #expect(issued.status == 0, "\(issued.stderr)")
        let said = TmuxSession.flowing(issued.stderr)
        #expect(said.contains("A child whose device took this household's codes before has nothing to compare")
                && said.contains("a new child's device shows it on its first import"), "\(issued.stderr)")
        #expect(!said.contains("Each child's device shows it"), "\(issued.stderr)")
    }
}

extension NewUserTests {
    /// `status` and `slots` name the recovery slot in plain words, no parentheses inside
    /// parentheses.
    @Test func statusNamesTheRecoverySlotCleanly() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent", "--recovery-kit", box.path + "/kit.pdf"]).status == 0)
        // status and slots never ask, and take no passphrase option.
        let status = CLI.run(["status"], environment: ["LOMME_VAULT": parent.vault])
        #expect(status.out.contains("1 recovery (the recovery kit's key)"), "\(status.out)")
        #expect(!status.out.contains("(recovery key (") && !status.out.contains("))"), "\(status.out)")
        #expect(CLI.run(["slots"], environment: ["LOMME_VAULT": parent.vault]).out.contains("the recovery kit's key"))
    }
}

extension NewUserTests {
    /// A question that cannot be asked is one rule: no terminal (or --no-prompt) and no
    /// --yes is exit 1, one line saying what to check, nothing stored; `import --help` and
    /// the man page say so.
    @Test func importWithNoTerminalToAskOnIsTheRuleOfEveryQuestion() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        let anna = try Device("anna", in: box)
        try #require(parent.run(["child", "add", "anna", "--key", anna.key.text, "--account", "97104133219", "--yes"]).status == 0)
        try #require(parent.run(["issue", "--to", "anna", "--output", box.path + "/anna.png"]).status == 0)
        let issuer = parent.run(["key", "--issuer"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let before = readFile(box.path + "/anna/vault")
        for extra in [[], ["--no-prompt"]] {
            let asked = anna.run(["import", box.path + "/anna.png", "--no-check"] + extra)
            let last = asked.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect(asked.status == 1, "\(extra): \(asked.stderr)")
            #expect(last.hasPrefix("lomme-vault: no terminal to confirm on; nothing was stored")
                    && last.contains("--expect-issuer \(issuer)") && last.contains("(or --yes)"), "\(extra): \(asked.stderr)")
        }
        #expect(readFile(box.path + "/anna/vault") == before, "a question not asked stored something")
        // A plain config: the same rule, the same code.
        let plain = anna.run(["import", "--stdin", "--no-check"], stdin: Sample.configA)
        #expect(plain.status == 1 && plain.stderr.contains("no terminal to confirm on") && plain.stderr.contains("run again with --yes"), "\(plain.stderr)")
        // child add on a pipe: the same exit code.
        let other = ReceivingKeyPair.generate().publicKey.text
        #expect(parent.run(["child", "add", "ola", "--key", other, "--account", "97104133219"]).status == 1)
        // The help and the man page say it.
        let help = TmuxSession.flowing(CLI.run(["import", "--help"]).out)
        #expect(help.contains("with no terminal to ask on (or --no-prompt) and neither, nothing is stored (exit 1)"), "\(help)")
        #expect(help.contains("Exit 1: the question answered no, or no terminal to ask it on"), "\(help)")
        let page = TmuxSession.flowing(String(decoding: readFile(packageRoot + "/man/lomme-vault.1"), as: UTF8.self))
        #expect(page.contains("Exit 1: the question answered no, or no terminal to ask it on"), "the man page")
    }
}

extension NewUserTests {
    /// `init --parent` on an existing vault says so before a kit is made: on a terminal no
    /// kit is drawn and no group asked; with --recovery-kit no file appears.
    @Test func initOnAnExistingVaultSaysSoBeforeAnyKit() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        try #require(parent.run(["init", "--parent"]).status == 0)
        let before = readFile(parent.vault)
        let kit = box.path + "/kit.pdf"
        let file = parent.run(["init", "--parent", "--recovery-kit", kit])
        // Required: a kit shown on the terminal below would wait for its groups for ever.
        try #require(file.status == 1 && file.stderr.contains("init never overwrites one") && file.stderr.contains("nothing was made"), "\(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: kit))
        let session = TmuxSession(box, command: "\"$LV\" init --parent --vault '\(parent.vault)'")
        session.wait(for: "EXIT=")
        let screen = session.flowed
        #expect(screen.contains("a vault already exists at \(parent.vault); init never overwrites one") && screen.contains("EXIT=1"), "\(screen)")
        #expect(!screen.contains("LVR1") && !screen.lowercased().contains("type group") && !screen.contains("Passphrase"), "\(screen)")
        #expect(readFile(parent.vault) == before)
    }
}

extension NewUserTests {
    /// A child types the passphrase once: the receipt `import` offers is made from the
    /// vault the import opened.
    @Test func importAsksThePassphraseOnceForTheReceiptToo() throws {
        let (box, _, parentPrint, code, _) = try SealedTerminalTests.aChildWithACode()
        let session = TmuxSession(box, command: "\"$LV\" import --stdin --vault '\(box.path)/child/vault' < '\(code)'")
        session.wait(for: "Passphrase for ")
        session.type("child passphrase 2026")
        session.wait(for: "Is \(parentPrint) the issuer fingerprint")
        session.type("y")
        session.wait(for: "Show a receipt for the parent to photograph")
        session.type("y")
        // Until the command ends, or asks for the passphrase a second time (which nobody types).
        var screen = ""
        for _ in 0..<12_000 {
            screen = session.screen
            if screen.contains("EXIT=") || screen.components(separatedBy: "Passphrase for ").count > 2 { break }
            usleep(50_000)
        }
        #expect(screen.components(separatedBy: "Passphrase for ").count == 2, "the passphrase was asked again: \(screen)")
        #expect(screen.contains("EXIT=0") && screen.contains("Receipt for the code issued"), "\(screen)")
    }
}
