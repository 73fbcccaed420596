import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

/// `issue --all`: a fresh sealed code for every child. Everything is checked first (each
/// child's key and config, that each code fits a QR code at the level, the folder), so a
/// problem stops the run before any code is recorded. Each code is recorded before it is
/// written or shown, and marked handed out once its file is synced or its drawing finished.
struct IssueAll {
    let issue: Issue
    let lifetime: Int64

    func run() throws {
        if issue.outputDir == nil && !issue.dryRun && !(Terminal.isTerminal(STDOUT_FILENO) && Prompt.isAvailable) {
            throw LommeError.usage(.outputDirNeeded, "issue --all shows the codes one after another on a terminal; to write them to files give --output-dir DIR")
        }
        let context = try issue.vault.prepare()
        let service = IssueService(context)
        let request = IssueService.Request(from: issue.from, recipient: .plain, lifetime: lifetime, checksums: !issue.noCheck,
                                           unlock: issue.vault.unlockOptions)
        var plan = try service.planAll(request, nowMs: VaultContents.nowMilliseconds())
        let level = try IssuedCode.level(.sealed, asked: issue.level)
        for item in plan.items {
            guard (try? QRMatrix.encode(item.trial, level: level)) != nil else {
                throw LommeError.failure(.qrPayloadTooLarge, "\(item.child.name)'s code does not fit a QR code at level \(level.rawValue) (\(item.trial.utf8.count) characters); nothing was issued: give \(item.child.name) fewer or shorter --field values (`lomme-vault child remove` and `child add`), or use a lower --level")
            }
        }
        if issue.dryRun {
            let lines = plan.items.map { "\($0.child.name): would get a new code (now: \($0.reason))" }
            try Terminal.show(lines.joined(separator: "\n") + "\n")
            let who = plan.items.count == 1 ? plan.items[0].child.name + " gets" : "each of the \(plan.items.count) children gets"
            Terminal.info("Dry run: nothing was issued or recorded. Without --dry-run, \(who) a code sealed to their key.")
            return
        }
        let folder = try issue.outputDir.map { (path) throws(LommeError) in try OutputFolder(path) }
        var written = 0
        var issuer: String?
        for (index, item) in plan.items.enumerated() {
            let name = item.child.name + ".png"
            if let folder { try folder.moveAside(name) }
            guard let issued = try Self.issue(item, of: &plan, service) else { continue }
            issuer = issued.issuer?.fingerprint
            let code = try IssuedCode(payload: issued.payload, kind: .sealed, level: level)
            let label = "\(item.child.name) — code \(index + 1) of \(plan.items.count)"
            if let folder {
                try folder.replace(name, with: code.fileBytes(for: name), mode: code.kind.fileMode)
                try service.handedOut(issued, of: &plan, now: Int64(time(nil)))
                written += 1
                Terminal.info("Wrote \(folder.path)/\(name): sealed to \(item.child.name) (\(item.child.receivingKey.fingerprint)), expires \(Instant(seconds: issued.expires).shown).")
                continue
            }
            if index > 0 { try Terminal.output("\u{1B}[H\u{1B}[2J") }  // the next code on a clean screen
            let last = index == plan.items.count - 1
            let next = last ? [] : ["Enter: the next code (\(plan.items[index + 1].child.name)); Ctrl-C stops (the codes shown so far are recorded)."]
            let lower = level == .L ? "" : "a lower --level than \(level.rawValue) or "
            try Issue.notHandedOutIfUnwritten(issued) {
                try TerminalCode.show(code, before: ([label] + Issue.summary(issued, code: code)).joined(separator: "\n"),
                                      note: label + ": " + Issue.recap(issued), printedAfter: next,
                                      instead: "\(lower)--output-dir DIR (a file for each child)")
            }
            try service.handedOut(issued, of: &plan, now: Int64(time(nil)))
            if !last {
                Terminal.info(next[0])
                _ = try Prompt.ask("")
            }
        }
        if let folder {
            Terminal.info("\(written) sealed code\(written == 1 ? "" : "s") in \(folder.path), each for one child's device only; recorded in this vault (`lomme-vault child list`).")
            if let issuer {
                Terminal.info("Issuer fingerprint: \(issuer). A child whose device took this household's codes before has nothing to compare; a new child's device shows it on its first import: tell that child to compare it (or to import with --expect-issuer \(issuer)).")
            }
        }
    }

    /// Issues one planned code; nil (said as a warning) when the child was removed or
    /// rekeyed meanwhile, which the service checks under the write lock.
    static func issue(_ item: IssueService.Plan.Item, of plan: inout IssueService.Plan, _ service: IssueService) throws -> IssueService.Issued? {
        do throws(LommeError) {
            return try service.issue(item, of: &plan, nowMs: VaultContents.nowMilliseconds())
        } catch {
            guard error.reason == .childChangedMeanwhile else { throw error }
            Terminal.error("warning: " + error.message)
            return nil
        }
    }
}
