import Foundation
import LommeCore
import Testing

/// `init` knows the machine's role, and the two fingerprints have one name each
/// ("receiving key", "issuer") in init, key, status and status --json.
@Suite("First run: roles and fingerprint names")
struct FirstRunTests {
    struct Made {
        var result: CLI.Result
        var receiving: String
        var issuer: String
    }

    /// Runs `init` with `flags` and reads the two fingerprints from the lines it prints.
    static func initialise(_ box: CLI.Sandbox, _ flags: [String]) throws -> Made {
        let pw = box.write("pw", "first run passphrase 9\n")
        let result = CLI.run(["init", "--vault", box.vault, "--passphrase-file", pw] + flags)
        try #require(result.status == 0, "init: \(result.stderr)")
        func print(after label: String) throws -> String {
            let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("  " + label + " ") }, "\(result.stderr)")
            return String(line.split(separator: " ")[label.split(separator: " ").count])
        }
        return Made(result: result, receiving: try print(after: "receiving key"), issuer: try print(after: "issuer"))
    }

    @Test func initSaysWhatEachFingerprintIsForAndKeyAndStatusUseTheSameNames() throws {
        let box = CLI.Sandbox()
        let made = try Self.initialise(box, ["--parent"])
        let key = try ReceivingKey(text: made.result.out)
        #expect(made.result.out == key.text + "\n", "--parent: the key's text and no QR code on stdout")
        #expect(made.receiving == key.fingerprint)
        #expect(made.result.stderr.contains("Created the vault \(box.vault)"))
        // A parent's receiving key takes the household from another parent's machine, not codes.
        #expect(made.result.stderr.contains("receiving key  \(made.receiving)  another parent's machine seals the household to it"))
        #expect(made.result.stderr.contains("issuer         \(made.issuer)  a child compares it when importing a code this machine issues"))
        let options = ["--vault", box.vault, "--passphrase-file", box.path + "/pw"]
        let issuer = CLI.run(["key", "--issuer"] + options)
        #expect(issuer.status == 0 && issuer.out == made.issuer + "\n", "\(issuer.stderr)")
        #expect(issuer.stderr.isEmpty, "to a pipe: the fingerprint only (the words go to a terminal)")
        #expect(CLI.run(["key", "--issuer", "--text"] + options).status == 64)
        try #require(CLI.run(["unlock"] + options).status == 0)
        defer { _ = CLI.run(["lock", "--vault", box.vault]) }
        let json = try JSON.parse(CLI.run(["status", "--json", "--vault", box.vault]).stdout)
        #expect(json["receivingKey"]?.stringValue == made.receiving && json["issuer"]?.stringValue == made.issuer)
        #expect(json["signingKey"] == nil && json["deviceKey"] == nil)
        let lines = CLI.run(["status", "--vault", box.vault]).out
        #expect(lines.contains("receiving key: \(made.receiving) (a parent seals codes to it"), "\(lines)")
        #expect(lines.contains("issuer:        \(made.issuer) (this machine's"), "\(lines)")
        #expect(lines.contains("pinned issuer: none yet"), "\(lines)")
        #expect(!lines.contains("signing key") && !lines.contains("device:"), "\(lines)")
    }

    @Test func initChildDrawsTheReceivingKeyAndBothFlagsAreRefused() throws {
        let box = CLI.Sandbox()
        let made = try Self.initialise(box, ["--child"])
        let lines = made.result.out.split(separator: "\n")
        #expect(lines.count > 20, "--child: a QR code before the key's text:\n\(made.result.out)")
        #expect(try ReceivingKey(text: String(lines.last ?? "")).fingerprint == made.receiving)
        #expect(made.result.stderr.contains("This machine's receiving key \(made.receiving). It is public"))
        let both = CLI.run(["init", "--child", "--parent", "--vault", CLI.Sandbox().vault])
        #expect(both.status == 64 && both.reason == .usage && both.stderr.hasPrefix("lomme-vault: give --child or --parent, not both"), "\(both.stderr)")
    }

    /// Neither flag, on a terminal: the question decides whether the QR code is drawn.
    @Test(arguments: ["y", "n"])
    func initAsksOnATerminalWhetherThisMachineReceivesCodes(answer: String) {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "first run passphrase 9\n")
        let tty = TmuxSession(box, command: "\"$LV\" init --vault '\(box.vault)' --passphrase-file '\(pw)'")
        tty.wait(for: "Will this machine receive codes (a child's)? [y/N]")
        tty.type(answer)
        tty.wait(for: "EXIT=")
        let screen = tty.screen
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(screen.contains("▀") == (answer == "y"), "QR drawn only for a child's machine:\n\(screen)")
        #expect(screen.contains("lvk1"))
    }
}
