import Foundation
import LommeTestSupport
import Testing

/// docs/contract.md, "Files": every write is a temp file in the same folder, fsynced, renamed, the folder fsynced,
/// seen in the system calls of the built binary (strace), not inferred from a crash.
@Suite("Promises: durability")
struct PromiseDurabilityTests {
    struct Call { var name: String; var arguments: String; var result: String }

    /// The calls of `strace -f` output, in order (an interrupted call is joined to its end).
    static func calls(_ log: String) -> [Call] {
        var pending: [String: String] = [:]
        var out: [Call] = []
        for raw in log.split(separator: "\n").map(String.init) {
            var line = raw
            var pid = ""
            if line.hasPrefix("[pid"), let close = line.firstIndex(of: "]") {
                pid = String(line[..<close]); line = String(line[line.index(after: close)...]).trimmingCharacters(in: .whitespaces)
            } else if let space = line.firstIndex(of: " "), Int(line[..<space]) != nil {
                pid = String(line[..<space]); line = String(line[line.index(after: space)...]).trimmingCharacters(in: .whitespaces)
            }
            if line.hasSuffix("<unfinished ...>") { pending[pid] = String(line.dropLast(16)); continue }
            if line.hasPrefix("<... "), let start = pending.removeValue(forKey: pid), let resumed = line.range(of: "resumed>") {
                line = start + line[resumed.upperBound...]
            }
            guard let open = line.firstIndex(of: "("), let equals = line.range(of: " = ", options: .backwards) else { continue }
            var arguments = line[line.index(after: open)..<equals.lowerBound].trimmingCharacters(in: .whitespaces)
            if arguments.hasSuffix(")") { arguments.removeLast() }
            out.append(Call(name: String(line[..<open]), arguments: arguments,
                            result: String(line[equals.upperBound...]).split(separator: " ").first.map(String.init) ?? ""))
        }
        return out
    }

    static let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    /// Runs `arguments` under strace and checks that `dir/name` was replaced the durable way:
    /// a temp file `.NAME.tmp-…` created in `dir`, synced, renamed over the file, then the
    /// directory opened and synced.
    static func expectDurableReplace(_ arguments: [String], stdin: String, dir: String, name: String, log: String) throws {
        let traced = CLI.run(arguments, stdin: stdin,
                             shell: #"exec strace -f -o "$STRACE_LOG" -e trace=openat,fsync,fdatasync,rename,renameat,renameat2 "$LV" "$@""#
                                 .replacingOccurrences(of: "$STRACE_LOG", with: log))
        #expect(traced.status == 0, "\(traced.stderr)")
        let calls = Self.calls(String(decoding: readFile(log), as: UTF8.self))
        let tempOpen = try #require(calls.firstIndex { $0.name == "openat" && $0.arguments.contains(dir + "/.\(name).tmp-") && $0.arguments.contains("O_CREAT") },
                                    "no temp file .\(name).tmp-… was created in \(dir)")
        let tempFD = calls[tempOpen].result
        let rename = try #require(calls.firstIndex { $0.name.hasPrefix("rename") && $0.arguments.contains(".\(name).tmp-") && $0.arguments.hasSuffix("\(dir)/\(name)\"") },
                                  "the temp file was not renamed over \(name)")
        let synced = calls[tempOpen..<rename].contains { ($0.name == "fsync" || $0.name == "fdatasync") && $0.arguments == tempFD && $0.result == "0" }
        #expect(synced, "the temp file (fd \(tempFD)) was not synced before the rename")
        let dirOpen = try #require(calls[rename...].firstIndex { $0.name == "openat" && $0.arguments.contains("\"\(dir)\"") && $0.arguments.contains("O_DIRECTORY") },
                                   "the directory was not opened after the rename")
        let dirFD = calls[dirOpen].result
        #expect(calls[dirOpen...].contains { $0.name == "fsync" && $0.arguments == dirFD && $0.result == "0" },
                "the directory (fd \(dirFD)) was not synced after the rename")
    }

    @Test(.enabled(if: hasStrace, "strace is not installed (debian-packages.txt lists it)"))
    func theTempFileIsSyncedBeforeTheRenameAndTheDirectoryAfter() throws {
        let vault = PromiseVault()
        try Self.expectDurableReplace(
            ["import", "--stdin", "--yes", "--no-check", "--vault", vault.box.vault, "--passphrase-file", vault.pw],
            stdin: Sample.configB, dir: vault.box.path + "/data", name: "vault", log: vault.box.path + "/strace.log")
        #expect(vault.run(["get", "clientId"]).out == "client-B")
    }

    /// `issue --output` (a plain code holds the secret) is replaced the same way as the vault:
    /// one routine, a random temp name that another user cannot guess, the directory synced.
    @Test(.enabled(if: hasStrace, "strace is not installed (debian-packages.txt lists it)"))
    func anIssuedFileIsReplacedTheSameWay() throws {
        let box = CLI.Sandbox()
        try Self.expectDurableReplace(["issue", "--from", "-", "--no-check", "--output", box.path + "/code.png"],
                                      stdin: Sample.configB, dir: box.path, name: "code.png", log: box.path + "/strace.log")
        #expect(CLI.mode(box.path + "/code.png") == 0o600)
    }
}
