import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// One duration syntax, one option name per idea, one exit code per kind of mistake, and
/// each command accepting only the options it uses.
@Suite("Options: durations, names, exit codes")
struct OptionConsistencyTests {
    /// A vault holding Sample.configA, made as the keyring tests make theirs.
    func made(_ box: CLI.Sandbox) -> (pw: String, v: [String]) { KeyringTests().made(box) }

    @Test("unlock reports the --timeout it was given: 90s is 1m30s, 1h30m is 1h30m")
    func unlockReportsTheDurationAsMeant() {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        defer { _ = CLI.run(["lock"] + v) }
        for (given, shown) in [("90s", "1m30s"), ("1h30m", "1h30m"), ("5400", "1h30m"), ("2h", "2h")] {
            let r = CLI.run(["unlock", "--timeout", given, "--passphrase-file", pw] + v)
            #expect(r.status == 0 && r.stderr.contains("locks after \(shown) without use,"), "\(given): \(r.stderr)")
            let status = CLI.run(["status"] + v)
            #expect(status.out.contains("locks after \(shown) without use"), "\(given): \(status.out)")
        }
    }

    @Test("the same durations everywhere: token --timeout 5s is taken as unlock takes it; nonsense is 64")
    func oneDurationParser() {
        let box = CLI.Sandbox()
        let missing = ["--vault", box.path + "/none/vault"]
        // Accepted durations get past the parser: with no vault, that is exit 6, not 64.
        for timeout in ["5s", "1m30s", "20"] {
            let r = CLI.run(["token", "--timeout", timeout] + missing)
            #expect(r.status == 6, "token --timeout \(timeout): \(r.stderr)")
        }
        for (command, option, bad, words) in [
            ("token", "--timeout", "5x", "--timeout takes a duration such as 90s"), ("token", "--timeout", "11m", "--timeout can be at most 10m"),
            ("unlock", "--timeout", "0s", "--timeout takes a duration"), ("unlock", "--timeout", "13h", "--timeout can be at most 12h"),
            ("issue", "--expires", "soon", "--expires takes a duration"), ("issue", "--expires", "31d", "--expires can be at most 30d"),
        ] {
            let r = CLI.run([command, option, bad] + missing)
            #expect(r.status == 64 && r.stderr.contains(words), "\(command) \(option) \(bad): \(r.stderr)")
        }
    }

    @Test("--token-url names the endpoint for token and exec; token's old --url still works; not both")
    func oneOptionName() {
        let box = CLI.Sandbox()
        let missing = ["--vault", box.path + "/none/vault"]
        for arguments in [["token", "--token-url", "https://bank.example/t"], ["token", "--url", "https://bank.example/t"],
                          ["exec", "--token-url", "https://bank.example/t", "--", "true"]] {
            let r = CLI.run(arguments + missing)
            #expect(r.status == 6, "\(arguments): \(r.stderr)")  // parsed; then no vault
        }
        let both = CLI.run(["token", "--token-url", "https://bank.example/t", "--url", "https://bank.example/t"] + missing)
        #expect(both.status == 64 && both.reason == .usage && both.stderr.contains("--url is its old name"), "\(both.stderr)")
        let help = CLI.run(["help", "token"])
        #expect(help.out.contains("--token-url") && !help.out.contains("--url <"), "\(help.out)")
    }

    /// docs/token.md: a URL the rules refuse is exit 1, refused before any connection; text
    /// that is not an http(s) URL is a usage error. example.com is never contacted: strace
    /// shows the tool opens no socket at all (and with no vault, it never gets to one).
    @Test("a refused token URL is exit 1 before any socket; a malformed one is 64")
    func refusedURLIsExitOneWithoutConnecting() throws {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let trace = box.path + "/trace"
        for (command, option) in [("token", "--token-url"), ("token", "--url"), ("exec", "--token-url")] {
            let tail = command == "exec" ? ["--", "true"] : []
            let r = CLI.run([command, option, "http://example.com/token", "--passphrase-file", pw] + v + tail,
                            environment: ["TRACE": trace], shell: #"strace -f -qq -e trace=socket,connect -o "$TRACE" "$LV" "$@""#)
            #expect(r.status == 1, "\(command) \(option): \(r.stderr)")
            #expect(r.stderr == "lomme-vault: refusing plain http:// to example.com (\(option)); use https:// — plain http is allowed only to this machine, written as 127.0.0.1 (any 127.x.y.z), [::1] or localhost\n")
            let calls = try String(contentsOfFile: trace, encoding: .utf8)
            #expect(!calls.contains("socket(") && !calls.contains("connect("), "\(calls)")
        }
        for bad in ["ftp://127.0.0.1/t", "https://bank.example:99999/t", "bank.example/token"] {
            #expect(CLI.run(["token", "--token-url", bad] + v).status == 64, "\(bad)")
        }
        let password = CLI.run(["token", "--token-url", "https://user:pw@bank.example/t"] + v)
        #expect(password.status == 1 && password.reason == .tokenURLHasCredentials, "\(password.stderr)")
    }

    @Test("status and lock take no passphrase options (exit 64); the commands that open the vault do")
    func eachCommandTakesWhatItUses() {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        for arguments in [["status", "--passphrase-fd", "3"], ["status", "--passphrase-file", pw], ["status", "--no-prompt"],
                          ["lock", "--passphrase-file", pw], ["lock", "--no-prompt"], ["lock", "--all", "--passphrase-fd", "0"]] {
            let r = CLI.run(arguments + (arguments.contains("--all") ? [] : v))
            #expect(r.status == 64 && r.reason == .usage, "\(arguments): \(r.stderr)")
        }
        #expect(CLI.run(["status"] + v).status == 0)
        #expect(CLI.run(["get", "clientId", "--no-prompt", "--passphrase-file", pw] + v).out == "client-A")
        #expect(CLI.run(["lock"] + v).status == 0)
    }

    @Test("LOMME_VAULT_KEYRING=off is said as turned off by status, unlock, lock and get")
    func keyringTurnedOffIsSaidSo() {
        let box = CLI.Sandbox()
        let (pw, v) = made(box)
        let off = ["LOMME_VAULT_KEYRING": "off"]
        let said = "keyring turned off (LOMME_VAULT_KEYRING=off)"
        let status = CLI.run(["status"] + v, environment: off)
        #expect(status.out.contains("state:         locked; \(said)\n"), "\(status.out)")
        let unlock = CLI.run(["unlock", "--passphrase-file", pw] + v, environment: off)
        #expect(unlock.status == 1 && unlock.stderr == "lomme-vault: \(said), so the vault cannot stay unlocked; commands will ask for the passphrase instead\n")
        let lock = CLI.run(["lock"] + v, environment: off)
        #expect(lock.status == 0 && lock.stderr == "Nothing to lock: \(said), so the vault is never kept unlocked.\n", "\(lock.stderr)")
        let get = CLI.run(["get", "clientId", "--passphrase-file", pw] + v, environment: off)
        #expect(get.status == 0 && get.stderr.contains(said) && !get.stderr.contains("not available"), "\(get.stderr)")
    }
}
