import Foundation
import LommeTestSupport
import Testing

/// ArgumentParser checks a command tree's definitions (unique option names, flags that can be
/// given, positional arguments in an order it can parse, coding keys) only in a debug build,
/// and `--experimental-dump-help` builds every command's arguments. The tests otherwise drive
/// the release binary when ./test.sh gives it (LOMME_TEST_BINARY), where these checks are
/// compiled out; here the debug build describes every command without a configuration failure.
@Suite("ArgumentParser's own checks of the command definitions")
struct ParserDefinitionTests {
    @Test func theDebugBuildsParserAcceptsEveryCommandsDefinition() throws {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.debugBinary), "no \(CLI.debugBinary); build it first (swift build)")
        let dump = CLI.run(["--experimental-dump-help"], executable: CLI.debugBinary)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stderr.isEmpty, "\(dump.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout)) as? [String: Any])
        let command = try #require(json["command"] as? [String: Any])
        #expect((command["subcommands"] as? [Any])?.isEmpty == false)
    }
}
