import Foundation
import LommeTestSupport
import Testing

/// The secret and the passphrase never reach argv, a file other than the vault
/// (and its .bak), or stderr; core dumps are off while a secret is held.
@Suite("Secrets hygiene")
struct SecretsHygieneTests {
    static let secret = "Hyg13ne-S3CRET-zq7"
    static let userId = "05050554321"
    static let phrase = "hygiene passphrase 4711"
    static let newPhrase = "hygiene passphrase renewed 0815"
    static let config = #"{"clientId":"hygiene-client","clientSecret":"\#(secret)","userId":"\#(userId)","accountNr":"12345678903"}"#

    /// Reads every process's argv until stopped, collecting those that hold a needle.
    final class ArgvWatcher: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        private var found: [String] = []
        private(set) var samples = 0
        /// How many times a lomme-vault process was caught running (so the sampling means something).
        private var seen = 0
        private let binary = Array(CLI.binary.utf8)
        private var thread: Thread?
        let needles: [[UInt8]]
        /// Made (empty) once a lomme-vault process was caught running, for a command that
        /// waits to be seen (a loaded machine's watcher may sample seldom).
        let seenFlag: String?

        init(_ needles: [String], seenFlag: String? = nil) {
            self.needles = needles.map { Array($0.utf8) }
            self.seenFlag = seenFlag
            let thread = Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 8192)
                while lock.withLock({ running }) {
                    guard let proc = opendir("/proc") else { break }
                    while let entry = readdir(proc) {
                        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                        guard name.first?.isNumber == true else { continue }
                        let fd = open("/proc/\(name)/cmdline", O_RDONLY)
                        guard fd >= 0 else { continue }
                        let count = read(fd, &buffer, buffer.count)
                        close(fd)
                        guard count > 0 else { continue }
                        let argv = Array(buffer[0..<count])
                        if argv.starts(with: binary) {
                            lock.withLock { seen += 1 }
                            if let seenFlag { _ = FileManager.default.createFile(atPath: seenFlag, contents: nil) }
                        }
                        for needle in self.needles where argv.contains(needle) {
                            lock.withLock { found.append(String(decoding: argv.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)) }
                        }
                    }
                    closedir(proc)
                    lock.withLock { samples += 1 }
                    usleep(1_000)
                }
            }
            self.thread = thread
            thread.start()
        }

        func stop() -> (samples: Int, seen: Int, found: [String]) {
            lock.withLock { running = false }
            usleep(20_000)
            return lock.withLock { (samples, seen, found) }
        }
    }

    @Test func theSecretStaysInTheVault() throws {
        let box = CLI.Sandbox()
        // Inputs live outside the directories checked afterwards.
        let inputs = box.path + "/in", home = box.path + "/home", tmp = box.path + "/tmp"
        for dir in [inputs, home, tmp] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let pw = box.write("in/pw", Self.phrase + "\n")
        let pw2 = box.write("in/pw2", Self.newPhrase + "\n")
        let photo = CLI.qrImage(Self.config, in: box, name: "in/config")
        let env = ["HOME": home, "TMPDIR": tmp, "XDG_DATA_HOME": home + "/.local/share", "XDG_CACHE_HOME": home + "/.cache",
                   "XDG_CONFIG_HOME": home + "/.config", "XDG_RUNTIME_DIR": tmp]
        let vault = home + "/.local/share/lomme-vault/vault"
        let seenFlag = box.path + "/watcher-saw-lomme-vault"
        let watcher = ArgvWatcher([Self.secret, Self.phrase, Self.newPhrase, Self.userId], seenFlag: seenFlag)

        var results: [(String, CLI.Result)] = []
        func run(_ name: String, _ arguments: [String], stdin: String? = nil, shell: String? = nil) {
            let r = CLI.run(arguments, stdin: stdin, environment: env, shell: shell, timeout: shell == nil ? nil : 600)
            #expect(r.status == 0, "\(name): exit \(r.status): \(r.stderr)")
            results.append((name, r))
        }
        run("init", ["init", "--passphrase-file", pw])
        run("import --stdin", ["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw], stdin: Self.config)
        run("import photo (same config)", ["import", photo, "--yes", "--no-check", "--passphrase-file", pw])
        run("scan", ["scan", photo])
        run("get clientSecret", ["get", "clientSecret", "--passphrase-file", pw])
        run("get --json", ["get", "--json", "--passphrase-file", pw])
        run("get --env", ["get", "--env", "--passphrase-file", pw])
        run("exec", ["exec", "--passphrase-file", pw, "--", "sh", "-c", #"test -n "$LOMME_CLIENT_SECRET" && sleep 0.3"#])
        run("unlock", ["unlock", "--timeout", "1m", "--passphrase-file", pw])
        run("get unlocked", ["get", "clientSecret", "--no-prompt"])
        run("status", ["status"])
        run("lock", ["lock"])
        run("export", ["export", "--passphrase-file", pw])
        run("passwd", ["passwd", "--passphrase-file", pw, "--new-passphrase-file", pw2])
        run("issue", ["issue", "--from", "-", "--no-check", "--output", inputs + "/issued.png"], stdin: Self.config)
        run("get after passwd", ["get", "clientSecret", "--passphrase-file", pw2])
        // The passphrase from a file descriptor, as a script would give it.
        run("get --passphrase-fd", [pw2], shell: #"exec 3<"$1"; "$LV" get clientId --passphrase-fd 3"#)
        // One process that surely lives long enough to be sampled, however loaded the
        // machine: it waits for its passphrase on standard input until the watcher has seen
        // a lomme-vault process (this one, or an earlier one).
        run("get, passphrase once the watcher saw it", [pw2, seenFlag],
            shell: #"(while [ ! -e "$2" ]; do sleep 0.05; done; cat "$1") | "$LV" get clientId --passphrase-fd 0"#)
        let (samples, seen, inArgv) = watcher.stop()

        #expect(samples >= 3 && seen > 0, "the argv watcher hardly ran (\(samples) samples, saw lomme-vault \(seen) times)")
        #expect(inArgv.isEmpty, "a secret in some process's argv: \(inArgv)")
        let needles = [Self.secret, Self.phrase, Self.newPhrase, Self.userId]
        for (name, r) in results {
            for needle in needles {
                #expect(!r.stderr.contains(needle), "\(name) wrote \(needle) to stderr: \(r.stderr)")
            }
        }
        // stdout holds the secret only where it was asked for by name.
        let asked: Set = ["get clientSecret", "get --json", "get --env", "get unlocked", "export", "get after passwd"]
        for (name, r) in results where !asked.contains(name) {
            #expect(!r.out.contains(Self.secret), "\(name) printed the secret unasked")
        }
        #expect(results.first { $0.0 == "get clientSecret" }?.1.out == Self.secret)

        // No file but the vault and its .bak holds a secret, in clear or as the passphrase.
        let vaultFiles: Set = [vault, vault + ".bak"]
        var checked = 0
        for root in [home, tmp] {
            for (name, bytes) in CLI.allFileBytes(under: root) where !vaultFiles.contains(root + "/" + name) {
                checked += 1
                for needle in needles {
                    #expect(!bytes.contains(Array(needle.utf8)), "\(root)/\(name) holds \(needle)")
                }
            }
        }
        #expect(FileManager.default.fileExists(atPath: vault))
        for file in vaultFiles where FileManager.default.fileExists(atPath: file) {
            let bytes = readFile(file)
            for needle in needles { #expect(!bytes.contains(Array(needle.utf8)), "\(file) holds \(needle) in clear") }
        }
        print("secrets hygiene: \(results.count) commands, argv of every process sampled \(samples) times (a lomme-vault process caught running \(seen) times), \(checked) other files checked; nothing found")
    }

    /// The process holding a secret has core dumps off: `get` blocked reading the rest of
    /// its passphrase from a pipe (it holds the first part), and `scan` blocked reading a
    /// photo of a config from a FIFO. Read from /proc while they wait in read(2).
    @Test func coreDumpsAreOffWhileASecretIsHeld() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", Self.phrase + "\n")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Self.config).status == 0)

        /// Waits until `pid` sits in read(2) on `fd`; then returns its core-size limit line.
        func coreLimitWhileReading(_ pid: Int32, fd: Int?) -> String? {
            // As long as it takes, up to 10 minutes (a guard against a hang, not a measure).
            for _ in 0..<24_000 {
                let syscall = (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8)) ?? ""
                let fields = syscall.split(separator: " ")
                if fields.count > 1, fields[0] == "0", fd.map({ fields[1] == "0x\(String($0, radix: 16))" }) ?? true {
                    let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
                    return limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init)
                }
                usleep(25_000)
            }
            return nil
        }
        /// The whole line: soft and hard limit both 0 ("Max core file size  0  0  bytes").
        func isOff(_ line: String?) -> Bool {
            guard let line else { return false }
            return line.split(separator: " ") == ["Max", "core", "file", "size", "0", "0", "bytes"]
        }

        // The tool starts with core dumps allowed (`ulimit -c unlimited`, as a developer's
        // shell may have it): the shell raises the limit and execs the tool, same pid.
        let raise = #"ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"; exec "$0" "$@""#
        func withCoreDumps(_ process: Process, _ arguments: [String]) {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", raise, CLI.binary] + arguments
        }
        // The check means something only if the limit really is raised for a process that
        // does not lower it.
        let control = CLI.run([], shell: raise.replacingOccurrences(of: #"exec "$0" "$@""#, with: "ulimit -c"))
        let raised = control.out.trimmingCharacters(in: .whitespacesAndNewlines) != "0"
        #expect(raised, "the core limit cannot be raised here (hard limit 0), so this test cannot tell whether lomme-vault lowers it")

        // get --passphrase-fd 0: the first half of the passphrase is in its memory.
        let process = Process()
        withCoreDumps(process, ["get", "clientSecret", "--vault", box.vault, "--passphrase-fd", "0"])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(Self.phrase.prefix(8).utf8))
        let getLimit = coreLimitWhileReading(process.processIdentifier, fd: 0)
        input.fileHandleForWriting.write(Data((Self.phrase.dropFirst(8) + "\n").utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(getLimit != nil, "get never waited in read(2) on its passphrase")
        #expect(isOff(getLimit), "get holding a passphrase: \(getLimit ?? "?")")
        #expect(process.terminationStatus == 0 && String(decoding: printed, as: UTF8.self) == Self.secret)

        // scan: the photo comes through a FIFO whose writer is still open.
        let fifo = box.path + "/photo.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR)
        let photo = readFile(CLI.qrImage(Self.config, in: box))
        let scan = Process()
        withCoreDumps(scan, ["scan", "--raw", fifo])
        let scanOutput = Pipe()
        scan.standardOutput = scanOutput
        scan.standardError = FileHandle.nullDevice
        try scan.run()
        let half = photo.count / 2
        _ = photo[0..<half].withUnsafeBytes { write(writer, $0.baseAddress!, half) }
        let scanLimit = coreLimitWhileReading(scan.processIdentifier, fd: nil)
        _ = photo[half...].withUnsafeBytes { write(writer, $0.baseAddress!, photo.count - half) }
        close(writer)
        _ = scanOutput.fileHandleForReading.readDataToEndOfFile()
        scan.waitUntilExit()
        #expect(scanLimit != nil, "scan never waited in read(2) on the FIFO")
        #expect(isOff(scanLimit), "scan reading a config photo: \(scanLimit ?? "?")")
        print("secrets hygiene: started with core limit \(control.out.trimmingCharacters(in: .whitespacesAndNewlines)); while holding a secret: get \(getLimit ?? "?"); scan \(scanLimit ?? "?")")
    }
}
