import Foundation
import LommeTestSupport
import Testing

/// Writing into a full filesystem or a read-only directory fails with one clear
/// line and leaves the vault as it was. As root the test mounts a small tmpfs of its
/// own, and a failed mount fails the test; otherwise the full-disk case is declared
/// skipped through the test runner (with its reason) and the read-only case uses a
/// directory of mode 0500.
@Suite("Disk full and read-only")
struct DiskFullTests {
    let phrase = "disk full passphrase 77"

    /// A 256 KiB tmpfs at `path`, or the reason there is none.
    static func mountTmpfs(_ path: String) -> String? {
        guard getuid() == 0 else { return "not running as root, so no tmpfs can be mounted" }
        let r = CLI.run([path], shell: #"mkdir -p "$1" && mount -t tmpfs -o size=256k,mode=0700 lomme-test "$1""#)
        return r.status == 0 ? nil : "mount -t tmpfs failed (no CAP_SYS_ADMIN in this container?): \(r.stderr)"
    }

    static func unmount(_ path: String) {
        _ = CLI.run([path], shell: #"umount "$1" || umount -l "$1""#)
    }

    /// Runs `body` with a fresh sandbox and a tmpfs mounted at its `mnt` (unmounted
    /// afterwards); a tmpfs that cannot be mounted is a failure, never a silent pass.
    static func onTmpfs(_ test: String, _ body: (CLI.Sandbox, String) throws -> Void) rethrows {
        let box = CLI.Sandbox()
        let mnt = box.path + "/mnt"
        if let reason = mountTmpfs(mnt) {
            Issue.record("\(test) could not run its check: \(reason)")
            return
        }
        defer { unmount(mnt) }
        try body(box, mnt)
    }

    static func strays(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter {
            !["vault", "vault.bak", "vault.lock", "fill"].contains($0)
        }
    }

    /// One line on stderr, naming the problem.
    static func expectOneLine(_ r: CLI.Result, containing needle: String, _ what: String) {
        #expect(r.status == 1, "\(what): exit \(r.status): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("  ") && !$0.hasPrefix("* ") && !$0.hasPrefix("Plain config") && !$0.hasPrefix("Will store") && !$0.hasPrefix("Replaces") }
        #expect(lines.count == 1 && lines[0].hasPrefix("lomme-vault: ") && lines[0].contains(needle), "\(what): \(r.stderr)")
    }

    @Test(.enabled(if: getuid() == 0, "only root can mount the small tmpfs that fills up"))
    func aFullDiskLeavesTheVaultUntouched() throws {
        try Self.onTmpfs("disk-full test") { box, mnt in try fullDisk(box, mnt) }
    }

    func fullDisk(_ box: CLI.Sandbox, _ mnt: String) throws {
        let pw = box.write("pw", phrase + "\n")
        let pw2 = box.write("pw2", "another disk passphrase 88\n")
        let vault = mnt + "/vault"
        let v = ["--vault", vault, "--passphrase-file", pw]
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA).status == 0)
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configB).status == 0)
        let before = readFile(vault), backupBefore = readFile(vault + ".bak")

        // Fill it to the last byte.
        let fill = CLI.run([mnt], shell: #"dd if=/dev/zero of="$1/fill" bs=1024 2>&1; df -k "$1" | tail -1"#)
        #expect(fill.out.contains("No space left"), "\(fill.out)")

        var r = CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA, timeout: 600)
        Self.expectOneLine(r, containing: "No space left on device", "import into a full disk")
        #expect(r.reason == .vaultNotWritten)
        r = CLI.run(["passwd", "--new-passphrase-file", pw2] + v, timeout: 600)
        Self.expectOneLine(r, containing: "No space left on device", "passwd on a full disk")

        #expect(readFile(vault) == before, "the vault changed")
        #expect(readFile(vault + ".bak") == backupBefore, "the .bak changed")
        #expect(Self.strays(mnt) == [], "temp files left on the full disk")
        r = CLI.run(["get", "clientId"] + v)
        #expect(r.status == 0 && r.out == "client-B", "\(r.stderr)")

        // With room again, the next write works.
        unlink(mnt + "/fill")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA).status == 0)
        #expect(CLI.run(["get", "clientId"] + v).out == "client-A")
    }

    /// `init` on a full disk: no vault, no temp file, one line.
    @Test(.enabled(if: getuid() == 0, "only root can mount the small tmpfs that fills up"))
    func initOnAFullDiskCreatesNothing() {
        Self.onTmpfs("disk-full init test") { box, mnt in
            let pw = box.write("pw", phrase + "\n")
            _ = CLI.run([mnt], shell: #"dd if=/dev/zero of="$1/fill" bs=1024 2>/dev/null"#)
            let r = CLI.run(["init", "--vault", mnt + "/vault", "--passphrase-file", pw], timeout: 600)
            Self.expectOneLine(r, containing: "No space left on device", "init on a full disk")
            #expect(!FileManager.default.fileExists(atPath: mnt + "/vault"))
            #expect(Self.strays(mnt) == [])
        }
    }

    @Test func aReadOnlyDirectoryLeavesTheVaultUntouched() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase + "\n")
        let pw2 = box.write("pw2", "another disk passphrase 88\n")
        let directory: String
        var restore: () -> Void = {}
        if getuid() == 0 {
            // Root ignores mode bits: a tmpfs remounted read-only instead.
            directory = box.path + "/mnt"
            if let reason = Self.mountTmpfs(directory) {
                Issue.record("the read-only test could not run its check: \(reason)")
                return
            }
            restore = { Self.unmount(directory) }
        } else {
            directory = box.path + "/ro"
            mkdir(directory, 0o700)
        }
        defer { restore() }
        let vault = directory + "/vault"
        let v = ["--vault", vault, "--passphrase-file", pw]
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA).status == 0)
        let before = readFile(vault)
        if getuid() == 0 {
            let r = CLI.run([directory], shell: #"mount -o remount,ro "$1""#)
            #expect(r.status == 0, "\(r.stderr)")
        } else {
            chmod(directory, 0o500)
            restore = { chmod(directory, 0o700) }
        }
        let expected = getuid() == 0 ? "Read-only file system" : "Permission denied"
        var r = CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configB, timeout: 600)
        Self.expectOneLine(r, containing: expected, "import into a read-only directory")
        r = CLI.run(["passwd", "--new-passphrase-file", pw2] + v, timeout: 600)
        Self.expectOneLine(r, containing: expected, "passwd in a read-only directory")
        #expect(readFile(vault) == before)
        r = CLI.run(["get", "clientId"] + v)
        #expect(r.status == 0 && r.out == "client-A", "a read-only vault still opens: \(r.stderr)")
    }
}
