import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A QR code whose text carries terminal control sequences (retitle the window, write the
/// clipboard with OSC 52, clear the screen, a C1 CSI) never gets them to the terminal raw:
/// scan, import, status and error messages show them escaped; `get` to a pipe keeps the
/// exact bytes, `get` on a terminal escapes them. Attacked through the built binary.
@Suite("Escape injection (through the built binary)")
struct EscapeInjectionTests {
    /// ESC ] 0 ; title BEL in a field name; OSC 52, CSI 2J and a C1 CSI (escaped, and raw
    /// UTF-8) in its value.
    static let hostileName = "note\u{1B}]0;PWNED\u{07}"
    static let hostileValue = "a\u{1B}]52;c;cHduZWQ=\u{07}b\u{1B}[2Jc\u{9B}31md\u{9B}0m"
    static let hostileConfig = #"{"clientId":"client-E","clientSecret":"E-secret-value","userId":"01010112345","accountNr":"12345678903","note\u001b]0;PWNED\u0007":"a\u001b]52;c;cHduZWQ=\u0007b\u001b[2Jc\u009b31md"# + "\u{9B}0m\"}"

    /// Control characters that would reach a terminal raw (a line break is allowed).
    static func rawControls(_ text: String) -> [UInt32] {
        text.unicodeScalars.filter { TerminalText.needsEscape($0, keepingLineBreaks: true) }.map(\.value)
    }

    static func expectNoRawControls(_ result: CLI.Result, _ what: String) {
        #expect(rawControls(result.out).isEmpty, "\(what) stdout has raw controls \(rawControls(result.out))")
        #expect(rawControls(result.stderr).isEmpty, "\(what) stderr has raw controls \(rawControls(result.stderr))")
    }

    @Test func scanImportAndStatusShowControlsEscaped() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "a passphrase long enough\n")
        let v = ["--vault", box.vault]
        let photo = CLI.qrImage(Self.hostileConfig, in: box)

        let scan = CLI.run(["scan", photo])
        #expect(scan.status == 0, "\(scan.stderr)")
        Self.expectNoRawControls(scan, "scan")
        #expect(scan.out.contains(#"note\x1b]0;PWNED\x07"#), "\(scan.out)")
        #expect(scan.out.contains(#"a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\u009b31md"#), "\(scan.out)")

        let imported = CLI.run(["import", photo, "--yes", "--no-check", "--passphrase-file", pw] + v)
        #expect(imported.status == 0, "\(imported.stderr)")
        Self.expectNoRawControls(imported, "import")
        #expect(imported.stderr.contains(#"note\x1b]0;PWNED\x07"#), "\(imported.stderr)")

        #expect(CLI.run(["unlock", "--timeout", "5m", "--passphrase-file", pw] + v).status == 0)
        let status = CLI.run(["status"] + v)
        #expect(status.status == 0, "\(status.stderr)")
        Self.expectNoRawControls(status, "status")
        #expect(status.out.contains(#"note\x1b]0;PWNED\x07"#), "\(status.out)")

        // An error message that names the config's fields escapes them too.
        let missing = CLI.run(["get", "nosuchfield", "--no-prompt"] + v)
        #expect(missing.status == 6)
        Self.expectNoRawControls(missing, "get's error")
        #expect(missing.stderr.contains(#"note\x1b]0;PWNED\x07"#) && missing.stderr.split(separator: "\n").count == 1)

        // To a pipe, get keeps the exact bytes.
        let exact = CLI.run(["get", Self.hostileName, "--no-prompt"] + v)
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(exact.stdout == Array(Self.hostileValue.utf8))
        _ = CLI.run(["lock"] + v)
    }

    @Test func scanOfOtherTextEscapesIt() throws {
        let box = CLI.Sandbox()
        let text = box.write("other.txt", "hello\u{1B}]0;PWNED\u{07}\u{1B}[2J\r\u{9B}1mworld\nsecond line")
        let png = box.path + "/other.png"
        #expect(CLI.run([], shell: "qrencode -8 -o '\(png)' < '\(text)'").status == 0)
        let scan = CLI.run(["scan", png])
        #expect(scan.status == 0, "\(scan.stderr)")
        Self.expectNoRawControls(scan, "scan")
        #expect(scan.out.contains(#"hello\x1b]0;PWNED\x07\x1b[2J\r\u009b1mworld"# + "\nsecond line"), "\(scan.out)")
        // --raw to a pipe: the exact text.
        let raw = CLI.run(["scan", "--raw", png])
        #expect(raw.stdout == Array("hello\u{1B}]0;PWNED\u{07}\u{1B}[2J\r\u{9B}1mworld\nsecond line".utf8))
    }

    /// On a real terminal (tmux), `get` of the hostile field shows it escaped: the raw bytes
    /// the tool wrote (pipe-pane) hold no control sequence, and the window keeps its title.
    @Test func getOnATerminalEscapesControls() throws {
        let box = CLI.Sandbox()
        let v = "--vault '\(box.vault)' --passphrase-file '\(box.importedVault(Self.hostileConfig))'"
        let nameFile = box.write("name", Self.hostileName)
        let tty = TmuxSession(box, command: """
            printf 'ready\\n'; while [ ! -e '\(box.path)/go' ]; do sleep 0.1; done
            "$LV" get "$(cat '\(nameFile)')" \(v) 2>/dev/null; printf '|END\\n'
            """)
        tty.wait(for: "ready")
        let captured = box.path + "/pane.raw"
        tty.tmux(["pipe-pane", "-o", "-t", "t", "cat > '\(captured)'"], capture: false)
        _ = box.write("go", "")
        tty.wait(for: "EXIT=")
        // pipe-pane's cat writes the pane's bytes as they come: wait until it has the end
        // (as long as it takes, up to 10 minutes: a guard, not a measure).
        for _ in 0..<6000 where !String(decoding: readFile(captured), as: UTF8.self).contains("EXIT=") { usleep(100_000) }
        let raw = String(decoding: readFile(captured), as: UTF8.self)
        #expect(raw.contains(#"a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\u009b31md\u009b0m"#), "\(raw.debugDescription)")
        let written = raw.components(separatedBy: "|END").first ?? raw
        #expect(Self.rawControls(written.replacingOccurrences(of: "\r\n", with: "\n")).isEmpty, "\(written.debugDescription)")
        #expect(!tty.tmux(["display-message", "-p", "-t", "t", "#{pane_title}"]).contains("PWNED"))
        #expect(tty.screen.contains("EXIT=0") && tty.screen.contains("ready"))
    }

    /// Every bidi control and invisible format character docs/contract.md ("Untrusted text") promises to escape,
    /// listed here independently of `TerminalText` (a list shared with the code under test
    /// could lose one on both sides and still pass): each reaches the terminal as `\uXXXX`
    /// (`\UXXXXXXXX` above U+FFFF), never raw, in `scan`'s output of a code holding it.
    static let invisible: [UInt32] = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
        0x2028, 0x2029, 0x00AD, 0x180E, 0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF,
        0xFFF9, 0xFFFA, 0xFFFB, 0xE0001, 0xE0041, 0xE007F,
    ]

    @Test func bidiControlsAndInvisibleFormatCharactersAreEscaped() throws {
        let box = CLI.Sandbox()
        var text = "begin"
        for value in Self.invisible { text += "<" + String(Character(Unicode.Scalar(value)!)) + ">" }
        text += "end"
        let file = box.write("invisible.txt", text)
        let png = box.path + "/invisible.png"
        #expect(CLI.run([], shell: "qrencode -8 -o '\(png)' < '\(file)'").status == 0)
        let scan = CLI.run(["scan", png])
        #expect(scan.status == 0, "\(scan.stderr)")
        for value in Self.invisible {
            let raw = Unicode.Scalar(value)!
            let shown = value <= 0xFFFF ? String(format: "<\\u%04x>", value) : String(format: "<\\U%08x>", value)
            #expect(!scan.out.unicodeScalars.contains(raw) && !scan.stderr.unicodeScalars.contains(raw),
                    "U+\(String(value, radix: 16)) reached the terminal raw")
            #expect(scan.out.contains(shown), "U+\(String(value, radix: 16)) not shown as \(shown): \(scan.out.debugDescription)")
        }
        // Joiners stay: scripts and emoji sequences need them.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        let emoji = box.write("emoji.txt", "family " + family)
        let emojiPNG = box.path + "/emoji.png"
        #expect(CLI.run([], shell: "qrencode -8 -o '\(emojiPNG)' < '\(emoji)'").status == 0)
        #expect(CLI.run(["scan", emojiPNG]).out.contains(family))
    }
}
