import Foundation
import LommeTestSupport
import Testing

/// Data that does not reach standard output is a failed command, through the built binary:
/// a full disk (`> /dev/full`), a closed stdout (`>&-`) and a reader gone before the tool
/// writes while SIGPIPE is ignored each end with exit 1 and one line on stderr, never a
/// silent 0. A sealed code that was not written is in the parent's record but not handed
/// out, so `child list` never calls the child current for it.
@Suite("A failed write to standard output fails the command")
struct StdoutWriteFailureTests {
    typealias Family = RecordTruthTests.Family

    /// The three ways a write to stdout fails.
    enum Unwritable: CaseIterable, CustomStringConvertible {
        case full, closed, goneReader

        var description: String {
            switch self {
            case .full: "> /dev/full"
            case .closed: ">&-"
            case .goneReader: "a pipe whose reader is gone, SIGPIPE ignored"
            }
        }

        /// Runs the binary with `arguments`, its stdout this way.
        func run(_ arguments: [String], environment: [String: String] = [:]) -> CLI.Result {
            switch self {
            case .full: CLI.run(arguments, environment: environment, shell: #"exec "$LV" "$@" > /dev/full"#)
            case .closed: CLI.run(arguments, environment: environment, shell: #"exec "$LV" "$@" >&-"#)
            // A FIFO opened for reading and writing, then for writing, then its reading end
            // closed: a pipe no one can read before the tool starts (however fast the tool
            // is), so every write fails with EPIPE.
            case .goneReader:
                CLI.run(arguments, environment: environment, shell: #"""
                    f=$(mktemp -u) && mkfifo -m 600 "$f" && exec 3<>"$f" 4>"$f" 3<&- && rm "$f" && trap '' PIPE && exec "$LV" "$@" >&4 4>&-
                    """#)
            }
        }
    }

    /// Exit 1, and the last line on stderr the one that says so (a summary may come first,
    /// on stderr where it always goes).
    static func expectFailedWrite(_ result: CLI.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(what): exit \(result.status), wanted 1: \(result.stderr)", sourceLocation: sourceLocation)
        let last = result.stderr.split(separator: "\n").last ?? ""
        #expect(last.hasPrefix("lomme-vault: cannot write to standard output"), "\(what): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.components(separatedBy: "standard output").count == 2, "said once: \(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: Unwritable.allCases)
    func aSealedCodeNotWrittenIsRecordedButNeverHandedOut(_ way: Unwritable) throws {
        let family = try Family()
        let env = ["LOMME_VAULT": family.parent.vault]
        let pw = ["--passphrase-file", family.parent.folder + "/pw"]
        let failed = way.run(["issue", "--to", "anna"] + pw, environment: env)
        Self.expectFailedWrite(failed, "issue --to anna \(way)")
        #expect(failed.reason == .standardOutputFailed && failed.reason == .standardOutputFailed, "\(failed.stderr)")
        let records = try family.records()
        #expect(records.count == 1 && records[0]["child"] as? String == "anna" && records[0]["handedOut"] is NSNull,
                "recorded, not handed out: \(records)")
        let anna = try #require(try family.children()["anna"])
        #expect(anna["current"] as? Bool == false && anna["notCurrent"] as? [String] == ["neverHandedOut"], "\(anna)")
        // A plain code that was not written fails too (there is no record of plain codes).
        let plain = way.run(["issue", "--from", family.box.write("config.json", Sample.configB), "--no-check"], environment: env)
        Self.expectFailedWrite(plain, "issue --from FILE \(way)")
        // The same code to a stdout that takes it: handed out, current.
        let written = family.parent.run(["issue", "--to", "anna"])
        #expect(written.status == 0 && !written.stdout.isEmpty, "\(written.stderr)")
        #expect(try family.children()["anna"]?["current"] as? Bool == true)
        #expect(try family.records().last?["handedOut"] is Int)
    }

    /// Every command whose stdout is its result: the data not written is exit 1, not 0.
    @Test(arguments: Unwritable.allCases)
    func dataThatDoesNotReachStdoutIsAFailedCommand(_ way: Unwritable) throws {
        let family = try Family()
        let box = family.box
        let vault = ["--vault", family.parent.vault]
        let parent = vault + ["--passphrase-file", family.parent.folder + "/pw"]
        // Anna's device holds a sealed code, for her receipt.
        #expect(family.parent.run(["issue", "--to", "anna", "--output", box.path + "/anna.png"]).status == 0)
        #expect(family.anna.run(["import", box.path + "/anna.png", "--yes", "--no-check"]).status == 0)
        let photo = CLI.qrImage(Sample.configA, in: box)
        let commands: [[String]] = [
            ["get", "clientSecret"] + parent, ["get", "--json"] + parent, ["get", "--env"] + parent,
            ["export", "--yes"] + parent, ["status"] + vault, ["status", "--json"] + vault, ["slots"] + vault,
            ["key", "--text"] + parent, ["key"] + parent, ["key", "--issuer"] + parent,
            ["child", "list"] + parent, ["child", "list", "--json"] + parent,
            ["receipt", "--text"] + family.anna.options,
            ["scan", photo], ["scan", "--raw", photo], ["--version"],
        ]
        for arguments in commands {
            // Each first to a stdout that takes it: the same command succeeds.
            let written = CLI.run(arguments)
            #expect(written.status == 0 && !written.stdout.isEmpty, "\(arguments): \(written.stderr)")
            Self.expectFailedWrite(way.run(arguments), "\(arguments.prefix(2)) \(way)")
        }
        // init: the vault is made, and the receiving key it prints not written is said.
        let made = way.run(["init", "--child", "--vault", box.path + "/new/vault", "--passphrase-file", family.parent.folder + "/pw"])
        Self.expectFailedWrite(made, "init \(way)")
        #expect(made.reason == .standardOutputFailed && made.stderr.contains("lomme-vault key"), "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: box.path + "/new/vault"))
    }

    /// `token`: the token fetched (and cached) but not written is exit 1.
    @Test func aTokenNotWrittenIsAFailedCommand() throws {
        let server = try OAuthServer.start(lifetime: 3600)
        defer { server.stop() }
        let box = try TokenFixture.vault(tokenURL: server.url("/token"))
        #expect(box.run(["token"]).status == 0)
        for way in Unwritable.allCases {
            Self.expectFailedWrite(way.run(["token", "--no-prompt"], environment: ["LOMME_VAULT": box.vault]), "token \(way)")
        }
    }
}
