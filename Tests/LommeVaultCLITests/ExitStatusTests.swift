import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// Every row of the man page's EXIT STATUS, and every case it names, through the built
/// binary: the code, one line on stderr, and (for a refusal) the vault unchanged.
@Suite("Exit status, row by row")
struct ExitStatusTests {
    static let codes: [Int32] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 64]

    @Test func everyCodeIsInTheManPageAndTheHelp() throws {
        let page = try String(contentsOfFile: packageRoot + "/man/lomme-vault.1", encoding: .utf8)
        let section = try #require(page.range(of: ".Sh EXIT STATUS")).upperBound
        let end = try #require(page.range(of: ".Sh EXAMPLES", range: section..<page.endIndex)).lowerBound
        let rows = page[section..<end].split(separator: "\n").filter { $0.hasPrefix(".It ") }.map { String($0.dropFirst(4)) }
        #expect(rows == Self.codes.map(String.init), "\(rows)")
        let help = CLI.run(["--help"]).out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        for (code, words) in [(0, "unchanged"), (1, "a TPM in lockout"), (4, "wrong passphrase, TPM PIN or key file"), (6, "no vault (`lock` and `status` too)"), (8, "token")] {
            #expect(help.contains("\(code) ") && help.contains(words), "--help lacks \(code): \(words)")
        }
        for (command, words) in [("export", "the question answered no"), ("lock", "Exit 6: no vault"), ("unlock", "wrong TPM PIN"), ("unlock", "a TPM in lockout"), ("set", "Exit 6")] {
            let text = CLI.run([command, "--help"]).out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(text.contains(words), "\(command) --help lacks \(words)")
        }
    }

    /// A vault holding a config, unlocked by nothing (each case gives the passphrase file).
    struct Vault {
        let box = CLI.Sandbox()
        let pw: String
        var env: [String: String] { ["LOMME_VAULT": box.vault] }
        init() {
            pw = box.write("pw", "exit status passphrase\n")
            #expect(CLI.run(["import", "--stdin", "--yes", "--passphrase-file", pw], stdin: PlainPayload.encode(sampleConfig()), environment: env).status == 0)
        }
        func run(_ arguments: [String], stdin: String? = nil, tpm: String? = nil) -> CLI.Result {
            var environment = env
            if let tpm { environment["LOMME_VAULT_TPM"] = tpm }
            return CLI.run(arguments, stdin: stdin, environment: environment)
        }
    }

    static func expect(_ result: CLI.Result, _ code: Int32, _ words: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == code, "\(what): exit \(result.status), \(result.stderr)", sourceLocation: sourceLocation)
        if !words.isEmpty { #expect(result.stderr.contains(words), "\(what): \(result.stderr)", sourceLocation: sourceLocation) }
        if code != 0 {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("lomme-vault: "), "\(what): not one line: \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func row0UnchangedIsSuccessAndWritesNothing() {
        let v = Vault()
        let before = readFile(v.box.vault)
        Self.expect(v.run(["import", "--stdin", "--yes", "--passphrase-file", v.pw], stdin: PlainPayload.encode(sampleConfig())), 0,
                    "Unchanged: the vault already holds this config; nothing was written.", "import of the stored config")
        Self.expect(v.run(["set", "clientId", "--passphrase-file", v.pw], stdin: sampleConfig().clientId + "\n"), 0, "clientId is unchanged", "set to the stored value")
        #expect(readFile(v.box.vault) == before)
    }

    @Test func row1DeclinedTakenAndTPMRefusals() throws {
        let v = Vault()
        // export, answered no on a terminal.
        let session = TmuxSession(v.box, command: "LOMME_VAULT='\(v.box.vault)' \"$LV\" export --passphrase-file '\(v.pw)'")
        session.wait(for: "This shows the client secret on the screen. Continue? [y/N]")
        session.type("n")
        session.wait(for: "EXIT=")
        #expect(session.screen.contains("nothing exported (answered no)") && session.screen.contains("EXIT=1"), "\(session.screen)")
        #expect(!session.screen.contains(sampleConfig().clientSecret))
        // A child's name taken.
        let key = ReceivingKeyPair.generate().publicKey.text
        #expect(v.run(["child", "add", "anna", "--key", key, "--account", "97104133219", "--yes", "--passphrase-file", v.pw]).status == 0)
        Self.expect(v.run(["child", "add", "anna", "--key", ReceivingKeyPair.generate().publicKey.text, "--account", "97104133219", "--yes", "--passphrase-file", v.pw]),
                    1, "there is already a child called anna", "a name taken")
        // A TPM with an empty lockout authorization, on enroll tpm2 --pin.
        let open = try SoftwareTPM(lockoutAuthorization: nil)
        defer { open.stop() }
        let pin = v.box.write("pin", "135790\n")
        Self.expect(v.run(["enroll", "tpm2", "--pin-file", pin, "--passphrase-file", v.pw], tpm: open.tcti), 1,
                    "lockout authorization is empty", "enroll on a TPM anyone can reset")
        // A TPM in lockout (row 4 on the way: wrong PINs).
        let tpm = try SoftwareTPM()
        defer { tpm.stop() }
        #expect(v.run(["enroll", "tpm2", "--pin-file", pin, "--passphrase-file", v.pw], tpm: tpm.tcti).status == 0)
        let wrong = v.box.write("wrong", "000000\n")
        Self.expect(v.run(["unlock", "--with", "tpm2", "--pin-file", wrong], tpm: tpm.tcti), 4, "wrong PIN; 2 tries left", "a wrong TPM PIN")
        _ = v.run(["unlock", "--with", "tpm2", "--pin-file", wrong], tpm: tpm.tcti)
        _ = v.run(["unlock", "--with", "tpm2", "--pin-file", wrong], tpm: tpm.tcti)
        let locked = v.run(["unlock", "--with", "tpm2", "--pin-file", pin], tpm: tpm.tcti)
        Self.expect(locked, 1, "the TPM is locked out", "a TPM in lockout")
        // Durations in the one style: "16m40s", never "1000 s".
        #expect(locked.stderr.firstMatch(of: /forgives one every (\d+[dhm])*(\d+s)?\)/) != nil && !locked.stderr.contains(" s)"), "\(locked.stderr)")
    }

    @Test func rows2To8() throws {
        let v = Vault()
        let blank = v.box.path + "/blank.png"
        #expect(CLI.run([], shell: "convert -size 120x120 xc:white '\(blank)'").status == 0)
        Self.expect(CLI.run(["scan", blank]), 2, "no QR code", "row 2: a picture without a code")
        Self.expect(v.run(["get", "clientId", "--no-prompt"]), 3, "the vault is locked", "row 3: locked, no prompt")
        let wrong = v.box.write("wrong-pw", "not the passphrase at all\n")
        Self.expect(v.run(["get", "clientId", "--passphrase-file", wrong]), 4, "wrong passphrase", "row 4: a wrong passphrase")
        let key = v.box.path + "/vault.key"
        #expect(v.run(["enroll", "keyfile", key, "--passphrase-file", v.pw]).status == 0)
        let other = v.box.path + "/other.key"
        let fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0o400)
        _ = [UInt8](repeating: 7, count: 32).withUnsafeBytes { write(fd, $0.baseAddress, 32) }
        close(fd)
        Self.expect(v.run(["unlock", "--with", "keyfile", other]), 4, "opens no key-file slot", "row 4: a key file that does not open it")
        Self.expect(v.run(["get", "nosuchfield", "--passphrase-file", v.pw]), 6, "no field nosuchfield", "row 6: no such field")
        Self.expect(CLI.run(["lock", "--vault", v.box.path + "/none/vault"]), 6, "no vault at", "row 6: lock on a missing vault")
        let status = CLI.run(["status", "--vault", v.box.path + "/none/vault"])
        #expect(status.status == 6 && status.out.contains("no vault (create one with"), "row 6: status on a missing vault: \(status.out)")
        Self.expect(v.run(["child", "remove", "kari", "--passphrase-file", v.pw]), 6, "there is no child called kari", "row 6: no such child")
        Self.expect(v.run(["import", "--stdin", "--yes", "--passphrase-file", v.pw], stdin: "hello"), 7, "not valid JSON", "row 7: not a config")
        Self.expect(v.run(["set", "accountNr", "--passphrase-file", v.pw], stdin: "12345678901\n"), 7, "accountNr fails", "row 7: a value failing its rule")
        let port = try TokenFixture.closedPort()
        Self.expect(v.run(["token", "--token-url", "http://127.0.0.1:\(port)/token", "--passphrase-file", v.pw]), 8, "cannot reach the token endpoint", "row 8: an unreachable endpoint")
        Self.expect(v.run(["status", "--josn"]), 64, "did you mean --json?", "row 64: a misspelt option")
        // Row 5 last: a damaged vault.
        var bytes = readFile(v.box.vault)
        bytes[bytes.count - 20] ^= 0x40
        #expect(FileManager.default.createFile(atPath: v.box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
        Self.expect(v.run(["get", "clientId", "--passphrase-file", v.pw]), 5, "damaged or was tampered with", "row 5: a damaged vault")
    }
}
