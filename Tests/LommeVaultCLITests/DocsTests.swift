import Foundation
import LommeTestSupport
import Testing

/// The documents say what is true now: every repository path they name exists, and none
/// outside the history folder is longer than a newcomer reads (500 lines).
@Suite("Documents")
struct DocsTests {
    /// The documents a newcomer reads (the history folder is history: not checked).
    static var documents: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/docs")) ?? []
        return ["README.md", "DEVELOPING.md", "CHANGELOG.md", "man/sections.mdoc"]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// Paths into the repository a document names: `Sources/…`, `Tests/…`, `bench/…`, …
    static func paths(in text: String) -> [String] {
        let pattern = #"(?<![\w./$-])(?:Sources|Tests|bench|fixtures|docs|man|packaging|examples|fuzz|\.ci)/[A-Za-z0-9_.+/-]*"#
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match -> String? in
            var path = String(text[Range(match.range, in: text)!])
            while let last = path.last, ".,;:-".contains(last) { path.removeLast() }
            // Globs and what the tools write (`bench/out/`, `fuzz/out/`) are not in the tree.
            if path.hasSuffix("/*") || path.hasPrefix("bench/out") || path.hasPrefix("fuzz/out") { return nil }
            // A pattern's placeholder (`Sources/CLazyNAME`, `fixtures/fuzz/TARGET/`) names no one file.
            if path.contains("NAME") || path.contains("TARGET") { return nil }
            return path
        }
    }

    @Test func everyPathADocumentNamesExists() throws {
        var missing: [String] = []
        for document in Self.documents {
            let text = try String(contentsOfFile: packageRoot + "/" + document, encoding: .utf8)
            for path in Set(Self.paths(in: text)) where !FileManager.default.fileExists(atPath: packageRoot + "/" + path) {
                // A glob written without its star (`Sources/CLazy`) names the files it starts.
                let folder = (packageRoot + "/" + path as NSString).deletingLastPathComponent
                let stem = (path as NSString).lastPathComponent
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if !stem.isEmpty, path.hasSuffix(stem), entries.contains(where: { $0.hasPrefix(stem) && $0 != stem }) { continue }
                missing.append("\(document): \(path)")
            }
        }
        #expect(missing.isEmpty, "paths the documents name that are not in the repository:\n\(missing.sorted().joined(separator: "\n"))")
    }

    @Test func noDocumentIsLongerThanANewcomerReads() throws {
        for document in Self.documents {
            let lines = try String(contentsOfFile: packageRoot + "/" + document, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 500, "\(document) has \(lines) lines: split it, or move what is history to docs/history/")
        }
    }

    /// The test knows a missing path when it sees one.
    @Test func thePathsAreFound() {
        let found = Self.paths(in: "see `Sources/LommeCore/Config.swift`, Tests/scripts/readme-tour, and bench/scan. Not $HOME/bench/x")
        #expect(found == ["Sources/LommeCore/Config.swift", "Tests/scripts/readme-tour", "bench/scan"], "\(found)")
    }
}
