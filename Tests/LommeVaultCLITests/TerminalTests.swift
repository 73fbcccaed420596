import Foundation
import LommeVaultKit
import Testing

/// Prompts driven through a real pseudo-terminal (tmux), as a person would type.
final class TmuxSession {
    let socket = "lvtest-\(getpid())-\(Int.random(in: 0..<1_000_000))"
    let box: CLI.Sandbox

    init(_ box: CLI.Sandbox, command: String, columns: Int = 180, rows: Int = 50) {
        self.box = box
        // The pane stays (sleeping) after the command, until the session is killed, for the
        // test to read the screen however long it takes to get there.
        let script = box.write("run-\(Int.random(in: 0..<1_000_000)).sh", "\(command)\necho EXIT=$?\nexec sleep 86400\n", mode: 0o700)
        // On a loaded machine a new tmux server now and then fails to start: try again, a
        // few times, until it lists the session. The script is read by sh, never executed
        // itself: a process spawned meanwhile by another test (a tmux server lives on) may
        // have inherited the descriptor it was written through, and exec of a file open for
        // writing fails (ETXTBSY), which ended the session before its first line.
        for _ in 0..<20 {
            tmux(["new-session", "-d", "-s", "t", "-x", "\(columns)", "-y", "\(rows)",
                  "-e", "LOMME_VAULT_KDF=minimum", "-e", "LV=\(CLI.binary)", "-e", "LOMME_VAULT=", "/bin/sh '\(script)'"], capture: false)
            if tmux(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").contains("t") { break }
            usleep(200_000)
        }
    }

    deinit { tmux(["kill-server"], capture: false) }

    /// Runs tmux with posix_spawn and no signal blocked (the test runner's threads
    /// block most signals, and children would inherit that); stdout is read only when
    /// `capture` (the server started by new-session would keep a pipe open for ever).
    @discardableResult
    func tmux(_ arguments: [String], capture: Bool = true) -> String {
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        var pipeEnds: [Int32] = [-1, -1]
        if capture { _ = pipe(&pipeEnds) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if capture {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, environ) == 0 else { return "" }
        var output: [UInt8] = []
        if capture {
            close(pipeEnds[1])
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(pipeEnds[0], &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                output += chunk[0..<count]
            }
            close(pipeEnds[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    /// The screen, lines the terminal wrapped joined again (-J), as a person reads them.
    var screen: String { tmux(["capture-pane", "-p", "-J", "-t", "t", "-S", "-100"]) }

    /// The screen as prose: every run of spaces and line breaks one space, so a message the
    /// tool wrapped at words to a narrow window reads as one line again.
    var flowed: String { Self.flowing(screen) }

    static func flowing(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    /// Waits until the screen shows `text`, as it is or wrapped at words: as long as it takes,
    /// up to 10 minutes (a guard against a hang, never a measure of speed).
    @discardableResult
    func wait(for text: String, count: Int = 1) -> Bool {
        let prose = Self.flowing(text)
        for _ in 0..<12_000 {
            let shown = screen
            if shown.components(separatedBy: text).count > count { return true }
            if !text.contains("\n"), !prose.isEmpty, Self.flowing(shown).components(separatedBy: prose).count > count { return true }
            // A pane always shows its rows; nothing at all means the tmux server is gone, and
            // nothing will come: say so now rather than after the guard.
            if shown.isEmpty, !tmux(["list-sessions", "-F", "#{session_name}"]).split(separator: "\n").contains("t") {
                Issue.record("the tmux session ended before the terminal showed \"\(text)\"")
                return false
            }
            usleep(50_000)
        }
        Issue.record("the terminal never showed \"\(text)\"; it shows:\n\(screen)")
        return false
    }

    func type(_ text: String) {
        tmux(["send-keys", "-t", "t", "-l", text])
        tmux(["send-keys", "-t", "t", "Enter"])
    }

    /// The pid of the program the script runs (a child of the pane's shell).
    var childPid: Int32? {
        let shell = tmux(["display-message", "-p", "-t", "t", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = (try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }
}

@Suite("Terminal prompts (tmux)")
struct TerminalTests {
    let phrase = "tty passphrase one two"

    @Test func initAsksTwiceWithEchoOffAndEnforcesTheMinimum() {
        let box = CLI.Sandbox()
        let tty = TmuxSession(box, command: "\"$LV\" init --vault '\(box.vault)'")
        tty.wait(for: "New passphrase:")
        tty.type("short")
        tty.wait(for: "too short")
        tty.wait(for: "New passphrase:", count: 2)
        tty.type("password12")  // long enough, but weak
        tty.wait(for: "warning: this passphrase is weak")
        tty.wait(for: "Repeat it:")
        tty.type("password13")
        tty.wait(for: "differ")
        tty.wait(for: "New passphrase:", count: 3)
        tty.type(phrase)
        tty.wait(for: "Repeat it:", count: 2)
        tty.type(phrase)
        tty.wait(for: "Will this machine receive codes (a child's)? [y/N]")
        tty.type("n")
        tty.wait(for: "EXIT=")
        let screen = tty.screen
        #expect(screen.contains("EXIT=0") && screen.contains("Created the vault"), "\(screen)")
        #expect(!screen.contains(phrase) && !screen.contains("password1") && !screen.contains("short\n"), "echo was on:\n\(screen)")
        let pw = box.write("pw", phrase)
        #expect(CLI.run(["get", "--json", "--vault", box.vault, "--passphrase-file", pw]).status == 6)  // opens; no config yet
    }

    @Test func importGetAndExportPromptOnTheTerminal() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase + "\n")
        #expect(CLI.run(["init", "--vault", box.vault, "--passphrase-file", pw]).status == 0)
        let photo = CLI.qrImage(Sample.configB, in: box)
        let tty = TmuxSession(box, command: """
            "$LV" import '\(photo)' --no-check --vault '\(box.vault)' && \
            "$LV" get clientSecret --vault '\(box.vault)' && \
            "$LV" export --vault '\(box.vault)'
            """)
        tty.wait(for: "Passphrase for")
        tty.type(phrase)
        tty.wait(for: "Store it? [y/N]")
        #expect(tty.screen.contains("client-B") && !tty.screen.contains(Sample.secretB))
        tty.type("y")
        tty.wait(for: "Passphrase for", count: 2)
        tty.type("wrong passphrase here")
        tty.wait(for: "Wrong passphrase; try again.")
        tty.type(phrase)
        // On a terminal, get ends the value with a newline.
        tty.wait(for: Sample.secretB + "\n")
        tty.wait(for: "Passphrase for", count: 4)  // import, get, get's second try, export
        tty.type(phrase)
        tty.wait(for: "Continue? [y/N]")
        tty.type("y")
        tty.wait(for: "EXIT=")
        let screen = tty.screen
        #expect(screen.contains("EXIT=0") && screen.contains(Sample.jsonB), "\(screen)")
        #expect(!screen.contains(phrase) && !screen.contains("wrong passphrase here"))
    }

    /// While a prompt waits and while exec runs, `ps` never shows a passphrase or a
    /// secret, and the waiting process has core dumps off.
    @Test func psNeverShowsSecretsAndCoreDumpsAreOff() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase + "\n")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configB).status == 0)
        // The command exec runs waits for a file the test makes once it has looked (not a
        // sleep of a few seconds, which a loaded machine could outlast or not reach in time).
        let go = box.path + "/go"
        let tty = TmuxSession(box, command: "\"$LV\" exec --vault '\(box.vault)' -- sh -c 'while [ ! -e \"$0\" ]; do sleep 0.1; done' '\(go)'")
        tty.wait(for: "Passphrase for")
        let pid = try #require(tty.childPid)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        #expect(core.split(separator: " ").contains("0"), "\(core)")
        tty.type(phrase)
        var ps = CLI.Result(status: -1, stdout: [], stderr: "")
        for _ in 0..<6000 {
            ps = CLI.run([], shell: "ps -eww -o pid,args")
            if ps.out.contains(go) { break }
            usleep(100_000)
        }
        #expect(ps.out.contains(go), "exec's command never ran")
        for needle in [phrase, Sample.secretB, "02020212345"] {
            #expect(!ps.out.contains(needle), "ps shows \(needle)")
        }
        _ = box.write("go", "")
        tty.wait(for: "EXIT=")
        #expect(tty.screen.contains("EXIT=0"))
    }

    @Test func noPromptOnATerminalIsExitThree() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", phrase + "\n")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configA).status == 0)
        let tty = TmuxSession(box, command: "\"$LV\" get clientId --no-prompt --vault '\(box.vault)'")
        tty.wait(for: "EXIT=")
        #expect(tty.screen.contains("EXIT=3") && !tty.screen.contains("Passphrase for"))
    }
}
