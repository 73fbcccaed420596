import Glibc
import LommeCore
import LommeQR
import LommeVaultKit

/// `issue --all`: a fresh sealed code for every child. Everything is checked first (each
/// child's key and config, the folder), so a problem stops the run before any code is
/// written or recorded. Each code is recorded in the vault before it is written or shown.
struct IssueAll {
    let issue: Issue
    let lifetime: Int64

    func run() throws {
        if issue.outputDir == nil && !issue.dryRun && !(Terminal.isTerminal(STDOUT_FILENO) && Prompt.isAvailable) {
            throw LommeError.usage("issue --all shows the codes one after another on a terminal; to write them to files give --output-dir DIR")
        }
        let context = try issue.vault.prepare()
        let service = IssueService(context)
        let request = IssueService.Request(from: issue.from, recipient: .plain, lifetime: lifetime, checksums: !issue.noCheck,
                                           unlock: issue.vault.unlockOptions)
        let plan = try service.planAll(request)
        if issue.dryRun {
            let lines = plan.items.map { "\($0.child.name): a new code (\($0.reason))" }
            Terminal.show(lines.joined(separator: "\n") + "\n")
            Terminal.info("Dry run: nothing was issued or recorded. Without --dry-run each of the \(plan.items.count) gets a code sealed to their key.")
            return
        }
        if let directory = issue.outputDir { try Self.prepareFolder(directory) }
        let level = issue.level ?? .M
        for (index, item) in plan.items.enumerated() {
            let issued = try service.issue(item, of: plan, now: Int64(time(nil)))
            let code = try IssuedCode(payload: issued.payload, level: level)
            let label = "\(item.child.name) — code \(index + 1) of \(plan.items.count)"
            if let directory = issue.outputDir {
                let path = directory + "/" + item.child.name + ".png"
                try FileIO.replace(path, with: code.fileBytes(for: path), mode: 0o644)
                Terminal.info("Wrote \(path): sealed to \(item.child.name) (\(item.child.receivingKey.fingerprint)), expires \(VaultContents.timestamp(Int(issued.expires))).")
                continue
            }
            if index > 0 { Terminal.output("\u{1B}[H\u{1B}[2J") }  // the next code on a clean screen
            let last = index == plan.items.count - 1
            let next = last ? [] : ["Enter: the next code (\(plan.items[index + 1].child.name)); Ctrl-C stops (the codes shown so far are recorded)."]
            try TerminalCode.show(code, before: ([label] + Issue.summary(issued, code: code)).joined(separator: "\n"),
                                  note: label + ": " + Issue.recap(issued), printedAfter: next)
            if !last {
                Terminal.info(next[0])
                _ = try Prompt.ask("")
            }
        }
        if let directory = issue.outputDir {
            Terminal.info("\(plan.items.count) sealed code\(plan.items.count == 1 ? "" : "s") in \(directory), each for one child's device only; recorded in this vault (`lomme-vault child list`).")
        }
    }

    /// The folder for the codes: made when missing; must be a folder.
    static func prepareFolder(_ path: String) throws(LommeError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT, mkdir(path, 0o755) == 0 else {
                throw LommeError.failure("cannot make the folder \(path): \(String(cString: strerror(errno))); nothing was issued")
            }
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw LommeError.failure("\(path) is not a folder; give --output-dir a folder (it is made when missing); nothing was issued")
        }
        guard access(path, W_OK) == 0 else {
            throw LommeError.failure("cannot write into \(path): \(String(cString: strerror(errno))); nothing was issued")
        }
    }
}
