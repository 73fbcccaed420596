import CLommeSystem
import Glibc

/// Process settings made before any secret is read: no core dumps, and no ptrace or
/// /proc/PID/mem access by other processes of the same user (`PR_SET_DUMPABLE` 0).
package enum Hardening {
    nonisolated(unsafe) private static var done = false

    package static func apply() {
        if done { return }
        done = true
        _ = lomme_set_not_dumpable()
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    }

    /// The signals the Swift runtime's crash reporter (the backtracer) catches, given back
    /// to the kernel's default action. The backtracer prints registers and the memory
    /// around them, which can hold a secret; with the default action a crash ends the
    /// process with nothing printed (and no core file once `apply` has run). The runtime
    /// reads `SWIFT_BACKTRACE` before `main`, so setting it here would be too late; this
    /// replaces the handlers it installed instead. Called first thing in `main`.
    package static func disableCrashReporter() {
        for signalNumber in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGQUIT] {
            _ = signal(signalNumber, SIG_DFL)
        }
    }

    /// Whether core dumps and ptrace by the same user are still allowed (for tests).
    package static var isDumpable: Bool { lomme_get_dumpable() != 0 }
}
