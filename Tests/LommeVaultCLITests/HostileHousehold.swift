import Foundation
import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// Three parents' machines of one household, through the built binary, for the tests of a
/// hostile sync folder: mor's vault holds the recovery kit, the config and Anna; far and
/// tante joined (`init --parent --join`, `parent add` on mor's with the kit, `import` of
/// the hand-over), and every machine synced through `folder` until each has taken every
/// other's journal. Made once per test process and copied for each test (`cp -a`): each
/// test gets vaults and a folder of its own.
final class HostileHousehold {
    typealias Machine = HouseholdStoryTests.Machine

    let box = CLI.Sandbox()
    let mor: Machine, far: Machine, tante: Machine
    var all: [Machine] { [mor, far, tante] }
    var folder: String { box.path + "/folder" }
    /// The recovery key, as the kit's QR code holds it (`--recovery-file`).
    var kit: String { box.path + "/kit.txt" }

    init() throws {
        let template = try Self.template.get()
        let copied = CLI.run([], shell: "cp -a '\(template)'/. '\(box.path)'/")
        try #require(copied.status == 0, "cp: \(copied.stderr)")
        mor = Machine(box, "mor")
        far = Machine(box, "far")
        tante = Machine(box, "tante")
    }

    /// The template's folder: made on first use, removed when the test process exits.
    nonisolated(unsafe) static var templatePath = ""
    static let template: Result<String, any Error> = Result {
        let path = NSTemporaryDirectory() + "lomme-hostile-template-\(getpid())"
        templatePath = path
        atexit { try? FileManager.default.removeItem(atPath: HostileHousehold.templatePath) }
        try? FileManager.default.removeItem(atPath: path)
        try #require(mkdir(path, 0o700) == 0)
        try make(in: path)
        return path
    }

    static func make(in path: String) throws {
        let box = CLI.Sandbox()
        let mor = Machine(box, "mor"), far = Machine(box, "far"), tante = Machine(box, "tante")
        let pdf = box.path + "/kit.pdf"
        try require(mor.run(["init", "--parent", "--recovery-kit", pdf]), "init --parent")
        box.write("kit.txt", try RecoveryKitTests.readKit(pdf, in: box).qr + "\n")
        try FileManager.default.removeItem(atPath: pdf)
        for page in (try? FileManager.default.contentsOfDirectory(atPath: box.path).filter { $0.hasPrefix("page-") }) ?? [] {
            try? FileManager.default.removeItem(atPath: box.path + "/" + page)
        }
        try require(mor.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB), "import")
        try require(mor.run(["child", "add", "anna", "--key", ReceivingKeyPair.generate().publicKey.text, "--account", "97104133219", "--yes"]), "child add")
        for machine in [far, tante] {
            try require(machine.run(["init", "--parent", "--join"]), "init --parent --join")
            let key = try parentKey(machine)
            let handOver = box.path + "/\(machine.name).lvh"
            try require(mor.run(["parent", "add", machine.name, "--key", key, "--recovery-file", box.path + "/kit.txt", "--output", handOver,
                                 "--yes", "--as", "mor"]), "parent add \(machine.name)")
            try require(machine.run(["import", handOver, "--yes"]), "import of \(machine.name)'s hand-over")
            try FileManager.default.removeItem(atPath: handOver)
        }
        let folder = box.path + "/folder"
        try #require(mkdir(folder, 0o700) == 0)
        for machine in [mor, far, tante, mor, far, tante] {
            try require(machine.run(["sync", folder]), "sync on \(machine.name)")
        }
        let copied = CLI.run([], shell: "cp -a '\(box.path)'/. '\(path)'/")
        try #require(copied.status == 0, "cp: \(copied.stderr)")
    }

    static func require(_ result: CLI.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(result.status == 0, "\(what): exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
    }

    /// A machine's parent key (`key --parent --text`).
    static func parentKey(_ machine: Machine) throws -> String {
        let shown = machine.run(["key", "--parent", "--text"])
        try require(shown, "key --parent --text on \(machine.name)")
        return shown.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func parentKey(_ machine: Machine) throws -> ParentKey { try ParentKey(text: try Self.parentKey(machine)) }

    /// The name of `machine`'s journal in a sync folder.
    func journalName(_ machine: Machine) throws -> String { SyncFolder.journalName(try parentKey(machine).issuer) }

    /// A name of the form a journal's has, of a machine no one here has.
    static func strangerName() -> String { SyncFolder.journalName(IssuerKeyPair.generate().publicKey) }

    /// A new folder (mode 0700) in the sandbox.
    func newFolder(_ name: String) throws -> String {
        let path = box.path + "/" + name
        try #require(mkdir(path, 0o700) == 0, "mkdir \(path)")
        return path
    }

    /// `sync DIR` on `machine`.
    @discardableResult
    func sync(_ machine: Machine, _ folder: String? = nil) -> CLI.Result {
        machine.run(["sync", folder ?? self.folder])
    }

    /// `child add NAME` on `machine`, with a fresh receiving key.
    func addChild(_ name: String, on machine: Machine) throws {
        try Self.require(machine.run(["child", "add", name, "--key", ReceivingKeyPair.generate().publicKey.text, "--account", "12345678903", "--yes"]),
                         "child add \(name) on \(machine.name)")
    }

    /// The children `machine` holds, by name.
    func children(_ machine: Machine) throws -> [String] {
        let listed = machine.run(["child", "list", "--json"])
        try Self.require(listed, "child list --json on \(machine.name)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]])
        return items.compactMap { $0["name"] as? String }.sorted()
    }

    /// `machine`'s vault as an independent reader opens it (Tests/scripts/vault-open.py).
    func plaintext(_ machine: Machine) throws -> [String: Any] {
        try RecoveryKitTests.plaintext(machine.vault, machine.folder + "/pw")
    }

    /// Everything `machine`'s vault holds but what any sync changes of its own: the sync
    /// folder it remembers, and the sequence, digests and time of its own journal. As canonical JSON, to compare
    /// (never to print: it holds the config's secret).
    func state(_ machine: Machine) throws -> Data {
        var plain = try plaintext(machine)
        if var household = plain["household"] as? [String: Any] {
            if var sync = household["sync"] as? [String: Any] {
                sync["folder"] = nil
                sync["sequence"] = nil
                sync["journal"] = nil
                sync["written"] = nil
                sync["file"] = nil
                household["sync"] = sync
            }
            plain["household"] = household
        }
        return try JSONSerialization.data(withJSONObject: plain, options: [.sortedKeys])
    }

    /// What `machine` remembers of the journals it took: each machine's last sequence and digest.
    func seen(_ machine: Machine) throws -> String {
        let household = try #require(try plaintext(machine)["household"] as? [String: Any])
        let sync = household["sync"] as? [String: Any]
        let data = try JSONSerialization.data(withJSONObject: sync?["seen"] ?? [:], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The member `key` of the JSON object `json`, as canonical JSON ("null" when absent).
    static func entry(_ key: String, of json: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        guard let value = object[key] else { return "null" }
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The lines of `stderr` that refuse a file.
    static func refusals(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.contains(": refused: ") }
    }

    /// Every name in `folder`, with its bytes (a directory's: none), mode and change time.
    static func snapshot(_ folder: String) -> [String: String] {
        var out: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)!
        while let name = enumerator.nextObject() as? String {
            var info = stat()
            guard lstat(folder + "/" + name, &info) == 0 else { continue }
            let isFile = (info.st_mode & S_IFMT) == S_IFREG
            let digest = isFile ? Sodium.hex(Sodium.blake2b(readFile(folder + "/" + name), length: 16)) : "-"
            out[name] = "mode \(String(info.st_mode, radix: 8)) size \(info.st_size) mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(digest)"
        }
        return out
    }

    func copy(_ from: String, _ to: String) throws {
        let copied = CLI.run([], shell: "cp -a '\(from)' '\(to)'")
        try #require(copied.status == 0, "cp: \(copied.stderr)")
    }
}
