import Glibc
import LommeCore

/// `sync [DIR]`, `sync --output FILE` and `import FILE` of a household file: the parents'
/// machines agree through files each writes of its own (docs/SYNC.md). Every file read is
/// untrusted: one that does not open with this machine's key, whose signature does not
/// hold, of another household, of a machine no vouch names (or a removed one's, written
/// after its removal), an older copy (a roll back) or another file of a sequence already
/// taken, is refused with what is wrong, and nothing of it reaches the vault; the rest are
/// taken (`VaultContents.merge`), in one write of the vault; then this machine writes its
/// own journal, sealed to every other parent's machine the household vouches for.
package struct SyncService {
    package let context: VaultContext
    package let unlock: UnlockOptions

    package init(_ context: VaultContext, _ unlock: UnlockOptions) {
        self.context = context
        self.unlock = unlock
    }

    /// What became of one file.
    package enum Outcome: Sendable {
        case taken(VaultContents.MergeReport)
        /// A file of a sequence taken before: nothing new.
        case nothingNew
        /// This machine's own journal.
        case own
        /// The household, handed over to this machine: joined.
        case joined(household: String)
        case refused(LommeError)
        /// A removed parent's machine's journal, written after its removal: ignored from
        /// then on (said, and not a failure of the sync).
        case ignored(LommeError)
    }

    package struct FileResult: Sendable {
        package var name: String
        /// The machine that wrote it, as the household names it (or its fingerprint).
        package var writer: String?
        package var outcome: Outcome
    }

    package struct Report: Sendable {
        package var folder: String?
        package var files: [FileResult] = []
        /// This machine's journal as written (its path), and its sequence.
        package var wrote: String?
        package var sequence: UInt64?
        /// The other machines this machine's journal is sealed to (their names).
        package var recipients: [String] = []
        /// Every file lomme-vault reads was refused (and there was at least one).
        package var nothingRead: Bool {
            let others = files.filter {
                switch $0.outcome {
                case .own, .ignored: false
                default: true
                }
            }
            return !others.isEmpty && others.allSatisfy { if case .refused = $0.outcome { return true } else { return false } }
        }
    }

    func open() throws(LommeError) -> OpenedVault {
        let store = context.store
        guard store.exists else {
            throw LommeError(.notFound, .noVault, "there is no vault at \(store.path); create the parent's with `lomme-vault init --parent` (or `--join`)")
        }
        return try Session.open(context, unlock)
    }

    /// A file read and opened, before it is weighed against the vault.
    struct Read {
        var name: String
        var writer: IssuerKey
        var digest: String
        var journal: Journal?
        var handOver: HandOver?
        var facts: HouseholdFacts { journal?.facts ?? handOver!.facts }
    }

    // MARK: - sync DIR

    /// `sync [DIR]`: reads the folder's files, takes what holds, writes this machine's
    /// journal. `folder` nil: the folder remembered from the last sync. `yes`: join a
    /// household handed over without asking.
    package func sync(folder given: String?, yes: Bool) throws(LommeError) -> Report {
        let opened = try open()
        guard let path = given ?? opened.contents.household.sync?.folder else {
            throw LommeError.usage(.syncFolderNotSet, "give the sync folder once (`lomme-vault sync DIR`: a folder Syncthing, Nextcloud or git carries, or a USB stick); it is remembered after")
        }
        let folder = try SyncFolder(absolute(path))
        var report = Report(folder: folder.path)
        var files: [(String, [UInt8])] = []
        let mine = opened.contents.identity.map { SyncFolder.stem($0.signing.publicKey) }
        for (name, entry) in try folder.entries() {
            // A hand-over to another machine (this one's to a parent it added, or one
            // parent's to a third) is that machine's to read: left alone, as other files are.
            if case .handOver(_, let to) = entry, to != mine { continue }
            do throws(LommeError) { files.append((name, try folder.read(name, limit: HouseholdFile.maximumLength))) } catch {
                report.files.append(FileResult(name: name, writer: nil, outcome: .refused(error)))
            }
        }
        // This machine's journal as the folder holds it: rewritten unless it is the one this
        // vault last wrote (missing, older, or a sync killed between its two writes).
        let own = opened.contents.identity.map { SyncFolder.journalName($0.signing.publicKey) }
        let ownDigest = files.first { $0.0 == own }.map { SyncState.digest(of: $0.1) }
        let (written, results, journal) = try take(files, into: opened, folder: folder.path, ownJournal: ownDigest, yes: yes)
        report.files += results
        if let journal {
            try folder.replace(journal.name, with: journal.bytes)
            report.wrote = folder.path + "/" + journal.name
            report.sequence = written.contents.household.sync?.sequence
            report.recipients = journal.recipients.map(\.name)
        }
        return report
    }

    /// The machines this machine's journal is sealed to: the other parents' machines the
    /// household key vouches for now (an entry no vouch backs — a co-parent's machine can
    /// write entries, not vouches — is no recipient).
    static func recipients(_ contents: VaultContents, me: IssuerID) -> [Parent] {
        let vouch = contents.household.root?.vouch
        return contents.household.parents.filter { !$0.removed && $0.id != me && vouch?.names($0.key.issuer) == true }
    }

    /// What this machine's journal would say now (its entries and recipients), as a digest;
    /// nil when there is no journal to write (no household, no other machine).
    static func journalSubject(_ contents: VaultContents, me: IssuerID) -> String? {
        let recipients = Self.recipients(contents, me: me)
        guard !recipients.isEmpty, let facts = try? HouseholdFacts(of: contents, me: me, onlyMine: true) else { return nil }
        let text = JSON.object(facts.members(stamped: false)).text + recipients.map(\.id.hex).joined()
        return Sodium.hex(Sodium.blake2b(Array(text.utf8), length: 16))
    }

    /// The file name and bytes of this machine's journal, sealed to the others.
    static func journalFile(_ contents: VaultContents) throws(LommeError) -> (name: String, bytes: [UInt8], recipients: [Parent])? {
        guard contents.household.root != nil, let identity = contents.identity else { return nil }
        let me = identity.issuerID
        let others = Self.recipients(contents, me: me)
        guard !others.isEmpty else { return nil }
        let journal = try Journal(of: contents, me: me, sequence: contents.household.sync?.sequence ?? 0, now: Instant.now())
        let body = SecureBytes(copying: Array(journal.json.text.utf8))
        let bytes = try HouseholdFile.seal(body, kind: .journal, to: others.map(\.key.receiving), writer: identity.signing)
        return (SyncFolder.journalName(identity.signing.publicKey), bytes, others)
    }

    // MARK: - By hand

    /// `sync --output FILE`: this machine's journal as a file to carry by hand (mode 0600,
    /// never over an existing file), with the next sequence.
    package func output(to path: String) throws(LommeError) -> Report {
        let opened = try open()
        _ = try ParentService.root(opened.contents)
        let written = try VaultActions.updated(opened) { (contents: inout VaultContents) throws(LommeError) in
            var sync = contents.household.sync ?? SyncState()
            sync.sequence += 1
            contents.household.sync = sync
        }
        guard let file = try Self.journalFile(written.contents) else {
            throw LommeError.failure(.parentUnknown, "this household has no other parent's machine to write a journal for; add one with `lomme-vault parent add NAME --key KEY`")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            throw LommeError.failure(.outputFileExists, "\(path) exists; a journal is never written over a file: name a new one")
        }
        try FileIO.replace(path, with: file.bytes, mode: 0o600)
        return Report(folder: nil, files: [], wrote: path, sequence: written.contents.household.sync?.sequence, recipients: file.recipients.map(\.name))
    }

    /// `import FILE` of a household file (a journal carried by hand, or the household
    /// handed over): taken as `sync` takes a folder's file.
    package func importFile(_ bytes: [UInt8], name: String, yes: Bool) throws(LommeError) -> FileResult {
        let opened = try open()
        // A journal taken before (the same file again) changes nothing: the vault is not written.
        if let identity = opened.contents.identity, let one = try? read(name, bytes, identity: identity), one.journal != nil,
           case .nothingNew = Self.weigh(one, against: opened.contents, read: [one], me: identity.issuerID) {
            return FileResult(name: name, writer: opened.contents.household.machineName(one.writer.id, me: identity.issuerID), outcome: .nothingNew)
        }
        let (_, results, _) = try take([(name, bytes)], into: opened, folder: nil, yes: yes)
        guard let result = results.first else { throw LommeError.failure(.internalError, "nothing was read from \(name)") }
        switch result.outcome {
        case .refused(let error), .ignored(let error): throw error.with(message: "\(name): \(error.message)")
        default: return result
        }
    }

    // MARK: - Taking files

    /// Weighs `files` against `opened`, asks before joining a household handed over, and
    /// takes what holds in one write (re-checked under the write lock). Returns the vault as
    /// written and what became of each file.
    /// With a folder, also decides whether this machine's journal is due: when what it says
    /// changed, the folder's copy (`ownJournal`, its digest) is not the one this vault last
    /// wrote, or it is a day old; then the next sequence is taken and the journal sealed in
    /// the same write, and returned to be written into the folder after it.
    func take(_ files: [(String, [UInt8])], into opened: OpenedVault, folder: String?, ownJournal: String? = nil,
              yes: Bool) throws(LommeError) -> (OpenedVault, [FileResult], journal: (name: String, bytes: [UInt8], recipients: [Parent])?) {
        guard let identity = opened.contents.identity else { throw LommeError.failure(.noDeviceKeys, "this vault has no device keys; run `lomme-vault key` once") }
        let me = identity.issuerID
        var results: [FileResult] = []
        var read: [Read] = []
        for (name, bytes) in files {
            do throws(LommeError) {
                if let one = try self.read(name, bytes, identity: identity) { read.append(one) } else {
                    results.append(FileResult(name: name, writer: "this machine", outcome: .own))
                }
            } catch {
                results.append(FileResult(name: name, writer: nil, outcome: .refused(error)))
            }
        }
        let joining = read.first { $0.handOver != nil && opened.contents.household.root == nil }
        if let joining { try confirmJoin(joining, contents: opened.contents, yes: yes) }
        // By hand (`import FILE`), nothing to take writes nothing; a folder's sync always
        // writes (this machine's next sequence, the folder remembered).
        if folder == nil, joining == nil,
           !read.contains(where: { if case .taken = Self.weigh($0, against: opened.contents, read: read, me: me) { true } else { false } }) {
            return (opened, results + read.map { FileResult(name: $0.name, writer: opened.contents.household.machineName($0.writer.id, me: me),
                                                            outcome: Self.weigh($0, against: opened.contents, read: read, me: me)) }, nil)
        }
        var taken: [(Read, Outcome)] = []
        var journal: (name: String, bytes: [UInt8], recipients: [Parent])?
        // A new kit made on another machine replaces the one this vault's recovery slot opens
        // with: the slot goes in the same write (a replaced kit opens nothing).
        var kitReplaced = false
        let kitSlot = opened.sealed.version == VaultFormat.version2 && opened.sealed.slots.contains(where: \.opensWithTheKit)
        let written = try VaultActions.updated(opened, keep: { !(kitReplaced && $0.opensWithTheKit) }) { (contents: inout VaultContents) throws(LommeError) in
            taken = []
            kitReplaced = false
            if let folder { contents.household.sync = contents.household.sync ?? SyncState(); contents.household.sync?.folder = folder }
            if let joining { try Self.join(joining, into: &contents, me: identity) }
            for one in read.sorted(by: { $0.writer.bytes.lexicographicallyPrecedes($1.writer.bytes) }) {
                if let joining, one.digest == joining.digest {
                    taken.append((one, .joined(household: one.facts.household.fingerprint)))
                    continue
                }
                taken.append((one, Self.weigh(one, against: contents, read: read, me: me)))
            }
            for index in taken.indices {
                guard case .taken = taken[index].1 else { continue }
                let one = taken[index].0
                let household = contents.household.root?.publicKey
                var merged = contents.merge(one.facts, writer: one.writer, me: me, now: Instant.now())
                if household != nil, contents.household.root?.publicKey != household {
                    kitReplaced = true
                    merged.kitSlotRemoved = kitSlot
                }
                taken[index].1 = .taken(merged)
                let id = one.writer.id.hex
                var sync = contents.household.sync ?? SyncState()
                if let journal = one.journal {
                    sync.seen[id] = SyncState.Seen(sequence: journal.sequence, digest: one.digest)
                    sync.heard[id] = journal.written
                }
                contents.household.sync = sync
            }
            contents.household.prune(now: Int64(time(nil)))
            journal = nil
            if folder != nil, let subject = Self.journalSubject(contents, me: me) {
                var sync = contents.household.sync ?? SyncState()
                let now = Instant.now()
                let stale = sync.written.map { now.seconds - $0.seconds >= 86_400 || now < $0 } ?? true
                if subject != sync.journal || ownJournal == nil || ownJournal != sync.file || stale {
                    sync.sequence += 1
                    sync.journal = subject
                    sync.written = now
                    contents.household.sync = sync
                    journal = try Self.journalFile(contents)
                    sync.file = journal.map { SyncState.digest(of: $0.bytes) }
                }
                contents.household.sync = sync
            }
        }
        for (one, outcome) in taken {
            results.append(FileResult(name: one.name, writer: written.contents.household.machineName(one.writer.id, me: me), outcome: outcome))
        }
        return (written, results.sorted { $0.name < $1.name }, journal)
    }

    /// Opens a file with this machine's key and reads its body; nil for this machine's own
    /// journal. Throws what is wrong with it (exit 7).
    func read(_ name: String, _ bytes: [UInt8], identity: DeviceIdentity) throws(LommeError) -> Read? {
        if case .journal(let writer)? = SyncFolder.entry(name), writer == SyncFolder.stem(identity.signing.publicKey) { return nil }
        let file = try HouseholdFile.open(bytes, with: identity.receiving)
        if file.writer == identity.signing.publicKey { return nil }
        var text = file.body.bytes
        defer { SecureBytes.wipe(&text) }
        guard let json = try? JSON.parse(String(decoding: text, as: UTF8.self)) else {
            throw LommeError.refused(.householdFileDamaged, "its body is not understood")
        }
        let digest = SyncState.digest(of: bytes)
        var one = Read(name: name, writer: file.writer, digest: digest)
        switch file.kind {
        case .journal:
            let journal = try Journal(json: json, writer: file.writer.id)
            if let entry = SyncFolder.entry(name), case .journal(let stem) = entry, stem != SyncFolder.stem(file.writer) {
                throw LommeError.refused(.journalForked, "it is named after another machine than the one that wrote it (a copy of another's journal?)")
            }
            one.journal = journal
        case .handOver:
            let handOver = try HandOver(json: json)
            guard handOver.to == identity.signing.publicKey else {
                throw LommeError.refused(.handOverNotForUs, "it hands the household to another machine than this one")
            }
            one.handOver = handOver
        }
        guard one.facts.vouch.names(file.writer) || one.journal != nil else {
            throw LommeError.refused(.journalWriterNotVouched, "the machine that wrote it is not one its household key vouches for")
        }
        return one
    }

    /// Whether `one` may be taken into `contents`: of this household (or one its key rotated
    /// to), by a machine the newest vouch names (or a removed one's journal from before its
    /// removal), newer than the last of its journals taken.
    static func weigh(_ one: Read, against contents: VaultContents, read: [Read], me: IssuerID) -> Outcome {
        guard let root = contents.household.root else {
            return .refused(LommeError.refused(.notJoining, "this machine has no household yet: import the household handed over to it first"))
        }
        let facts = one.facts
        guard facts.household == root.publicKey || RootRotation.links(after: root.publicKey, in: facts.rotations) != nil
                || RootRotation.links(after: facts.household, in: root.rotations) != nil else {
            return .refused(LommeError.refused(.householdFileForeign, "it is of another household (household \(facts.household.fingerprint), not \(root.fingerprint))"))
        }
        // The newest vouch any of the files (or the vault) holds of the household's newest key.
        let newest = ([root.vouch] + read.map(\.facts).filter { $0.household == root.publicKey || RootRotation.links(after: root.publicKey, in: $0.rotations) != nil }.map(\.vouch))
            .max { $0.version < $1.version } ?? root.vouch
        let id = one.writer.id, hex = one.writer.id.hex
        if !newest.names(one.writer) {
            let removed = contents.household.parents.first { $0.id == id && $0.removed }
            guard let removed, let journal = one.journal, let until = removed.until, journal.sequence <= until else {
                guard removed != nil else {
                    return .refused(LommeError.refused(.journalWriterNotVouched, "it was written by a machine the household key does not vouch for"))
                }
                return .ignored(LommeError.refused(.journalWriterRemoved, "it was written by a parent's machine removed from the household, after its removal"))
            }
        }
        if let journal = one.journal, let seen = contents.household.sync?.seen[hex] {
            if journal.sequence < seen.sequence {
                return .refused(LommeError.refused(.journalRolledBack, "it is an older copy of that machine's journal (sequence \(journal.sequence), after \(seen.sequence) was taken here): rolled back"))
            }
            if journal.sequence == seen.sequence {
                return seen.digest == one.digest ? .nothingNew
                    : .refused(LommeError.refused(.journalForked, "it is another journal of a sequence already taken here (\(journal.sequence)): changed or forged"))
            }
        }
        return .taken(VaultContents.MergeReport())  // what it changes is said once it is merged
    }

    /// Before joining a household handed over: its fingerprint and the machine that handed
    /// it over, to compare with that machine (asked on a terminal; `yes` skips).
    func confirmJoin(_ one: Read, contents: VaultContents, yes: Bool) throws(LommeError) {
        guard !yes else { return }
        let household = one.facts.household.fingerprint, issuer = one.writer.fingerprint
        let name = one.facts.parents.first { $0.key.issuer == one.writer }?.name ?? "the other parent"
        guard context.interaction.canAsk, !unlock.noPrompt else {
            throw LommeError.failure(.noTerminalToConfirm, "the household \(household) is handed over by \(name)'s machine (issuer \(issuer)); no terminal to confirm on: compare both with `lomme-vault status` on that machine, then run again with --yes")
        }
        context.interaction.notice("The household \(household), handed over by \(name)'s machine (issuer \(issuer)).")
        guard try context.interaction.confirm("Are these the household and issuer fingerprints `lomme-vault status` shows on \(name)'s machine? Join the household?") else {
            throw LommeError.failure(.declined, "not joined; nothing changed")
        }
    }

    /// A joining vault takes the household handed over: the household key, its vouch and
    /// chain, the key of the credential fingerprints; then every entry, as a merge does.
    static func join(_ one: Read, into contents: inout VaultContents, me identity: DeviceIdentity) throws(LommeError) {
        guard let handOver = one.handOver else { return }
        guard handOver.facts.vouch.names(identity.signing.publicKey) else {
            throw LommeError.refused(.handOverNotForUs, "the household handed over does not vouch for this machine; ask the other parent to add it again (`lomme-vault parent add`)")
        }
        let facts = handOver.facts
        contents.household.root = HouseholdRoot(publicKey: facts.household, vouch: facts.vouch, rotations: facts.rotations, made: handOver.made)
        contents.household.credentialKey = handOver.credentialKey ?? contents.household.credentialKey
        contents.household.joining = false
        _ = contents.merge(facts, writer: one.writer, me: identity.issuerID, now: Instant.now())
        var sync = contents.household.sync ?? SyncState()
        sync.heard[one.writer.id.hex] = handOver.written
        contents.household.sync = sync
    }

    /// `path` made absolute against the working directory: the folder is remembered.
    func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }
}
