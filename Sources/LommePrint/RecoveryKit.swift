import CCairo
import LommeCore
import LommeImages
import LommeQR

/// The parent's recovery kit: one printed page holding the household's recovery key, as
/// text and as a QR code, with the household's fingerprint, the date, and a few words on
/// what the sheet is and where to keep it. Drawn with cairo (loaded on first use) as PDF,
/// SVG or a PNG, or given as words for a terminal that draws the code itself.
package struct RecoveryKit: Sendable {
    /// The key as printed: seven groups of five (`RecoveryKey.text`).
    package var keyText: String
    /// What the QR code holds: `LVR1:` and the key, and after a `/` the chain of rotations of
    /// a kit that replaced older ones (`RecoveryKey.qrText`).
    package var qrText: String
    /// The household key's fingerprint, `ABCD-EFGH-JKLM-NPQR`.
    package var household: String
    /// The day the kit was made, `2026-11-27`.
    package var date: String
    /// How many kits this one replaced (the rotations its QR code carries).
    package var earlierKits: Int

    package init(keyText: String, qrText: String, household: String, date: String, earlierKits: Int = 0) {
        self.keyText = keyText
        self.qrText = qrText
        self.household = household
        self.date = date
        self.earlierKits = earlierKits
    }

    /// The kit's QR code, encoded and read back before anything is drawn; the CLI shows
    /// the same code on a terminal (`TerminalCode`). Its level is the kit's
    /// (`CodeKind.recoveryKey`: Q, a quarter of the code may be lost to a fold, a
    /// stain or glare; the key and its day fit a version 3 code, 29 modules a side, a kit
    /// that carries one rotation a version 10, two a version 13).
    package func code() throws(LommeError) -> IssuedCode {
        // The text and the code must each read back as a recovery key, and the same one.
        let typed: RecoveryKey, coded: RecoveryKey
        do throws(LommeError) {
            typed = try RecoveryKey(text: keyText)
            coded = try RecoveryKey(text: qrText)
        } catch {
            throw LommeError.failure(.internalError, "the recovery kit's key does not read back as a recovery key (\(error.message)); nothing was drawn — please report this")
        }
        guard typed.text == keyText, coded.text == keyText, RecoveryKey.isRecoveryKey(qrText) else {
            throw LommeError.failure(.internalError, "the recovery kit's QR code and its text are not the same key; nothing was drawn — please report this")
        }
        return try IssuedCode(payload: qrText, kind: .recoveryKey)
    }

    /// The key as printed on the page and the terminal: its groups in lines of at most four,
    /// spaced dashes between them (`K7QZM - 2XA9P - …`; typed back, spaces and dashes are
    /// ignored).
    package var keyLines: [String] {
        let groups = keyText.split(separator: "-").map(String.init)
        return stride(from: 0, to: groups.count, by: 4).map { groups[$0..<min($0 + 4, groups.count)].joined(separator: " - ") }
    }
}

/// The paper the page is laid out for, in points (1/72 inch).
package enum Paper: String, Sendable, CaseIterable {
    case a4, letter

    package var width: Double { self == .a4 ? 595 : 612 }
    package var height: Double { self == .a4 ? 842 : 792 }
}

extension RecoveryKit {
    /// Pixels per inch of the PNG: a page prints sharp from it and its QR modules are ten
    /// pixels wide.
    package static let pngResolution = 150.0

    /// The page as a one-page PDF (cairo's PDF surface; the fonts embedded, so the text can
    /// be searched and copied).
    package func pdf(paper: Paper) throws(LommeError) -> [UInt8] {
        let page = try checkedPage(paper)
        return try Cairo.document(.pdf, width: paper.width, height: paper.height, metadata: [
            (CAIRO_PDF_METADATA_TITLE, Words.title),
            (CAIRO_PDF_METADATA_CREATOR, "lomme-vault"),
        ] + (Words.isDate(date) ? [(CAIRO_PDF_METADATA_CREATE_DATE, date + "T00:00:00Z")] : [])) { page.draw($0) }
    }

    /// The page as a PNG at `pngResolution`, read back through the package's own PNG
    /// loader and scanner before it is returned.
    package func png(paper: Paper = .a4) throws(LommeError) -> [UInt8] {
        let page = try KitPage(kit: self, matrix: code().matrix, paper: paper)
        let png = try page.raster(scale: RecoveryKit.pngResolution / 72).png()
        try QRVerify.check(ImageLoader.load(bytes: png, name: "the recovery kit"), holds: qrText, what: "recovery kit's PNG")
        return png
    }

    /// The page as SVG (cairo's SVG surface: the text as outlines of its glyphs).
    package func svg(paper: Paper = .a4) throws(LommeError) -> [UInt8] {
        let page = try checkedPage(paper)
        return try Cairo.document(.svg, width: paper.width, height: paper.height) { page.draw($0) }
    }

    /// The file for `path`, by its extension: `.pdf`, `.png` or `.svg`.
    package func fileBytes(for path: String, paper: Paper) throws(LommeError) -> [UInt8] {
        let lower = path.lowercased()
        if lower.hasSuffix(".pdf") { return try pdf(paper: paper) }
        if lower.hasSuffix(".png") { return try png(paper: paper) }
        if lower.hasSuffix(".svg") { return try svg(paper: paper) }
        throw LommeError.usage(.outputFormatUnknown, "a recovery kit is written as .pdf, .png or .svg: \(path)")
    }

    /// The kit for a terminal, which draws the code itself, as three screens shown one at a
    /// time (each fits a window of 80 × 24 columns and rows): `key`, the title, household,
    /// date and the key as text, with a few words on what it is; `caption`, the line under
    /// the QR code on a screen of its own; `words`, what the sheet is and where to keep it.
    /// Lines are at most 72 characters; the two screens of text end in an empty line, above
    /// the question the terminal asks there.
    package func terminalScreens() -> (key: String, caption: String, words: String) {
        let key = [
            Words.title,
            "Household \(household), made on \(date)",
            "",
            "Recovery key:",
        ] + keyLines.map { "    " + $0 } + [
            "",
            Words.subtitle,
            "Write it down on paper: after its QR code and what the sheet is for,",
            "two of its groups are asked back.",
            "",
        ]
        var words: [String] = []
        for (heading, body) in Words.sections(self) {
            words += (words.isEmpty ? [] : [""]) + [heading] + Words.wrap(body, columns: 72)
        }
        return (key.joined(separator: "\n"), Words.qrCaption, (words + [""]).joined(separator: "\n"))
    }

    /// The page for `paper`, its drawing already read back from pixels once.
    func checkedPage(_ paper: Paper) throws(LommeError) -> KitPage {
        let page = try KitPage(kit: self, matrix: code().matrix, paper: paper)
        try QRVerify.check(page.raster(scale: RecoveryKit.pngResolution / 72).gray(), holds: qrText, what: "recovery kit's page")
        return page
    }
}

/// The kit's words, the same on paper and on a terminal. Text between backticks is a
/// command: in the monospaced face on paper, never broken across lines.
enum Words {
    static let title = "lomme-vault recovery kit"
    static let subtitle = "The key to your household's lomme-vault. Keep it like a passport."
    static let qrCaption = "The QR code holds the same key."

    static func sections(_ kit: RecoveryKit) -> [(heading: String, body: String)] {
        [
            ("What this sheet is",
             "This sheet is the key to your household's lomme-vault. If you forget the passphrase, "
                + "`lomme-vault unlock --with recovery` opens your vault with it. On a new computer, "
                + "`lomme-vault init --parent --restore` sets your household up again from it, and your "
                + "children's devices accept codes from there without a question. A restore also needs a "
                + "new secret from the bank and each child's key again (`lomme-vault key` on their device)."),
            ("Keep it like a passport",
             "Anyone who holds this sheet can do the same. Keep it on paper, in a locked drawer or a safe; "
                + "keep no copy on a computer or among a phone's photos. To restore, photograph it on the new "
                + "computer, then delete the photo. A new kit (`lomme-vault recovery kit`) needs this one."),
        ] + (kit.earlierKits == 0 ? [] : [
            ("It replaces \(kit.earlierKits == 1 ? "an earlier kit" : "\(kit.earlierKits) earlier kits")",
             "Its QR code also holds the hand-over from the household's earlier kits, which a child's device "
                + "that has had no code since needs. On a new computer, restore from a photo of the code "
                + "(`lomme-vault init --parent --restore --recovery-image PHOTO`) rather than the typed key."),
        ])
    }

    /// A word, or a command (between backticks in the text).
    struct Token {
        var text: String
        var command: Bool
        /// Touches the token before it, with no space between (the "(" and ")" round a command).
        var glued: Bool
    }

    static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var current = "", command = false, glued = false
        func flush() {
            guard !current.isEmpty else { return }
            tokens.append(Token(text: current, command: command, glued: glued))
            current = ""
            glued = true
        }
        for character in text {
            if character == "`" {
                flush()
                command.toggle()
            } else if character == " " && !command {
                flush()
                glued = false
            } else {
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    /// Breaks `text` into lines for which `fits` holds, never inside a word or a command, nor
    /// between tokens glued together; a line holds one such run at least. `measure` gives a
    /// token's width, `space` the width between two tokens.
    static func lines(_ text: String, fits: (_ width: Double) -> Bool, measure: (Token) -> Double, space: Double) -> [[Token]] {
        var runs: [[Token]] = []
        for token in tokens(text) {
            if token.glued, !runs.isEmpty { runs[runs.count - 1].append(token) } else { runs.append([token]) }
        }
        var lines: [[Token]] = []
        var width = 0.0
        for run in runs {
            let runWidth = run.reduce(0) { $0 + measure($1) }
            if let last = lines.indices.last, fits(width + space + runWidth) {
                lines[last] += run
                width += space + runWidth
            } else {
                lines.append(run)
                width = runWidth
            }
        }
        return lines
    }

    /// `text` as terminal lines of at most `columns` characters (a command longer than that
    /// gets a line of its own), without the backticks.
    static func wrap(_ text: String, columns: Int) -> [String] {
        lines(text, fits: { $0 <= Double(columns) }, measure: { Double($0.text.count) }, space: 1).map { line in
            line.enumerated().map { $0.offset > 0 && !$0.element.glued ? " " + $0.element.text : $0.element.text }.joined()
        }
    }

    /// True for `YYYY-MM-DD` (digits), which the PDF's creation date may take.
    static func isDate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10 && bytes.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
