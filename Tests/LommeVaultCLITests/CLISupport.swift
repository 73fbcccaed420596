import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Runs the built `lomme-vault` as a user would, detached from any terminal
/// (`setsid`), so a test can never hang on a prompt.
struct CLI {
    /// The binary the tests drive: LOMME_TEST_BINARY when it is set (./test.sh sets it to the
    /// release build install.sh makes, the binary users install), else the debug build.
    static let binary = ProcessInfo.processInfo.environment["LOMME_TEST_BINARY"].flatMap { $0.isEmpty ? nil : $0 } ?? debugBinary
    /// The debug build, whichever binary the tests drive: only a debug build runs
    /// ArgumentParser's checks of the command definitions (ParserDefinitionTests).
    static let debugBinary = packageRoot + "/.build/debug/lomme-vault"
    /// The folder of `binary`, for a PATH that finds `lomme-vault`.
    static var binaryFolder: String { (binary as NSString).deletingLastPathComponent }

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        /// With `timeout:`, the signal that ended the tool (SIGKILL also when it ran past the
        /// timeout); nil when it exited by itself.
        var signal: Int32? = nil
        /// What went wrong, by name: the tool's `lomme-vault: reason: NAME` line (every run
        /// sets LOMME_VAULT_REASON=1), taken out of `stderr`; nil when there was none (a
        /// success, or a failure not of the tool's making). Tests match this, not the wording.
        var reason: LommeError.Reason? = nil
        var out: String { String(decoding: stdout, as: UTF8.self) }

        static let reasonPrefix = "lomme-vault: reason: "

        /// The reason line taken out of `stderr` into `reason` (the last, when a shell ran
        /// the tool more than once), so a test of the exact stderr sees what a user does.
        mutating func takeReason() {
            var lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
            let named = lines.filter { $0.hasPrefix(Self.reasonPrefix) }
            guard let last = named.last else { return }
            lines.removeAll { $0.hasPrefix(Self.reasonPrefix) }
            stderr = lines.joined(separator: "\n")
            let name = String(last.dropFirst(Self.reasonPrefix.count))
            reason = LommeError.Reason(rawValue: name)
            #expect(reason != nil, "a reason no LommeError.Reason has: \(name)")
        }
    }

    /// A temp directory (0700) of its own, removed at the end.
    final class Sandbox {
        private let folder = TemporaryFolder("lomme-vault-test")
        var path: String { folder.path }

        var vault: String { path + "/data/vault" }

        @discardableResult
        func write(_ name: String, _ text: String, mode: Int = 0o600) -> String {
            let file = path + "/" + name
            _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
            return file
        }
    }

    /// Runs the built binary (or `executable`, or `shell` with "$LV" naming the binary) with
    /// the test environment: the fast `minimum` KDF, no vault or keyring setting inherited,
    /// and LOMME_VAULT_REASON=1, whose line `Result.takeReason` turns into `reason`.
    /// - Parameters:
    ///   - input: bytes for standard input (for input that is not UTF-8); `stdin` wins.
    ///   - timeout: seconds after which the tool is killed (SIGKILL); the tool runs under
    ///     `timeout` in a shell, so `Result.signal` tells a crash or a hang from an exit code.
    static func run(_ arguments: [String], stdin: String? = nil, input: [UInt8]? = nil,
                    environment: [String: String] = [:], shell: String? = nil, executable: String? = nil,
                    timeout: Int? = nil) -> Result {
        #expect(FileManager.default.isExecutableFile(atPath: binary), "build the tool first: swift build")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        if let timeout {
            // `setsid -w` turns a child's death by signal into an ordinary-looking exit code;
            // the shell reports 128 + the signal instead, which no lomme-vault exit code is.
            let command = #"timeout -s KILL "$0" "$@"; exit $?"#
            process.arguments = ["-w", "/bin/sh", "-c", command, "\(timeout)"]
                + (shell.map { ["/bin/sh", "-c", $0, "sh"] } ?? [executable ?? binary]) + arguments
        } else if let shell {
            process.arguments = ["-w", "/bin/sh", "-c", shell, "sh"] + arguments
        } else {
            process.arguments = ["-w", executable ?? binary] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env["LOMME_VAULT_KDF"] = "minimum"
        for name in ["LOMME_VAULT", "LOMME_VAULT_KEYRING", "BANK_API_URL"] { env[name] = nil }
        env["LV"] = binary
        env["LOMME_VAULT_REASON"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let inputPipe = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { return Result(status: -1, stdout: [], stderr: "\(error)") }
        // stderr is read on another thread, so a full stderr pipe cannot block stdout.
        let errorData = Data.readAll(errors)
        if let bytes = stdin.map({ Array($0.utf8) }) ?? input {
            // The tool may refuse before reading it all: a closed pipe is not our failure.
            signal(SIGPIPE, SIG_IGN)
            try? inputPipe.fileHandleForWriting.write(contentsOf: Data(bytes))
        }
        try? inputPipe.fileHandleForWriting.close()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var result = Result(status: process.terminationStatus, stdout: Array(outData), stderr: String(decoding: errorData.wait(), as: UTF8.self))
        if timeout != nil, result.status > 128 { result.signal = result.status - 128 }
        result.takeReason()
        return result
    }

    /// A QR code of `text` as a PNG, the way the original app's instructions make one
    /// (`qrencode -l H -o config.png < config.json`).
    static func qrImage(_ text: String, in sandbox: Sandbox, name: String = "config") -> String {
        let json = sandbox.write(name + ".json", text)
        let png = sandbox.path + "/" + name + ".png"
        let result = run([], shell: "qrencode -l H -o '\(png)' < '\(json)' && rm '\(json)'")
        #expect(result.status == 0, "qrencode: \(result.stderr)")
        return png
    }

    /// Every byte of every file under `path`.
    static func allFileBytes(under path: String) -> [(String, [UInt8])] {
        let enumerator = FileManager.default.enumerator(atPath: path)!
        var files: [(String, [UInt8])] = []
        while let name = enumerator.nextObject() as? String {
            let full = path + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append((name, readFile(full)))
            }
        }
        return files
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }
}

extension Array where Element == UInt8 {
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}

/// Configs used by the CLI tests. The secret holds quotes, a dollar and spaces, so
/// the shell quoting is really tested.
enum Sample {
    static let secretA = "A-s3cret 'quoted' $HOME `x`"
    static let configA = #"{"clientId":"client-A","clientSecret":"A-s3cret 'quoted' $HOME `x`","userId":"01010112345","accountNr":"1234.56.78903","name":"bl\u00e5b\u00e6r"}"#
    static let secretB = "B-zz9 'other' secret"
    static let configB = #"{"clientId":"client-B","clientSecret":"B-zz9 'other' secret","userId":"02020212345","accountNr":"12345678903","tokenUrl":"https://bank.example/token"}"#
    static let jsonB = #"{"clientId":"client-B","clientSecret":"B-zz9 'other' secret","userId":"02020212345","accountNr":"12345678903","tokenUrl":"https://bank.example/token"}"#
}

extension Data {
    /// Reads a pipe to its end on another thread (so a full stderr pipe cannot block stdout).
    final class Reader: @unchecked Sendable {
        var value = Data()
        let done = DispatchSemaphore(value: 0)
    }

    static func readAll(_ pipe: Pipe) -> Reader {
        let reader = Reader()
        Thread.detachNewThread {
            reader.value = pipe.fileHandleForReading.readDataToEndOfFile()
            reader.done.signal()
        }
        return reader
    }
}

extension Data.Reader {
    func wait() -> Data {
        done.wait()
        return value
    }
}
