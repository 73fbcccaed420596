import ArgumentParser
import LommeCore
import LommeVaultKit

/// `sync [DIR]`, `sync --output FILE`: the parents' machines agree through a folder.
struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Exchange the household with the other parents' machines through a folder (remembered after the first use).",
        discussion: """
            Each parent's machine writes only files of its own into DIR: its journal \
            (lomme-FINGERPRINT.journal: what it changed — the config and its revision, children \
            added, rekeyed or removed, every code it issued and every receipt, the vouch), signed \
            by its issuer and sealed to every other parent's machine, written atomically (a temp \
            file, fsync, rename), so any tool that copies files can carry the folder: Syncthing, \
            Nextcloud, a USB stick, or a git repository (each machine commits, pulls and pushes \
            its own file: never a conflict). Other files (.git/, .stfolder, conflict copies) are \
            left alone. sync reads the others' files and takes what holds; the same files give \
            every machine the same household, in any order. The folder is untrusted: a file \
            changed, cut short, rolled back (an older copy), of another household, of a machine no \
            vouch names, or of a removed one written after its removal is refused with one line \
            naming it, and nothing of it is taken; the rest is read. A second parent's machine \
            that was handed the household into the folder joins it here (asked on a terminal; \
            --yes skips). --output FILE writes this machine's journal to FILE instead, to carry by \
            hand (`lomme-vault import FILE` there). Exit 7 only when every file to read was refused; \
            1: the folder is unusable; 6: no vault, or no household here.
            """
    )

    @Argument(help: ArgumentHelp("The shared folder (remembered: later `lomme-vault sync` needs none).", valueName: "DIR")) var folder: String?
    @Option(name: [.short, .long], help: ArgumentHelp("Write this machine's journal to FILE (mode 0600) instead of a folder.", valueName: "FILE"))
    var output: String?
    @Flag(name: [.short, .long], help: "Join a household handed over into the folder without asking.") var yes = false
    @OptionGroup var vault: VaultOptions

    func validate() throws {
        if folder != nil && output != nil { throw ValidationError("give a folder or --output FILE, not both") }
    }

    func run() throws {
        let context = try vault.prepare()
        let service = SyncService(context, vault.unlockOptions)
        if let output {
            let report = try service.output(to: output)
            Terminal.info("Wrote this machine's journal (sequence \(report.sequence ?? 0)) to \(output), sealed to \(report.recipients.joined(separator: ", ")): take it there with `lomme-vault import \(output)`.")
            return
        }
        let report = try service.sync(folder: folder, yes: yes)
        for file in report.files { Self.say(file) }
        if let wrote = report.wrote {
            Terminal.info("Wrote this machine's journal (sequence \(report.sequence ?? 0)) to \(wrote), for \(report.recipients.joined(separator: ", ")).")
        } else if report.files.allSatisfy({ if case .refused = $0.outcome { return true } else { return false } }) {
            Terminal.info("Nothing was written: this machine has no household yet, or no other parent's machine to write for.")
        }
        if report.nothingRead {
            throw LommeError.refused(.syncNothingTaken, "nothing in \(report.folder ?? "the folder") could be taken (every file was refused, above)")
        }
    }

    /// One line per file: taken (and what it changed), nothing new, or refused and why.
    static func say(_ file: SyncService.FileResult) {
        let who = file.writer.map { " (\($0))" } ?? ""
        switch file.outcome {
        case .own, .nothingNew: break
        case .joined(let household):
            Terminal.info("\(file.name)\(who): joined the household \(household); this machine can issue codes now.")
        case .taken(let report):
            var changes: [String] = []
            if let revision = report.revision { changes.append("the config (revision \(revision))") }
            if report.conflict { changes.append("a conflict: the config was changed two ways (`lomme-vault status`)") }
            if report.vouch { changes.append("a newer vouch") }
            if report.children > 0 { changes.append("\(report.children) child\(report.children == 1 ? "" : "ren")") }
            if report.parents > 0 { changes.append("\(report.parents) parent\(report.parents == 1 ? "" : "s")") }
            if report.records > 0 { changes.append("\(report.records) record\(report.records == 1 ? "" : "s")") }
            Terminal.info("\(file.name)\(who): " + (changes.isEmpty ? "nothing new" : "took " + changes.joined(separator: ", ")))
            if report.kitSlotRemoved {
                Terminal.info("""
                    The household has a new recovery kit, made on \(file.writer ?? "another parent's machine"): \
                    the kit it replaces no longer opens this vault (its recovery slot was removed). Keep the new \
                    kit; it restores the household (`lomme-vault init --parent --restore`), and this vault opens \
                    with its passphrase.
                    """)
            }
        case .refused(let error):
            Terminal.error("\(file.name): refused: \(error.message)")
        case .ignored(let error):
            Terminal.info("\(file.name)\(who): ignored: \(error.message)")
        }
    }
}
