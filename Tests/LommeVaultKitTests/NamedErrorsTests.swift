import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Every failure is named (DEVELOPING.md, "Errors"): each LommeError in Sources is made with a
/// `Reason`, which code, tests and scripts (`LOMME_VAULT_REASON=1`) match instead of the
/// wording. The compiler sees to most of it (LommeError has no initialiser without one);
/// this scan keeps it so, and keeps the list of reasons free of names nothing throws.
@Suite("Named errors")
struct NamedErrorsTests {
    static let reasonFile = "Sources/LommeCore/Support/LommeErrorReason.swift"

    /// Every Swift source of every target, with its path from the package root.
    static func sources() -> [(path: String, text: String)] {
        let root = packageRoot + "/Sources"
        let found = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".swift") }.sorted().map { name in
            ("Sources/" + name, String(decoding: readFile(root + "/" + name), as: UTF8.self))
        }
    }

    /// A LommeError made with a message and no reason: `LommeError(.refused, "…")`,
    /// `.failure("…")`, `LommeError.usage(#"…"#)`, the text on the next line or not.
    static func reasonless(in text: String) -> [String] {
        let patterns = [
            #/LommeError\(\s*\.[a-zA-Z]+\s*,\s*[\"#]/#,
            #/(?:^|LommeError|[^A-Za-z0-9_\])])\.(?:failure|image|refused|usage)\(\s*[\"#]/#,
        ]
        return patterns.flatMap { pattern in text.matches(of: pattern).map { String(text[$0.range]) } }
    }

    /// True when `name` stands in `code` as a member, `.name` followed by no more of a name.
    static func mentions(_ code: String, _ name: String) -> Bool {
        var rest = code[...]
        while let found = rest.range(of: "." + name) {
            let after = found.upperBound == code.endIndex ? nil : code[found.upperBound]
            if !(after.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) { return true }
            rest = code[found.upperBound...]
        }
        return false
    }

    @Test func theScanSeesWhatItLooksFor() {
        #expect(Self.reasonless(in: #"throw LommeError(.damaged, "the vault is damaged")"#).count == 1)
        #expect(Self.reasonless(in: "throw .failure(\n    \"cannot write\")").count == 1)
        #expect(Self.reasonless(in: #"return LommeError.usage("--level takes L, M, Q or H")"#).count == 1)
        #expect(Self.reasonless(in: #"throw LommeError(.damaged, .vaultDamaged, "the vault is damaged")"#).isEmpty)
        #expect(Self.reasonless(in: #"throw .failure(.fileNotWritten, "cannot write")"#).isEmpty)
        #expect(Self.reasonless(in: #"return .failure(ImageLimits.damaged(name: name))"#).isEmpty)
        #expect(Self.mentions("throw .refused(.rollback, text)", "rollback") && !Self.mentions("x.rollbackCount", "rollback"))
    }

    @Test func everyErrorInSourcesHasAReason() {
        let sources = Self.sources()
        #expect(sources.count > 100, "found only \(sources.count) sources under \(packageRoot)/Sources")
        for (path, text) in sources {
            for found in Self.reasonless(in: text) {
                Issue.record("\(path): a LommeError without a reason: \(found)")
            }
            #expect(!Self.mentions(text, "unnamed"), "\(path) names a failure .unnamed")
        }
    }

    @Test func everyReasonIsThrownSomewhere() {
        let code = Self.sources().filter { $0.path != Self.reasonFile }.map(\.text).joined(separator: "\n")
        for reason in LommeError.Reason.allCases {
            #expect(Self.mentions(code, reason.rawValue), "no source names .\(reason.rawValue): remove it, or throw it where it happens")
        }
    }
}
