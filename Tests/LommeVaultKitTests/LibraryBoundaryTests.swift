import Foundation
import LommeTestSupport
import Testing

/// Only the CLI talks to the user or reads the environment: no library target's
/// source may print, write to stderr, read a line from stdin, use the CLI's `Terminal`, or
/// call getenv. Questions and notices go through `Interaction`, settings come in as values.
@Suite("Library boundary")
struct LibraryBoundaryTests {
    static let libraries = ["LommeCore", "LommeImages", "LommeScan", "LommeCamera", "LommeQR", "LommePrint", "LommeVaultKit", "LommeTPM"]
    static let forbidden = ["print(", "FileHandle.standardError", "readLine", "Terminal.", "getenv("]

    static func swiftFiles(under directory: String) -> [String] {
        let found = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".swift") }.map { directory + "/" + $0 }
    }

    /// True when `word` stands in `code` as a name of its own (`print(`, not `fingerprint(`).
    static func uses(_ code: String, _ word: String) -> Bool {
        var rest = code[...]
        while let found = rest.range(of: word) {
            let before = found.lowerBound == code.startIndex ? nil : code[code.index(before: found.lowerBound)]
            if !(before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) { return true }
            rest = code[found.upperBound...]
        }
        return false
    }

    @Test func theScanSeesWhatItLooksFor() {
        #expect(Self.uses("print(x)", "print(") && Self.uses("  Swift.print(x)", "print("))
        #expect(!Self.uses("TokenCache.fingerprint(x)", "print("))
        #expect(Self.uses("Terminal.info(x)", "Terminal.") && !Self.uses("TerminalText.line(x)", "Terminal."))
        #expect(Self.uses("let v = getenv(name)", "getenv("))
    }

    @Test func noLibraryTargetPrintsPromptsOrReadsTheEnvironment() {
        var checked = 0
        for library in Self.libraries {
            for file in Self.swiftFiles(under: packageRoot + "/Sources/" + library) {
                checked += 1
                let text = String(decoding: readFile(file), as: UTF8.self)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") { continue }
                    for word in Self.forbidden where Self.uses(code, word) {
                        Issue.record("\(file):\(number + 1) uses \(word): \(code)")
                    }
                }
            }
        }
        #expect(checked > 50, "found only \(checked) library sources under \(packageRoot)/Sources")
    }
}
