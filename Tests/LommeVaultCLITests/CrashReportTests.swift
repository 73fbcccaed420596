import Foundation
import Testing

/// A crash prints nothing: the Swift backtracer (which dumps registers and the memory
/// around them, possibly a secret) is switched off before anything runs.
///
/// The binary links the Swift runtime statically, and a static runtime finds no backtracer
/// by itself; but one named in SWIFT_BACKTRACE (a developer's environment, or anyone who
/// can set the caller's) is started all the same. The test names the toolchain's, so it
/// fails whenever the tool leaves the runtime's crash handlers in place.
@Suite("Crash reports (through the built binary)")
struct CrashReportTests {
    static let backtracer = "/opt/swift/usr/libexec/swift/linux/swift-backtrace-static"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: backtracer),
                   "the toolchain's swift-backtrace-static is needed to tempt the runtime into a backtrace"))
    func sigsegvWhileWaitingForThePassphrasePrintsNoBacktrace() throws {
        let box = CLI.Sandbox()
        _ = box.importedVault(Sample.configB)
        // get waits on descriptor 3, a FIFO no one writes to, until the SIGSEGV.
        let result = CLI.run([], shell: """
            export SWIFT_BACKTRACE='enable=yes,swift-backtrace=\(Self.backtracer)'
            cd '\(box.path)' && mkfifo fifo
            "$LV" get clientSecret --vault '\(box.vault)' --passphrase-fd 3 3<>fifo 2>err &
            pid=$!
            # until get sits in read(2) on descriptor 3 (past its start, where the crash
            # handlers are set), however long a loaded machine takes to get there
            for i in $(seq 6000); do
              [ "$(cut -d' ' -f1,2 /proc/$pid/syscall 2>/dev/null)" = "0 0x3" ] && break
              sleep 0.1
            done
            kill -SEGV "$pid"
            for i in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null  # a backtracer still busy after a minute
            wait "$pid"
            echo "status=$?"
            cat err
            """, timeout: 1200)
        #expect(result.out.hasPrefix("status=139\n"), "\(result.out)")
        let stderr = result.out.split(separator: "\n", maxSplits: 1).dropFirst().joined()
        #expect(stderr.isEmpty, "the crash printed: \(stderr.prefix(400))")
        for word in ["Crash", "crash", "Backtrace", "Thread", "rip", "Segmentation"] {
            #expect(!stderr.contains(word), "\(word)")
        }
    }
}
