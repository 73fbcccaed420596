import LommeCore
import Testing

/// The one escaping function for untrusted text, and the places that quote a server.
@Suite("Terminal text escaping")
struct TerminalTextTests {
    @Test func controlsAreEscapedVisiblyAndPrintableTextIsKept() {
        #expect(TerminalText.line("a\u{1B}]0;t\u{07}b") == #"a\x1b]0;t\x07b"#)
        #expect(TerminalText.line("x\u{9B}2J\u{7F}\u{0}") == #"x\u009b2J\x7f\x00"#)
        #expect(TerminalText.line("one\ntwo\tthree\r") == #"one\ntwo\tthree\r"#)
        #expect(TerminalText.lines("one\ntwo\tthree\r") == "one\ntwo\tthree" + #"\r"#)
        #expect(TerminalText.line("abc\u{202E}cba\u{2028}") == #"abc\u202ecba\u2028"#)
        let ordinary = #"blåbær ÆØÅ 日本 🙂 C:\path "quoted" ě"#
        #expect(TerminalText.line(ordinary) == ordinary)
        let once = TerminalText.line("\u{1B}[2J\u{9B}")
        #expect(TerminalText.line(once) == once)
    }
}

/// The one cleaner's second rendering: a placeholder instead of an escape, for file names
/// inside library messages (ImageLimits.display), with exactly the same characters caught.
@Suite("Terminal text: the placeholder rendering")
struct TerminalTextPlaceholderTests {
    @Test func theSameCharactersAreReplacedAsAreEscaped() {
        let text = "a\nb\tc\u{1B}]0;x\u{07}d\u{9B}e\u{202E}f\u{200B}g æ😀"
        let replaced = TerminalText.line(text, replacingWith: "?")
        #expect(replaced == "a?b?c?]0;x?d?e?f?g æ😀")
        let caught = text.unicodeScalars.filter { TerminalText.needsEscape($0) }.count
        #expect(replaced.unicodeScalars.filter { $0 == "?" }.count == caught)
    }
}
