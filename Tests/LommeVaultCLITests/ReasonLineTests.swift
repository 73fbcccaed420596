import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `LOMME_VAULT_REASON=1` names a failure for scripts and tests: after the one-line message,
/// `lomme-vault: reason: NAME` (docs/commands.md, "Exit codes"). Without the variable stderr
/// is as a user sees it; after a success there is no such line, with it or without.
/// These runs read stderr raw (`2>&1` in a shell), since `CLI.run` takes the line out.
@Suite("The reason line")
struct ReasonLineTests {
    static let prefix = "lomme-vault: reason: "

    /// stderr (and stdout) of `command` run by a shell with `LOMME_VAULT_REASON` as given.
    static func raw(_ command: String, reason setting: String?, in box: CLI.Sandbox) -> (status: Int32, lines: [String]) {
        // `env -u` drops the variable CLI.run sets for every run.
        let variable = setting.map { "env LOMME_VAULT_REASON=\($0)" } ?? "env -u LOMME_VAULT_REASON"
        let result = CLI.run([], environment: ["LOMME_VAULT": box.vault], shell: "\(variable) \"$LV\" \(command) 2>&1")
        return (result.status, result.out.split(separator: "\n").map(String.init))
    }

    @Test func aFailureIsNamedOnALineOfItsOwnOnlyWhenAsked() {
        let box = CLI.Sandbox()
        let named = Self.raw("get clientId --no-prompt", reason: "1", in: box)
        #expect(named.status == 6)
        #expect(named.lines.count == 2 && named.lines[0].hasPrefix("lomme-vault: no vault at "), "\(named.lines)")
        #expect(named.lines.last == Self.prefix + "noVault", "\(named.lines)")
        for setting in [nil, "", "0"] {
            let plain = Self.raw("get clientId --no-prompt", reason: setting, in: box)
            #expect(plain.status == 6 && plain.lines.count == 1, "\(String(describing: setting)): \(plain.lines)")
            #expect(!plain.lines.contains { $0.hasPrefix(Self.prefix) })
        }
        // The parser's own refusals (exit 64) are named too, and so is each command's.
        let usage = Self.raw("import --stdin --camera", reason: "1", in: box)
        #expect(usage.status == 64 && usage.lines.last == Self.prefix + "usage", "\(usage.lines)")
        let unknown = Self.raw("imprt", reason: "1", in: box)
        #expect(unknown.status == 64 && unknown.lines.last == Self.prefix + "commandUnknown", "\(unknown.lines)")
        let duration = Self.raw("scan --camera --timeout 5x", reason: "1", in: box)
        #expect(duration.status == 64 && duration.lines.last == Self.prefix + "durationInvalid", "\(duration.lines)")
    }

    @Test func aSuccessIsNeverNamed() {
        let box = CLI.Sandbox()
        let photo = CLI.qrImage(Sample.configA, in: box)
        for command in ["--version", "scan '\(photo)'", "scan --raw '\(photo)'", "help get"] {
            for setting in [nil, "1"] {
                let run = Self.raw(command, reason: setting, in: box)
                #expect(run.status == 0 && !run.lines.contains { $0.hasPrefix(Self.prefix) }, "\(command): \(run.lines)")
            }
        }
    }

    @Test func theTestsSeeTheReasonAndTheStderrAUserSees() {
        let box = CLI.Sandbox()
        let missing = CLI.run(["get", "clientId", "--no-prompt"], environment: ["LOMME_VAULT": box.vault])
        #expect(missing.status == 6 && missing.reason == .noVault)
        #expect(missing.stderr.split(separator: "\n").count == 1 && !missing.stderr.contains(Self.prefix), "\(missing.stderr)")
        let status = CLI.run(["status"], environment: ["LOMME_VAULT": box.vault])
        #expect(status.status == 6 && status.reason == .noVault, "\(status.stderr)")
        #expect(CLI.run(["--version"]).reason == nil)
        // A photo that is not one: each photo's message, the first failure's reason once.
        let text = box.write("notes.txt", "not a picture")
        let scan = CLI.run(["scan", "--raw", text, text])
        #expect(scan.status == 2 && scan.reason == .imageNotAPicture, "\(scan.stderr)")
        #expect(scan.stderr.split(separator: "\n").count == 2, "\(scan.stderr)")
    }
}
