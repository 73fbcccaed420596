import Foundation
import LommeTestSupport
import Testing

/// The README tour's script part, run as printed against examples/sandbox-bank, and
/// examples/balance on a locked vault. Loopback only: the sandbox
/// listens on 127.0.0.1, and examples/config.json's tokenUrl names it.
@Suite("Sandbox bank and the README tour", .serialized)
struct SandboxTourTests {
    static let root = packageRoot

    /// A vault holding examples/config.json, unlocked.
    func tourVault(_ box: CLI.Sandbox) throws -> [String: String] {
        let pw = box.write("pw", "tour passphrase 42\n")
        let config = try String(contentsOfFile: Self.root + "/examples/config.json", encoding: .utf8)
        let env = ["LOMME_VAULT": box.vault]
        let imported = CLI.run(["import", "--stdin", "--yes", "--passphrase-file", pw], stdin: config, environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(CLI.run(["unlock", "--passphrase-file", pw], environment: env).status == 0)
        return env
    }

    /// The ```sh block after "**A script**" in README.md, exactly as printed.
    static func tourScriptLines() throws -> String {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let part = try #require(readme.range(of: "**A script**"))
        let rest = readme[part.upperBound...]
        let start = try #require(rest.range(of: "```sh\n"))
        let end = try #require(rest[start.upperBound...].range(of: "```"))
        return String(rest[start.upperBound..<end.lowerBound])
    }

    @Test("every line of the tour's script part runs as printed, token and balance from the sandbox bank")
    func tourRunsAsPrinted() throws {
        let box = CLI.Sandbox()
        var env = try tourVault(box)
        let lines = try Self.tourScriptLines()
        #expect(lines.contains("lomme-vault token") && lines.contains("examples/balance") && lines.contains("examples/sandbox-bank"))
        // set -e: any line that fails ends the run with its code; the bank is stopped whatever happens.
        let script = "set -e\ncd \"$ROOT\"\ntrap '[ -z \"${bank:-}\" ] || kill \"$bank\" 2>/dev/null || true' EXIT\n" + lines
        env["ROOT"] = Self.root
        env["PATH"] = CLI.binaryFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let r = CLI.run(["-c", script], environment: env, executable: "/bin/bash", timeout: 1200)
        #expect(r.status == 0, "the tour stopped: \(r.stderr)")
        let balance = "Brukskonto\n1234 56 78903\navailable: 1 234,50 kr\nbalance:   1 300,00 kr\n"
        #expect(r.out.hasPrefix("12345678903" + "12345678903\n"), "\(r.out)")  // get (no newline to a pipe), then printenv
        #expect(r.out.hasSuffix(balance), "\(r.out)")
        let token = r.out.dropFirst(("12345678903" + "12345678903\n").count).dropLast(balance.count)
        #expect(token.count >= 20 && token.allSatisfy { $0.isASCII && !$0.isWhitespace }, "no token between: \(r.out)")
        #expect(r.stderr.contains("Locked ") && r.stderr.contains("Forgot 1 cached access token"), "\(r.stderr)")
        // `kill "$bank"` stopped it: nothing answers on its port any more. SIGTERM takes a
        // moment to act (a connection made meanwhile is reset, curl 56, seen on CI), so the
        // port is asked until it refuses, for up to ten minutes (a loaded machine is slow).
        let after = CLI.run([], shell: """
            for i in $(seq 6000); do
              curl --noproxy '*' -s -o /dev/null --max-time 5 http://127.0.0.1:8089/stats; status=$?
              [ "$status" = 7 ] && exit 7
              sleep 0.1
            done
            exit "$status"
            """)
        #expect(after.status == 7, "the sandbox bank still answers ten minutes after kill (curl exit \(after.status))")
    }

    @Test("examples/balance on a locked vault says to unlock first: no prompt, no token request")
    func balanceOnALockedVault() throws {
        let box = CLI.Sandbox()
        let env = try tourVault(box)
        let port = try TokenFixture.closedPort()
        let started = CLI.run(["--background", "--port", "\(port)"], executable: Self.root + "/examples/sandbox-bank", timeout: 600)
        let bank = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(started.status == 0 && Int32(bank) != nil, "sandbox-bank: \(started.stderr)")
        defer { kill(Int32(bank)!, SIGTERM) }
        let api = "http://127.0.0.1:\(port)"
        let script = Self.root + "/examples/balance"
        let unlocked = CLI.run(["--api", api, "--token-url", api + "/token"], environment: env.merging(["LOMME_VAULT_BIN": CLI.binary]) { $1 }, executable: script)
        #expect(unlocked.status == 0 && unlocked.out.hasSuffix("balance:   1 300,00 kr\n"), "\(unlocked.stderr)")

        #expect(CLI.run(["lock"], environment: env).status == 0)
        let stats = { CLI.run([], shell: "curl --noproxy '*' -sS --max-time 600 \(api)/stats").out }  // a guard, not a measure
        let before = stats()
        let locked = CLI.run(["--api", api, "--token-url", api + "/token"], environment: env.merging(["LOMME_VAULT_BIN": CLI.binary]) { $1 }, executable: script)
        #expect(locked.status == 3, "\(locked.stderr)")
        #expect(locked.stderr == "balance: the vault is locked; run `lomme-vault unlock` first (it asks for the passphrase once)\n")
        #expect(locked.stdout.isEmpty)
        #expect(stats() == before, "a locked vault still reached the bank")
    }
}
