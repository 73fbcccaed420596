import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A yes-or-no question with no terminal to ask it on: one rule for every command that asks one
/// (docs/commands.md, `--yes`).
@Suite("A question with no terminal to ask on")
struct QuestionWithoutTerminalTests {
    typealias Machine = HouseholdStoryTests.Machine
    typealias Device = SealedFlowTests.Device

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

    /// `child remove` with no terminal to ask on (or --no-prompt) and no --yes removes
    /// nothing, exit 1, as `child add` and `import`; with --yes it removes.
    @Test func childRemoveWithNoTerminalToAskOnRemovesNothing() throws {
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent")
        let key = ReceivingKeyPair.generate().publicKey.text
        try #require(parent.run(["init", "--parent"]).status == 0)
        try #require(parent.run(["child", "add", "ola", "--key", key, "--account", "97104133219", "--yes"]).status == 0)
        let before = readFile(parent.vault)
        for extra in [[], ["--no-prompt"]] {
            let asked = parent.run(["child", "remove", "ola"] + extra)
            #expect(asked.status == 1 && asked.reason == .noTerminalToConfirm, "\(extra): \(asked.stderr)")
            #expect(TmuxSession.flowing(asked.stderr).contains("no terminal to confirm on; nothing was removed: check that ola is the child to forget (`lomme-vault child list`), then run again with --yes"), "\(extra): \(asked.stderr)")
        }
        #expect(readFile(parent.vault) == before, "a question not asked removed a child")
        let removed = parent.run(["child", "remove", "ola", "--yes"])
        #expect(removed.status == 0 && removed.stderr.contains("Removed ola"), "\(removed.stderr)")
        #expect(TmuxSession.flowing(CLI.run(["child", "remove", "--help"]).out).contains("with no terminal to ask on (or --no-prompt) and no --yes, nothing is removed"))
    }
}
