import Foundation
import LommeCore
import LommeQR
import LommeScan
import LommeTestSupport
import Testing

/// docs/contract.md, "Issue output": a code larger than the terminal is never printed wrapped; `issue`
/// says what size it needs and draws once the window has grown. No escapes to a pipe.
@Suite("QR code and the terminal's size (tmux)")
struct TerminalSizeTests {
    static let config = #"{"clientId":"size","clientSecret":"size-secret","userId":"15128972371","accountNr":"98765432197"}"#
    static let blocks: Set<Character> = ["▀", "▄", "█"]

    /// The screen with its colours (`capture-pane -e`, trailing spaces kept by -N): the
    /// lines from the first to the last that sets a colour, turned into pixels as a terminal
    /// with `theme` shows them, decoded by zbar.
    static func decoded(_ tty: TmuxSession, theme: QRVerify.Theme) -> [String] {
        let screen = tty.tmux(["capture-pane", "-p", "-e", "-N", "-t", "t", "-S", "-100"]).split(separator: "\n")
        guard let first = screen.firstIndex(where: { $0.contains("48;5;") }),
              let last = screen.lastIndex(where: { $0.contains("48;5;") }) else { return [] }
        let lines = screen[first...last].joined(separator: "\n")
        let image = QRVerify.imageFromTerminal(lines, style: .halfBlocks, theme: theme)
        return ZBarScanner().scan(image).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test func tooSmallATerminalGetsTheNeededSizeThenTheCodeOnceItGrows() throws {
        let box = CLI.Sandbox()
        let from = box.write("config.json", Self.config)
        let payload = PlainPayload.encode(try Config(jsonBytes: Array(Self.config.utf8)))
        let side = try QRMatrix.encode(payload, level: .H).size + 8
        let tty = TmuxSession(box, command: "\"$LV\" issue --from '\(from)'", columns: 80, rows: 24)
        try #require(tty.wait(for: "The code is drawn when the window is large enough"))
        let waiting = tty.screen
        // The code's rows, the summary under it and a line for the cursor.
        let needed = try #require(waiting.firstMatch(of: /at least (\d+) columns × (\d+) rows/))
        #expect(Int(needed.1) == side && Int(needed.2)! > (side + 1) / 2 + 6, "\(waiting)")
        let prose = TmuxSession.flowing(waiting)  // the message is wrapped at words to the 80 columns
        #expect(prose.contains("this one is 80 × 24") && prose.contains("--output code.png") && prose.contains("lower --level than H"), "\(waiting)")
        #expect(!waiting.contains { Self.blocks.contains($0) }, "a code was drawn in a terminal too small for it:\n\(waiting)")
        #expect(!waiting.contains("EXIT="), "issue did not wait")
        // The summary comes first: a 24-row window shows what is coming while it waits.
        #expect(waiting.contains("Plain config (QR version") && waiting.contains("clientSecret  ********"), "\(waiting)")

        tty.tmux(["resize-window", "-t", "t", "-x", "120", "-y", "60"])
        try #require(tty.wait(for: "EXIT="))
        let done = tty.screen
        #expect(done.contains("EXIT=0"), "\(done)")
        // The summary before the code, a recap of its kind under it, and the whole code
        // still on the screen: the window was made to fit all three.
        let summary = try #require(done.range(of: "lomme-vault: warning: this code holds")), code = try #require(done.firstIndex(of: "▀"))
        let recap = try #require(done.range(of: "Above: a plain code: it holds the client secret in clear."))
        #expect(summary.lowerBound < code && code < recap.lowerBound, "\(done)")
        for theme in QRVerify.Theme.allCases {
            #expect(Self.decoded(tty, theme: theme) == [payload], "the drawn code does not read on a \(theme) theme")
        }
    }

    @Test func ctrlCEndsTheWaitWithNothingShown() throws {
        let box = CLI.Sandbox()
        let from = box.write("config.json", Self.config)
        // The script's shell ignores SIGINT so that it lives to print the exit status; the
        // tool inherits that and must still stop on Ctrl-C.
        let tty = TmuxSession(box, command: "trap '' INT; \"$LV\" issue --from '\(from)'", columns: 80, rows: 24)
        try #require(tty.wait(for: "The code is drawn when the window is large enough"))
        tty.tmux(["send-keys", "-t", "t", "C-c"])
        try #require(tty.wait(for: "EXIT="))
        let screen = tty.screen
        #expect(screen.contains("EXIT=130"), "\(screen)")
        #expect(!screen.contains { Self.blocks.contains($0) }, "\(screen)")
    }

    @Test func theDeviceKeyWaitsToo() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "size passphrase 2026\n")
        try #require(CLI.run(["init", "--vault", box.vault, "--passphrase-file", pw]).status == 0)
        let tty = TmuxSession(box, command: "\"$LV\" key --vault '\(box.vault)' --passphrase-file '\(pw)'", columns: 30, rows: 12)
        try #require(tty.wait(for: "this one is 30 × 12"))
        #expect(!tty.screen.contains { Self.blocks.contains($0) }, "\(tty.screen)")
        // What `key` can do instead: its own --output (and --text), never issue's --level.
        #expect(tty.flowed.contains("`lomme-vault key --output key.png`") && !tty.screen.contains("--level"), "\(tty.screen)")
        tty.tmux(["resize-window", "-t", "t", "-x", "100", "-y", "40"])
        try #require(tty.wait(for: "EXIT="))
        let key = CLI.run(["key", "--text", "--vault", box.vault, "--passphrase-file", pw]).out.trimmingASCIIWhitespace()
        #expect(Self.decoded(tty, theme: .dark) == [key.uppercased()], "\(tty.screen)")
    }

    /// A pipe or a file gets the code as plain text: no escape byte, no size check (the
    /// runner's stdout is no terminal), dark modules as ink that reads on a light ground.
    @Test func aPipeGetsTheCodeWithoutEscapes() throws {
        let box = CLI.Sandbox()
        let from = box.write("config.json", Self.config)
        let issued = CLI.run(["issue", "--from", from], environment: ["TERM": "xterm-256color"])
        try #require(issued.status == 0, "\(issued.stderr)")
        let escapes = issued.stdout.filter { $0 == 0x1B }.count
        #expect(escapes == 0, "escape bytes went to the pipe")
        #expect(issued.out.contains("▀") && !issued.stderr.contains("at least"))
        let image = QRVerify.imageFromTerminal(issued.out, style: .halfBlocks, theme: .light)
        #expect(ZBarScanner().scan(image).map(\.bytes) == [Array(PlainPayload.encode(try Config(jsonBytes: Array(Self.config.utf8))).utf8)])
    }
}
