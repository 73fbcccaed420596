import Foundation

/// A software TPM 2.0 (swtpm) on loopback for one test: its own state directory (a fresh
/// one is a new machine: new seeds, so a new storage key) and its own ports. swtpm serves
/// one client connection at a time, so a helper here runs only while the code under test
/// has closed its own. Stopped by `stop()` or when released (then its state directory goes).
/// SIGKILL, not SIGTERM: Foundation's Process starts it with the test runner's signal mask,
/// which blocks SIGTERM; swtpm writes its NV state (seeds, DA counters) as it changes, so
/// nothing a test relies on is lost.
package final class SoftwareTPM: @unchecked Sendable {
    package let stateDirectory: String
    package private(set) var port: UInt16 = 0
    private var process: Process?

    /// The TCTI string for tpm2-tss and LOMME_VAULT_TPM.
    package var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

    /// The lockout authorization a new test TPM is given, as its owner would set one
    /// (`tpm2_changeauth -c lockout`): `enroll tpm2 --pin` refuses a TPM without one.
    package static let testLockoutAuthorization = "lomme-test-lockout"

    /// The lockout authorization this TPM has (nil: empty, as swtpm starts).
    package let lockoutAuthorization: String?

    /// Starts swtpm on `stateDirectory` (a new temporary one when nil: a new TPM, which is
    /// then given `lockoutAuthorization`; a TPM started from a state has whatever it had).
    package init(stateDirectory: String? = nil, lockoutAuthorization: String? = SoftwareTPM.testLockoutAuthorization) throws {
        self.stateDirectory = try stateDirectory ?? Self.temporaryDirectory()
        self.lockoutAuthorization = lockoutAuthorization
        try start()
        if stateDirectory == nil, let lockoutAuthorization {
            try tools(["tpm2_changeauth", "-c", "lockout", lockoutAuthorization])
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: stateDirectory)
    }

    /// A second swtpm started from a copy of this one's state: the same TPM (the same seeds,
    /// PCRs reset as after a reboot). This one is stopped first, so its state is on disk.
    package func copy() throws -> SoftwareTPM {
        stop()
        let directory = try Self.temporaryDirectory()
        for file in try FileManager.default.contentsOfDirectory(atPath: stateDirectory) where file.hasSuffix(".permall") {
            try FileManager.default.copyItem(atPath: stateDirectory + "/" + file, toPath: directory + "/" + file)
        }
        return try SoftwareTPM(stateDirectory: directory, lockoutAuthorization: lockoutAuthorization)
    }

    package func stop() {
        guard let process else { return }
        self.process = nil
        kill(process.processIdentifier, SIGKILL)  // a zombie until waited for: the pid stays ours
        process.waitUntilExit()
        Running.remove(process.processIdentifier)
    }

    /// Starts swtpm again on the same state (after `stop()`: a reboot).
    package func start() throws {
        for _ in 0..<10 {
            port = try Self.freePortPair()
            if try launch() { return }
        }
        throw SoftwareTPMError("swtpm did not start on 10 port pairs (state \(stateDirectory))")
    }

    // MARK: tpm2-tools against this TPM

    /// tpm2_pcrextend: PCR `index` of the SHA-256 bank extended with a fixed digest.
    package func extendPCR(_ index: Int) throws {
        try tools(["tpm2_pcrextend", "\(index):sha256=" + String(repeating: "ab", count: 32)])
    }

    /// tpm2_dictionarylockout: lock out after `maxTries`, forgive one every `recovery` s.
    package func setLockout(maxTries: Int, recovery: Int) throws {
        try tools(["tpm2_dictionarylockout", "-s", "-n", "\(maxTries)", "-t", "\(recovery)", "-l", "\(recovery)"]
            + (lockoutAuthorization.map { ["-p", $0] } ?? []))
    }

    /// Runs a tpm2-tools program against this TPM (TPM2TOOLS_TCTI) and returns its stdout.
    @discardableResult
    package func tools(_ arguments: [String]) throws -> String {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tool.arguments = arguments
        tool.environment = ProcessInfo.processInfo.environment.merging(["TPM2TOOLS_TCTI": tcti, "TSS2_LOG": "all+none"]) { $1 }
        let out = Pipe(), err = Pipe()
        tool.standardOutput = out
        tool.standardError = err
        try tool.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        tool.waitUntilExit()
        guard tool.terminationStatus == 0 else {
            throw SoftwareTPMError("\(arguments[0]) failed: \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: starting

    /// Starts swtpm on `port` and `port + 1`; false when it exits at once (a port taken since).
    private func launch() throws -> Bool {
        let pidFile = stateDirectory + "/swtpm.pid"
        try? FileManager.default.removeItem(atPath: pidFile)
        let swtpm = Process()
        swtpm.executableURL = URL(fileURLWithPath: "/usr/bin/swtpm")
        swtpm.arguments = [
            "socket", "--tpm2", "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
            "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--flags", "not-need-init,startup-clear",
            "--tpmstate", "dir=\(stateDirectory)", "--pid", "file=\(pidFile)",
        ]
        swtpm.standardOutput = FileHandle.nullDevice
        swtpm.standardError = FileHandle.nullDevice
        try swtpm.run()
        // The pid file is written once both sockets listen; then the port answers.
        // As long as it takes, up to ten minutes (a loaded machine starts it slowly).
        for _ in 0..<60_000 {
            if !swtpm.isRunning { return false }
            let pid = (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if pid == String(swtpm.processIdentifier), Self.answers(port + 1) {
                process = swtpm
                Running.add(swtpm.processIdentifier)
                return true
            }
            usleep(10_000)
        }
        kill(swtpm.processIdentifier, SIGKILL)
        swtpm.waitUntilExit()
        throw SoftwareTPMError("swtpm on port \(port) did not answer within ten minutes")
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    private static func answers(_ port: UInt16) -> Bool {
        guard let fd = Loopback.connect(port) else { return false }
        close(fd)
        return true
    }

    /// A port P the kernel picked as free, with P + 1 free too (closed again for swtpm).
    private static func freePortPair() throws -> UInt16 {
        guard let pair = Loopback.listenPair() else { throw SoftwareTPMError("no two free consecutive loopback ports") }
        pair.forEach { close($0.fd) }
        return pair[0].port
    }

    private static func temporaryDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/lomme-swtpm-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SoftwareTPMError("mkdtemp failed") }
        return String(cString: made)
    }
}

/// The swtpm processes still running, killed when the test process exits in case a
/// SoftwareTPM was never released (a swtpm outliving its tests would hold its ports).
private enum Running {
    nonisolated(unsafe) private static var pids: Set<pid_t> = []
    private static let lock = NSLock()
    private static let registered: Void = { atexit { Running.killAll() } }()

    static func add(_ pid: pid_t) {
        registered
        lock.withLock { _ = pids.insert(pid) }
    }

    static func remove(_ pid: pid_t) { lock.withLock { _ = pids.remove(pid) } }

    static func killAll() { lock.withLock { for pid in pids { kill(pid, SIGKILL) } } }
}

package struct SoftwareTPMError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
