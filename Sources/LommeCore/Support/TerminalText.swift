/// Text that came from outside — a QR code, a field name or value, a token server's
/// answer, a file name — made safe to show on a terminal.
///
/// A terminal obeys control characters: ESC ] 0 ; … BEL retitles the window, ESC [ 2 J
/// clears the screen, OSC 52 writes the clipboard, and U+009B (C1 CSI) starts a sequence
/// on its own. Every C0 control, DEL and every C1 control is written out visibly instead
/// (`\x1b`, `\x7f`, `\u009b`), as are the invisible Unicode marks that reorder, hide or
/// split what is shown (bidi marks, overrides and isolates, line and paragraph separators,
/// zero-width spaces, the BOM, tag characters: `needsEscape` lists them). A line
/// break and a tab are kept where the text is allowed several lines (`lines`) and escaped
/// (`\n`, `\t`) where it must stay on one line (`line`). A carriage return is always
/// escaped: it would let text overwrite what came before it on the line. Everything else —
/// letters of any script, emoji, a backslash — passes unchanged, so escaping twice changes
/// nothing more.
package enum TerminalText {
    /// For one line of a message or a listing: every control character escaped.
    package static func line(_ text: String) -> String { escaped(text, keepingLineBreaks: false) }

    /// For one line where an escape would be noise (a file name inside a library's message):
    /// every character `needsEscape` names becomes `placeholder` instead.
    package static func line(_ text: String, replacingWith placeholder: Unicode.Scalar) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) }) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { output.append(needsEscape(scalar) ? placeholder : scalar) }
        return String(output)
    }

    /// For text of several lines: line breaks and tabs kept, every other control escaped.
    package static func lines(_ text: String) -> String { escaped(text, keepingLineBreaks: true) }

    package static func escaped(_ text: String, keepingLineBreaks: Bool) -> String {
        let scalars = text.unicodeScalars
        guard scalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in scalars {
            if needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) {
                output.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                output.append(scalar)
            }
        }
        return String(output)
    }

    /// True when `scalar` must not reach a terminal as it is.
    package static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool = false) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingLineBreaks
        case 0x00..<0x20, 0x7F..<0xA0: return true
        // Bidi marks, embeddings, overrides and isolates; line and paragraph separators.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        // Other invisible format characters that hide or split text: soft hyphen, Mongolian
        // vowel separator, zero-width space, word joiner and invisible operators, the byte
        // order mark, interlinear annotation marks, and the tag characters (which can carry
        // a hidden ASCII copy of any text). Zero-width (non-)joiners stay: scripts and emoji
        // need them, and they hide nothing.
        case 0x00AD, 0x180E, 0x200B, 0x2060...0x2064, 0xFEFF, 0xFFF9...0xFFFB, 0xE0000...0xE007F: return true
        default: return false
        }
    }

    static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x09: return "\\t"
        case 0x0D: return "\\r"
        case let value where value < 0x80: return "\\x" + hex(value, digits: 2)
        case let value where value <= 0xFFFF: return "\\u" + hex(value, digits: 4)
        case let value: return "\\U" + hex(value, digits: 8)
        }
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
