import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// What a vault on disk holds, found with the library (no process): which of the known
/// passphrases opens it and which config (by clientId) it holds.
struct VaultState: Equatable, CustomStringConvertible {
    var passphrase: Int
    var clientId: String?
    var description: String { "passphrase \(passphrase), config \(clientId ?? "none")" }

    /// Nil, with the reason recorded, when no passphrase opens it or it does not parse.
    static func read(_ path: String, passphrases: [String]) -> (VaultState?, String) {
        let bytes = readFile(path)
        let sealed: VaultFormat.Sealed
        do { sealed = try VaultFormat.parse(bytes) } catch { return (nil, "\(path): \(error.message) (\(bytes.count) bytes)") }
        var reasons: [String] = []
        for (index, phrase) in passphrases.enumerated() {
            do {
                let opened = try VaultFormat.open(sealed, passphrase: SecureBytes(copying: Array(phrase.utf8)))
                let contents = try VaultContents(plaintext: opened.plaintext)
                return (VaultState(passphrase: index, clientId: contents.config?.clientId), "")
            } catch {
                reasons.append("passphrase \(index): \(error.message)")
            }
        }
        return (nil, "\(path): " + reasons.joined(separator: "; "))
    }
}

/// Spawns the tool directly (no shell, no setsid), so the pid is the tool's own and
/// SIGKILL reaches it at the instant chosen.
struct Spawned {
    let process: Process

    init(_ arguments: [String], stdinFile: String? = nil, environment: [String: String] = [:]) {
        process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["LOMME_VAULT_KDF"] = "minimum"
        env["LOMME_VAULT"] = nil
        env["LOMME_VAULT_KEYRING"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = stdinFile.flatMap { FileHandle(forReadingAtPath: $0) } ?? FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
    }

    /// Waits; true when the process ended by a signal (our SIGKILL), false when it exited.
    @discardableResult
    func wait() -> (killed: Bool, status: Int32) {
        process.waitUntilExit()
        return (process.terminationReason == .uncaughtSignal, process.terminationStatus)
    }

    func kill() { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
}

/// No crash, kill or concurrent command breaks the vault.
@Suite("Crash safety")
struct CrashSafetyTests {
    static let passphrases = ["kill test passphrase zero 0", "kill test passphrase one 1"]

    static func config(_ index: Int) -> String {
        #"{"clientId":"client-\#(index)","clientSecret":"secret \#(index) 'q' $x","userId":"0\#(index % 10)0101123\#(45 + index % 50)","accountNr":"12345678903","n":"\#(String(repeating: "x", count: index * 37 % 300))"}"#
    }

    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// When to kill a command that takes `duration`: uniform over [0, 1.2 × duration].
    static func delay(_ duration: Double) -> Double {
        Double.random(in: 0...(1.2 * duration))
    }

    /// Waits until `spawned` has created its temp file (`.vault.tmp-PID-…`), then a random
    /// 0–5 ms more: the instant falls somewhere in write, fsync, .bak link, the two renames
    /// and the directory fsync, the few milliseconds that a uniform delay rarely hits.
    /// Returns false when the command ended before a temp file was seen.
    static func waitForWritePhase(_ spawned: Spawned, in directory: String) -> Bool {
        let prefix = ".vault.tmp-\(spawned.process.processIdentifier)-"
        let deadline = monotonic() + 600  // a guard against a hang, not a measure
        while spawned.process.isRunning && monotonic() < deadline {
            if let dir = opendir(directory) {
                defer { closedir(dir) }
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if name.hasPrefix(prefix) {
                        usleep(UInt32.random(in: 0...5_000))
                        return true
                    }
                }
            }
        }
        return false
    }

    /// Names in the vault's directory that are neither the vault, its .bak nor its lock.
    static func strays(_ directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !["vault", "vault.bak", "vault.lock"].contains($0) }.sorted()
    }

    /// `passwd` and `import` killed with SIGKILL at a random instant, spread over the
    /// whole run of the command (its measured duration × 1.2) in half of the iterations,
    /// and inside its write phase in the other half (`waitForWritePhase`); every tenth passwd derives
    /// the new key at `interactive` limits, so kills also land inside a long KDF. After each
    /// kill the vault opens with the old or the new passphrase and holds the old or the new
    /// config; its .bak opens too; after the next write that completes, no temp file is
    /// left. LOMME_KILL_ITERATIONS sets the count (default 30; bench/kill-test runs 200).
    @Test func killedWritersLeaveTheOldOrTheNewVault() throws {
        let iterations = ProcessInfo.processInfo.environment["LOMME_KILL_ITERATIONS"].flatMap { Int($0) } ?? 30
        let box = CLI.Sandbox()
        let pw = Self.passphrases.enumerated().map { box.write("pw\($0.offset)", $0.element + "\n") }
        let configs = (0..<3).map { box.write("c\($0).json", Self.config($0)) }
        let directory = box.path + "/data"
        let v = ["--vault", box.vault]

        func importArgs(_ config: Int, _ pass: Int) -> ([String], String) {
            (["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw[pass]] + v, configs[config])
        }
        func passwdArgs(_ from: Int) -> [String] {
            ["passwd", "--passphrase-file", pw[from], "--new-passphrase-file", pw[1 - from]] + v
        }

        var current = VaultState(passphrase: 0, clientId: "client-0")
        let (firstArgs, firstInput) = importArgs(0, 0)
        #expect(Spawned(firstArgs, stdinFile: firstInput).wait().status == 0)
        var currentConfig = 0

        // How long each command takes here, now (the median of three).
        func measure(_ body: () -> Void) -> Double {
            (0..<3).map { _ -> Double in
                let start = Self.monotonic()
                body()
                return Self.monotonic() - start
            }.sorted()[1]
        }
        let passwdTime = measure {
            #expect(Spawned(passwdArgs(current.passphrase)).wait().status == 0)
            current.passphrase = 1 - current.passphrase
        }
        let importTime = measure {
            let next = (currentConfig + 1) % 3
            let (args, input) = importArgs(next, current.passphrase)
            #expect(Spawned(args, stdinFile: input).wait().status == 0)
            currentConfig = next
            current.clientId = "client-\(next)"
        }

        var killed = 0, completed = 0, newState = 0, oldState = 0, straysSeen = 0, slowKDF = 0, killedNew = 0, writePhaseKills = 0
        var failures = 0
        // On a loaded machine a command can outrun the time measured above, and a kill after
        // a uniform delay then lands after it ended (6 of 30 once, under the whole suite): the
        // run goes on, up to ten times as long, until what makes it mean something was seen (a
        // quarter of its commands killed, one inside the write phase, both outcomes).
        var runs = 0
        for iteration in 0..<(10 * iterations) {
            if iteration >= iterations && killed >= iterations / 4 && writePhaseKills > 0 && oldState > 0 && newState > 0 { break }
            runs += 1
            let isPasswd = iteration % 2 == 0
            let inWritePhase = iteration % 4 >= 2
            var expectedNew = current
            let spawned: Spawned
            let delay: Double
            if isPasswd {
                let interactive = iteration % 20 == 0
                if interactive { slowKDF += 1 }
                expectedNew.passphrase = 1 - current.passphrase
                spawned = Spawned(passwdArgs(current.passphrase), environment: interactive ? ["LOMME_VAULT_KDF": "interactive"] : [:])
                delay = Self.delay(interactive ? max(passwdTime, 0.4) : passwdTime)
            } else {
                let next = (currentConfig + 1) % 3
                expectedNew.clientId = "client-\(next)"
                let (args, input) = importArgs(next, current.passphrase)
                spawned = Spawned(args, stdinFile: input)
                delay = Self.delay(importTime)
            }
            if inWritePhase {
                if Self.waitForWritePhase(spawned, in: directory) { writePhaseKills += 1 }
            } else {
                usleep(UInt32(delay * 1_000_000))
            }
            spawned.kill()
            let outcome = spawned.wait()
            if outcome.killed { killed += 1 } else {
                completed += 1
                #expect(outcome.status == 0, "iteration \(iteration): the command failed on its own (exit \(outcome.status))")
            }

            let (state, why) = VaultState.read(box.vault, passphrases: Self.passphrases)
            guard let state else {
                Issue.record("iteration \(iteration) (\(isPasswd ? "passwd" : "import"), killed after \(Int(delay * 1000)) ms): the vault does not open: \(why)")
                failures += 1
                break
            }
            if state == expectedNew {
                newState += 1
                if outcome.killed { killedNew += 1 }
            } else if state == current {
                oldState += 1
            } else {
                Issue.record("iteration \(iteration): the vault holds \(state), neither the old (\(current)) nor the new (\(expectedNew))")
                failures += 1
                break
            }
            current = state
            if state.clientId != "client-\(currentConfig)" { currentConfig = (currentConfig + 1) % 3 }
            if FileManager.default.fileExists(atPath: box.vault + ".bak") {
                let (backup, why) = VaultState.read(box.vault + ".bak", passphrases: Self.passphrases)
                #expect(backup != nil, "iteration \(iteration): the .bak does not open: \(why)")
            }
            // Every fifth iteration, and at the end: a write that completes leaves no temp file.
            if iteration % 5 == 4 || iteration == iterations - 1 {
                straysSeen += Self.strays(directory).count
                let next = (currentConfig + 1) % 3
                let (args, input) = importArgs(next, current.passphrase)
                #expect(Spawned(args, stdinFile: input).wait().status == 0)
                currentConfig = next
                current.clientId = "client-\(next)"
                #expect(Self.strays(directory) == [], "iteration \(iteration): left after a successful write")
            }
        }
        #expect(failures == 0)
        // The counts that make the run mean something: kills landed, some inside the write
        // phase, and both outcomes (old and new vault) were seen.
        #expect(killed + completed == runs || failures > 0)
        #expect(killed >= iterations / 4, "only \(killed) of \(runs) commands were killed")
        #expect(writePhaseKills > 0, "no kill landed inside the write phase")
        #expect(oldState > 0 && newState > 0, "old \(oldState), new \(newState): one outcome was never seen")
        print("crash safety: \(runs) iterations (passwd \(Int(passwdTime * 1000)) ms, import \(Int(importTime * 1000)) ms, \(slowKDF) passwd at interactive KDF); killed \(killed) (\(writePhaseKills) of them inside the write phase), finished before the kill \(completed); vault afterwards old \(oldState), new \(newState) (killed after the rename: \(killedNew)); temp files left by killed writers \(straysSeen), all removed by the next write; failures \(failures)")
    }

    /// A writer killed between its two renames leaves the .bak and the vault as one file
    /// (two hard links); rename() between two links of one file does nothing, so the next
    /// write used to leave its `.vault.bak-PID-RANDOM` behind. Found by the kill test.
    @Test func aWriteAfterAKillBetweenTheRenamesLeavesNoTempFile() throws {
        let box = CLI.Sandbox()
        let store = VaultStore(path: box.vault)
        // Two real versions of one vault (a write is read back and checked with the key).
        let source = PromiseVault()
        let (first, key) = (source.bytes, try source.master())
        #expect(source.run(["import", "--stdin", "--yes", "--no-check"], stdin: Sample.configB).status == 0)
        let second = source.bytes
        try store.withWriteLock { () throws(LommeError) in try store.write(first, key: key) }
        #expect(link(box.vault, box.vault + ".bak") == 0)
        // And the leftovers of a writer killed before its renames.
        box.write("data/.vault.tmp-99999-0123456789ab", "partial")
        box.write("data/.vault.bak-99999-0123456789ab", "partial")
        box.write("data/.other.tmp-1-2", "not ours")
        try store.withWriteLock { () throws(LommeError) in try store.write(second, key: key) }
        let written = readFile(box.vault) == second && readFile(box.vault + ".bak") == first
        #expect(written)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: box.path + "/data"))?.sorted() ?? []
        #expect(names == [".other.tmp-1-2", "vault", "vault.bak", "vault.lock"])
    }

    /// 8 importers (each its own config), 2 passwd workers and 3 readers at the same time.
    /// Afterwards the vault opens and holds exactly one of the configs, the .bak holds a
    /// valid earlier one, and every reader got a whole config or a clean error.
    @Test func concurrentImportsPasswdAndGets() throws {
        let box = CLI.Sandbox()
        let pw = Self.passphrases.enumerated().map { box.write("pw\($0.offset)", $0.element + "\n") }
        for index in 0...8 { box.write("c\(index).json", Self.config(index)) }
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw[0]], stdin: Self.config(0)).status == 0)
        let out = box.path + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let r = CLI.run([box.vault, pw[0], pw[1], box.path, out], shell: #"""
            V="$1"; P0="$2"; P1="$3"; D="$4"; O="$5"
            unset LOMME_VAULT_REASON  # each .err as a user sees it: no reason line
            importer() {
              for n in 1 2; do
                for p in "$P0" "$P1" "$P0"; do
                  "$LV" import --stdin --yes --no-check --vault "$V" --passphrase-file "$p" < "$D/c$1.json" 2>>"$O/import-$1.err"
                  s=$?; echo "$s" >> "$O/import-$1.status"; [ "$s" = 0 ] && break
                done
              done
            }
            changer() {
              for n in 1 2 3; do
                "$LV" passwd --vault "$V" --passphrase-file "$P0" --new-passphrase-file "$P1" 2>>"$O/passwd-$1.err" ||
                  "$LV" passwd --vault "$V" --passphrase-file "$P1" --new-passphrase-file "$P0" 2>>"$O/passwd-$1.err"
                echo $? >> "$O/passwd-$1.status"
              done
            }
            reader() {
              for n in 1 2 3 4 5 6; do
                for p in 0 1; do
                  eval "pf=\$P$p"
                  "$LV" get --json --vault "$V" --passphrase-file "$pf" > "$O/get-$1-$n-$p.out" 2> "$O/get-$1-$n-$p.err"
                  echo $? > "$O/get-$1-$n-$p.status"
                done
              done
            }
            for k in 1 2 3 4 5 6 7 8; do importer $k & done
            changer 1 & changer 2 &
            reader 1 & reader 2 & reader 3 &
            wait
            """#, timeout: 1200)
        #expect(r.status == 0 && r.signal == nil, "\(r.stderr)")

        let files = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        func text(_ name: String) -> String { (try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "" }
        let known = Set((0...8).map { Self.config($0) })
        var gets = 0, wholeValues = 0, cleanErrors = 0, imports = 0, importsStored = 0, passwds = 0
        for name in files where name.hasPrefix("get-") && name.hasSuffix(".status") {
            let base = String(name.dropLast(".status".count))
            let status = text(name).trimmingCharacters(in: .whitespacesAndNewlines)
            gets += 1
            if status == "0" {
                wholeValues += 1
                #expect(known.contains(text(base + ".out")), "\(base) printed something that is not a whole config: \(text(base + ".out").prefix(200))")
            } else {
                cleanErrors += 1
                // The other passphrase (passwd ran meanwhile): exit 4, one line, nothing on stdout.
                #expect(status == "4", "\(base): exit \(status): \(text(base + ".err"))")
                #expect(text(base + ".out").isEmpty && text(base + ".err").filter { $0 == "\n" }.count == 1)
            }
        }
        for name in files where name.hasSuffix(".status") && !name.hasPrefix("get-") {
            for status in text(name).split(separator: "\n") {
                if name.hasPrefix("import-") { imports += 1; if status == "0" { importsStored += 1 } }
                if name.hasPrefix("passwd-") { passwds += 1 }
                // 0 stored; 4 the other passphrase; 1 the passphrase changed while it ran.
                #expect(["0", "1", "4"].contains(status), "\(name): exit \(status)")
            }
        }
        for name in files where name.hasSuffix(".err") && !name.hasPrefix("get-") {
            for line in text(name).split(separator: "\n") {
                let expected = ["wrong passphrase", "changed while this command ran", "Plain config", "Will store", "Replaces", "Stored in", "already holds this config",
                                "Changed the passphrase", "  "].contains { line.contains($0) }
                #expect(expected, "\(name): unexpected message: \(line)")
                #expect(!line.contains("damaged"), "\(name): \(line)")
            }
        }
        #expect(gets == 36 && importsStored > 0)
        #expect(imports >= 16 && passwds == 6, "\(imports) imports, \(passwds) passwd ran")
        #expect(wholeValues > 0, "no get read a whole config during the storm")

        let (state, why) = VaultState.read(box.vault, passphrases: Self.passphrases)
        #expect(state != nil, "the vault does not open after the storm: \(why)")
        #expect((1...8).map { "client-\($0)" }.contains(state?.clientId ?? ""), "holds \(String(describing: state))")
        let (backup, whyBackup) = VaultState.read(box.vault + ".bak", passphrases: Self.passphrases)
        #expect(backup != nil, "the .bak does not open: \(whyBackup)")
        #expect((0...8).map { "client-\($0)" }.contains(backup?.clientId ?? ""), "the .bak holds \(String(describing: backup))")
        #expect(Self.strays(box.path + "/data") == [])
        print("concurrency: \(imports) imports (\(importsStored) stored), 6 passwd, \(gets) gets (\(wholeValues) whole configs, \(cleanErrors) exit 4 after a passwd); vault holds \(state?.clientId ?? "?"), .bak \(backup?.clientId ?? "?")")
    }
}
