import Foundation
import LommeTestSupport
import Testing

@Suite("CLI flows (through the built binary)")
struct CLIFlowTests {
    @Test func initImportUnlockGetExecLockPasswdExport() throws {
        let box = CLI.Sandbox()
        let pw1 = box.write("pw1", "first passphrase, long enough\n")
        let pw2 = box.write("pw2", "second passphrase, also long\n")
        let v = ["--vault", box.vault]

        var r = CLI.run(["init", "--passphrase-file", pw1] + v)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.mode(box.path + "/data") == 0o700)
        #expect(CLI.mode(box.vault) == 0o600)
        #expect(CLI.run(["init", "--passphrase-file", pw1] + v).status == 1)  // never over an existing vault

        r = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw1] + v, stdin: Sample.configA + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Will store:") && r.stderr.contains("client-A") && !r.stderr.contains(Sample.secretA))
        #expect(r.stdout.isEmpty)

        let photo = CLI.qrImage(Sample.configB, in: box)
        r = CLI.run(["import", photo, "--yes", "--no-check", "--passphrase-file", pw1] + v)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Replaces") && r.stderr.contains("client-A"))
        #expect(!r.stderr.contains(Sample.secretB) && !r.stderr.contains("02020212345"))
        #expect(FileManager.default.fileExists(atPath: box.vault + ".bak"))

        r = CLI.run(["unlock", "--timeout", "5m", "--passphrase-file", pw1] + v)
        #expect(r.status == 0, "\(r.stderr)")
        defer { _ = CLI.run(["lock"] + v) }

        let expected = ["clientId": "client-B", "clientSecret": Sample.secretB, "userId": "02020212345",
                        "accountNr": "12345678903", "tokenUrl": "https://bank.example/token", "secret": Sample.secretB]
        for (field, value) in expected {
            r = CLI.run(["get", field, "--no-prompt"] + v)
            #expect(r.status == 0, "\(field): \(r.stderr)")
            #expect(r.stdout == Array(value.utf8), "\(field) is exact, with no newline on a pipe")
            #expect(r.stderr.isEmpty)
        }
        #expect(CLI.run(["get", "clientId", "--newline", "--no-prompt"] + v).out == "client-B\n")
        #expect(CLI.run(["get", "clientId", "-n", "--no-prompt"] + v).out == "client-B")
        #expect(CLI.run(["get", "--json", "--no-prompt"] + v).out == Sample.jsonB)

        // --env, evaluated by sh.
        r = CLI.run(["--vault", box.vault], shell: #"eval "$("$LV" get --env --no-prompt "$@")" && printf '%s|%s|%s|%s' "$LOMME_CLIENT_ID" "$LOMME_CLIENT_SECRET" "$LOMME_USER_ID" "$LOMME_ACCOUNT_NR""#)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.out == "client-B|\(Sample.secretB)|02020212345|12345678903")

        // exec: the variables are set and the command's exit code is ours.
        r = CLI.run(["exec", "--no-prompt"] + v + ["--", "sh", "-c", #"printf '%s|%s|%s|%s' "$LOMME_CLIENT_ID" "$LOMME_CLIENT_SECRET" "$LOMME_USER_ID" "$LOMME_ACCOUNT_NR"; exit 42"#])
        #expect(r.status == 42)
        #expect(r.out == "client-B|\(Sample.secretB)|02020212345|12345678903")
        r = CLI.run(["exec", "--no-prompt"] + v + ["--", "no-such-command-lv"])
        #expect(r.status == 1 && r.reason == .commandNotRun)

        r = CLI.run(["status"] + v)
        #expect(r.status == 0 && r.out.contains("unlocked") && r.out.contains("tokenUrl") && !r.out.contains(Sample.secretB))

        r = CLI.run(["lock"] + v)
        #expect(r.status == 0 && r.stderr.contains("Locked"))
        #expect(CLI.run(["lock"] + v).stderr.contains("already locked"))
        r = CLI.run(["get", "clientId", "--no-prompt"] + v)
        #expect(r.status == 3 && r.stdout.isEmpty && r.reason == .vaultLocked)
        #expect(CLI.run(["get", "clientId"] + v).status == 3)  // no terminal: same

        r = CLI.run(["passwd", "--passphrase-file", pw1, "--new-passphrase-file", pw2] + v)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.run(["get", "clientId", "--passphrase-file", pw1] + v).status == 4)
        #expect(CLI.run(["get", "clientId", "--passphrase-file", pw2] + v).out == "client-B")

        r = CLI.run(["export", "--passphrase-file", pw2] + v)
        #expect(r.status == 0 && r.out == Sample.jsonB + "\n")

        // Nothing on disk holds the secrets or the national ids in clear.
        for (name, bytes) in CLI.allFileBytes(under: box.path + "/data") {
            for needle in [Sample.secretA, Sample.secretB, "01010112345", "02020212345", "client-B"] {
                #expect(!bytes.contains(Array(needle.utf8)), "\(name) holds \(needle)")
            }
        }
    }

    @Test func passphraseFromFileDescriptor() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "descriptor passphrase 123\n")
        #expect(CLI.run(["init", "--passphrase-file", pw, "--vault", box.vault]).status == 0)
        let r = CLI.run([box.vault], shell: #"exec 3<"$0.pw"; "$LV" status --vault "$1" >/dev/null && "$LV" get --json --passphrase-fd 3 --vault "$1""#.replacingOccurrences(of: "$0.pw", with: pw))
        #expect(r.status == 6, "an empty vault has no config: \(r.stderr)")
        #expect(r.reason == .noConfig)
    }

    @Test func everyExitCodeOfTheSpec() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "exit code passphrase\n")
        let wrong = box.write("wrong", "not the passphrase\n")
        let v = ["--vault", box.vault]
        // 6: no vault.
        var r = CLI.run(["get", "clientId", "--no-prompt"] + v)
        #expect(r.status == 6 && r.reason == .noVault)
        #expect(CLI.run(["status"] + v).status == 6)
        // 7: payload refused (check digit).
        r = CLI.run(["import", "--stdin", "--yes", "--passphrase-file", pw] + v, stdin: #"{"clientId":"c","clientSecret":"s","userId":"01010112345","accountNr":"12345678904"}"#)
        #expect(r.status == 7, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: box.vault))
        // 0: import creates the vault.
        r = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configA)
        #expect(r.status == 0, "\(r.stderr)")
        // 1: no terminal to confirm on, and no --yes.
        r = CLI.run(["import", "--stdin", "--no-check", "--passphrase-file", pw] + v, stdin: Sample.configB)
        #expect(r.status == 1 && r.reason == .noTerminalToConfirm && r.stderr.contains("--yes"))
        // 2: not an image / no QR code.
        let notImage = box.write("photo.png", "this is not an image")
        #expect(CLI.run(["import", notImage, "--yes", "--passphrase-file", pw] + v).status == 2)
        // 7: a QR code that is not a config.
        let other = box.write("other.txt", "https://example.org/not-a-config")
        _ = CLI.run([], shell: "qrencode -o '\(box.path)/other.png' < '\(other)'")
        r = CLI.run(["import", box.path + "/other.png", "--yes", "--passphrase-file", pw] + v)
        #expect(r.status == 7 && r.reason == .notAConfig, "\(r.stderr)")
        // 3: locked, no prompt.
        #expect(CLI.run(["get", "clientId", "--no-prompt"] + v).status == 3)
        // 4: wrong passphrase.
        r = CLI.run(["get", "clientId", "--passphrase-file", wrong] + v)
        #expect(r.status == 4 && r.reason == .passphraseWrong)
        // 6: no such field (one no field is near: "nope" is a near miss of name, said so).
        r = CLI.run(["get", "nosuchfield", "--passphrase-file", pw] + v)
        #expect(r.status == 6 && r.reason == .fieldUnknown)
        // 64: usage.
        #expect(CLI.run(["get"] + v).status == 64)
        #expect(CLI.run(["get", "clientId", "--json"] + v).status == 64)
        #expect(CLI.run(["unlock", "--timeout", "13h"] + v).status == 64)
        #expect(CLI.run(["get", "clientId", "--passphrase-fd", "3", "--passphrase-file", pw] + v).status == 64)
        // 5: damaged body.
        var bytes = readFile(box.vault)
        bytes[bytes.count - 20] ^= 0x40
        _ = FileManager.default.createFile(atPath: box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        r = CLI.run(["get", "clientId", "--passphrase-file", pw] + v)
        #expect(r.status == 5 && r.reason == .vaultDamaged)
        // 1: a vault others can read is refused, and the message says how to fix it.
        chmod(box.vault, 0o644)
        r = CLI.run(["get", "clientId", "--passphrase-file", pw] + v)
        #expect(r.status == 1 && r.reason == .vaultReadableByOthers && r.stderr.contains("chmod 600"))
        // Every message is one line.
        #expect(r.stderr.filter { $0 == "\n" }.count == 1)
    }

    /// A forged header asking for more memory than the cap is refused (5) without
    /// running the KDF: under a 1 GiB address-space limit, trying would fail differently.
    @Test func forgedHeaderIsRefusedWithoutAllocating() {
        let box = CLI.Sandbox()
        var bytes = fixture("vault")
        withUnsafeBytes(of: UInt64(2 << 30).littleEndian) { bytes.replaceSubrange(16..<24, with: $0) }
        _ = FileManager.default.createFile(atPath: box.vault.replacingOccurrences(of: "/data/vault", with: "/vault"), contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        let pw = box.write("pw", "correct horse battery staple")
        let r = CLI.run([box.path + "/vault", pw], shell: #"ulimit -v 1048576; "$LV" get clientId --vault "$1" --passphrase-file "$2""#)
        #expect(r.status == 5, "\(r.stderr)")
        #expect(r.reason == .kdfParametersOutOfRange)
    }

    @Test func theFixtureVaultOpensThroughTheBinary() {
        let box = CLI.Sandbox()
        _ = FileManager.default.createFile(atPath: box.path + "/vault", contents: Data(fixture("vault")), attributes: [.posixPermissions: 0o600])
        let r = CLI.run(["get", "clientSecret", "--vault", box.path + "/vault", "--passphrase-file", packageRoot + "/fixtures/vault-v1/passphrase.txt"])
        #expect(r.status == 0 && r.out == "s3cret ' value", "\(r.stderr)")
    }

    @Test func writesLeaveNoTempFilesAndKeepOneBackup() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "backup passphrase 12345\n")
        let v = ["--vault", box.vault, "--passphrase-file", pw]
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configA).status == 0)
        let first = readFile(box.vault)
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + v, stdin: Sample.configB).status == 0)
        #expect(readFile(box.vault + ".bak") == first)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: box.path + "/data"))?.sorted() ?? []
        #expect(names == ["vault", "vault.bak", "vault.lock"])
        #expect(CLI.mode(box.vault + ".bak") == 0o600)
        // The .bak is a whole vault, openable with the same passphrase.
        let r = CLI.run(["get", "clientId", "--vault", box.vault + ".bak", "--passphrase-file", pw])
        #expect(r.out == "client-A")
    }

    @Test func concurrentImportsNeverBreakTheVault() {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "concurrent passphrase 1\n")
        #expect(CLI.run(["import", "--stdin", "--yes", "--no-check", "--vault", box.vault, "--passphrase-file", pw], stdin: Sample.configA).status == 0)
        box.write("a.json", Sample.configA)
        box.write("b.json", Sample.configB)
        let r = CLI.run([box.vault, pw, box.path], shell: #"""
            for i in 1 2 3 4 5 6; do
              "$LV" import --stdin --yes --no-check --vault "$1" --passphrase-file "$2" < "$3/a.json" 2>/dev/null &
              "$LV" import --stdin --yes --no-check --vault "$1" --passphrase-file "$2" < "$3/b.json" 2>/dev/null &
              "$LV" get clientId --vault "$1" --passphrase-file "$2" >/dev/null || echo "reader failed $?"
            done
            wait
            """#)
        #expect(r.status == 0 && r.out.isEmpty, "\(r.out)")
        #expect(["client-A", "client-B"].contains(CLI.run(["get", "clientId", "--vault", box.vault, "--passphrase-file", pw]).out))
    }
}
