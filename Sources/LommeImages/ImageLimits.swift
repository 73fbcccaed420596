import LommeCore

/// What `ImageLoader` refuses before it allocates anything, and the one-line messages
/// every decoder uses, so that all formats fail in the same words.
package enum ImageLimits {
    /// A 12 MP phone photo is 12 million; 100 million is more than any camera makes.
    package static let maxPixels = 100_000_000
    /// Longest side accepted, in pixels.
    package static let maxSide = 30_000
    /// Largest file read, in bytes (200 MB).
    package static let maxFileBytes = 200 * 1024 * 1024

    /// Checks a size declared by a file header. Call it before allocating pixels.
    static func check(width: Int, height: Int, name: String) throws(LommeError) {
        if width <= 0 || height <= 0 {
            throw .image(.imageDamaged, "\(display(name)) declares a \(width)×\(height) picture, which has no pixels; it is damaged, take or export the picture again")
        }
        if width > maxSide || height > maxSide || width.multipliedReportingOverflow(by: height).overflow
            || width * height > maxPixels {
            throw tooLarge(name: name, detail: "\(width)×\(height) pixels")
        }
    }

    static func tooLarge(name: String, detail: String) -> LommeError {
        .image(.imageTooLarge, "\(display(name)) declares \(detail), more than any photo; refusing to load it (the limit is \(maxSide) pixels a side and \(maxPixels / 1_000_000) megapixels)")
    }

    static func damaged(name: String, library: String, detail: String) -> LommeError {
        var detail = oneLine(detail)
        while detail.hasSuffix(" ") || detail.hasSuffix(".") { detail.removeLast() }
        let why = detail.isEmpty ? "" : " (\(library): \(detail))"
        return .image(.imageDamaged, "\(display(name)) is damaged or truncated\(why); take or export the picture again")
    }

    /// A file name as it goes into a message: one line, whatever the name holds.
    package static func display(_ name: String) -> String {
        let line = oneLine(name)
        return line.isEmpty ? "the picture" : line
    }

    /// Library messages and file names may hold control characters; a message is one line:
    /// each character the terminal cleaner (TerminalText) would escape becomes `?`.
    static func oneLine(_ text: String) -> String {
        TerminalText.line(text, replacingWith: "?")
    }
}
