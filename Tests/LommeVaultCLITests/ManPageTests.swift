import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// man/lomme-vault.1: generated from the built binary (man/generate), so it cannot go stale,
/// clean for man-db's checks, and saying what the code does.
@Suite("Man page")
struct ManPageTests {
    static let path = packageRoot + "/man/lomme-vault.1"
    static let page = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""

    /// The roff lines of section `name`, from its `.Sh` to the next one.
    static func section(_ name: String) -> [Substring] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: Substring(".Sh " + name)) else { return [] }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix(while: { !$0.hasPrefix(".Sh ") }))
    }

    /// Every command line the binary's parser knows (`init`, `enroll tpm2`, …), from its own
    /// description of itself rather than from the page's generator.
    static func commandPaths() throws -> [String] {
        let dump = CLI.run(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(dump.stdout)) as? [String: Any]
        func walk(_ command: [String: Any], _ prefix: [String]) -> [String] {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            return subcommands.flatMap { sub -> [String] in
                guard let name = sub["commandName"] as? String else { return [] }
                return [(prefix + [name]).joined(separator: " ")] + walk(sub, prefix + [name])
            }
        }
        return walk(json?["command"] as? [String: Any] ?? [:], [])
    }

    @Test("the committed page is what man/generate writes from the built binary")
    func pageIsGenerated() {
        let result = CLI.run(["--binary", CLI.binary, "--output", "-"], executable: packageRoot + "/man/generate")
        #expect(result.status == 0, "man/generate: \(result.stderr)")
        #expect(!Self.page.isEmpty)
        #expect(result.out == Self.page, "man/lomme-vault.1 is stale: run man/generate and commit it")
    }

    @Test("man --warnings, groff -ww and mandoc -Tlint find nothing to say")
    func noWarnings() {
        let check = #"man --warnings -l "$1" >/dev/null && groff -ww -z -mandoc "$1" && mandoc -Tlint -Wwarning "$1""#
        let result = CLI.run([Self.path], environment: ["LC_ALL": "C.UTF-8", "MANWIDTH": "80"], shell: check)
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }

    @Test("EXIT STATUS lists exactly 0 and the codes of LommeError.Code, with the same numbers")
    func exitStatusMatchesTheCode() {
        let listed = Self.section("EXIT STATUS").compactMap { line -> Int32? in
            line.hasPrefix(".It ") ? Int32(line.dropFirst(4)) : nil
        }
        let items = Self.section("EXIT STATUS").filter { $0.hasPrefix(".It ") }
        #expect(listed.count == items.count, "an EXIT STATUS item that is not a number: \(items)")
        #expect(listed == [0] + LommeError.Code.allCases.map(\.rawValue))
    }

    @Test("every subcommand the binary knows has its entry under COMMANDS")
    func everyCommandIsListed() throws {
        let commands = try Self.commandPaths()
        #expect(commands.contains("import") && commands.contains("token"))
        let entries = Set(Self.section("COMMANDS").filter { $0.hasPrefix(".Cm ") }.map { $0.dropFirst(4) })
        for command in commands {
            #expect(entries.contains(Substring(command)), "no entry for \(command)")
        }
    }

    @Test("ENVIRONMENT names every variable the settings read")
    func environmentIsListed() {
        let listed = Set(Self.section("ENVIRONMENT").filter { $0.hasPrefix(".It Ev ") }.map { String($0.dropFirst(7)) })
        #expect(!VaultSettings.environmentNames.isEmpty)
        for name in VaultSettings.environmentNames {
            #expect(listed.contains(name), "ENVIRONMENT does not describe \(name)")
        }
    }
}
