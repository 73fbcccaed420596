import CLommeGlue
import Glibc

/// Process settings made before any secret is read: no core dumps, and no ptrace or
/// /proc/PID/mem access by other processes of the same user (`PR_SET_DUMPABLE` 0).
public enum Hardening {
    nonisolated(unsafe) private static var done = false

    public static func apply() {
        if done { return }
        done = true
        _ = lomme_set_not_dumpable()
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
    }

    /// Whether core dumps and ptrace by the same user are still allowed (for tests).
    public static var isDumpable: Bool { lomme_get_dumpable() != 0 }
}
