import Foundation
import Glibc
import LommeCore
import LommeTestSupport
import Testing

/// Sealed provisioning through the built binary, as a child and a parent use it, and the
/// envelope test vector made independently by fixtures/envelope-v2/make.py.
@Suite("Sealed provisioning")
struct SealedFlowTests {
    /// A device with a vault of its own: its options and public key.
    struct Device {
        let box: CLI.Sandbox
        let name: String
        var options: [String] { ["--vault", box.path + "/" + name + "/vault", "--passphrase-file", box.path + "/" + name + ".pw"] }
        var key: ReceivingKey

        init(_ name: String, in box: CLI.Sandbox) throws {
            self.box = box
            self.name = name
            box.write(name + ".pw", "\(name) passphrase 2026\n")
            let made = CLI.run(["init", "--vault", box.path + "/" + name + "/vault", "--passphrase-file", box.path + "/" + name + ".pw"])
            try #require(made.status == 0, "init: \(made.stderr)")
            key = try ReceivingKey(text: String(made.out.split(separator: "\n").last ?? ""))
            let shown = CLI.run(["key", "--text"] + options)
            #expect(shown.out == key.text + "\n", "key --text prints the key init printed")
        }

        func run(_ arguments: [String], stdin: String? = nil) -> CLI.Result {
            CLI.run(arguments + options, stdin: stdin)
        }
    }

    static let config = sampleConfig(secret: "sealed:%+ /æ secret", extras: [JSON.Member("name", .string("Blåbær"))])

    @Test func testVectorOpensAndItsTamperedCopyDoesNot() throws {
        let directory = packageRoot + "/fixtures/envelope-v2/"
        let keys = Dictionary(uniqueKeysWithValues: String(decoding: readFile(directory + "keys.txt"), as: UTF8.self)
            .split(separator: "\n").map { line in
                let parts = line.split(separator: " ")
                return (String(parts[0]), String(parts[1]))
            })
        let child = ReceivingKeyPair.generate(seed: Sodium.unhex(keys["child-box-seed"]!)!)
        let parent = IssuerKeyPair.generate(seed: Sodium.unhex(keys["parent-sign-seed"]!)!)
        let text = String(decoding: readFile(directory + "envelope.txt"), as: UTF8.self).trimmingASCIIWhitespace()
        let envelope = try Envelope(text: text)
        #expect(envelope.issued == Int64(keys["issued"]!)!)
        #expect(envelope.expires == Int64(keys["expires"]!)!)
        #expect(Sodium.hex(envelope.id) == keys["id"])
        let expected = try Config(jsonBytes: readFile(directory + "config.json"), checksums: false)
        let content = try envelope.open(with: child, now: envelope.issued + 60, checksums: false)
        #expect(content.issuerKey == parent.publicKey)
        #expect(content.config == expected)
        let tampered = String(decoding: readFile(directory + "tampered.txt"), as: UTF8.self).trimmingASCIIWhitespace()
        let error = #expect(throws: LommeError.self) {
            try Envelope(text: tampered).open(with: child, now: envelope.issued + 60, checksums: false)
        }
        #expect(error?.code == .refused && error?.reason == .codeTampered, "\(String(describing: error))")
    }

    @Test func aVersionOneCodeIsRefusedAsOlder() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let old = String(decoding: readFile(packageRoot + "/fixtures/envelope-v1/envelope.txt"), as: UTF8.self)
        let result = child.run(["import", "--stdin", "--yes"], stdin: old)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.reason == .codeOlderFormat && result.reason == .codeOlderFormat && result.stderr.contains("issue a new code"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }

    @Test func parentIssuesToAPhotoOfTheChildsKeyAndTheChildImportsAPhotoOfTheCode() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let parent = try Device("parent", in: box)
        let keyPNG = box.path + "/childkey.png"
        #expect(child.run(["key", "--output", keyPNG]).status == 0)
        let json = box.write("config.json", PlainPayload.encode(Self.config))
        let sealed = box.path + "/sealed.png"
        let issued = parent.run(["issue", "--from", json, "--to-image", keyPNG, "--level", "M", "--output", sealed])
        try #require(issued.status == 0, "issue: \(issued.stderr)")
        #expect(issued.stderr.contains("Sealed to receiving key \(child.key.fingerprint)"))
        let issuerLine = try #require(issued.stderr.split(separator: "\n").first { $0.hasPrefix("Issuer fingerprint: ") })
        let issuerPrint = String(issuerLine.dropFirst("Issuer fingerprint: ".count))
        #expect(!issued.stderr.contains("in clear"))

        // What anyone who sees the code learns: none of the config's fields.
        let seen = CLI.run([], shell: "zbarimg -q --raw '\(sealed)'")
        #expect(seen.out.hasPrefix("LV3:"))
        for field in [Self.config.clientId, Self.config.clientSecret, Self.config.userId, Self.config.accountNr, "Bl"] {
            #expect(!seen.out.contains(field))
        }

        // The child photographs it: a tilted, blurred JPEG.
        let photo = box.path + "/photo.jpg"
        #expect(CLI.run([], shell: "convert '\(sealed)' -background white -rotate 6 -blur 0x1.2 -quality 80 '\(photo)'").status == 0)
        let imported = child.run(["import", photo, "--yes"])
        try #require(imported.status == 0, "import: \(imported.stderr)")
        #expect(imported.stderr.contains("first sealed code on this device"))
        #expect(imported.stderr.contains("Issuer \(issuerPrint)"), "import shows the fingerprint issue printed")
        #expect(!imported.stderr.contains(Self.config.clientSecret))
        #expect(child.run(["get", "clientSecret"]).out == Self.config.clientSecret)
        #expect(child.run(["get", "name"]).out == "Blåbær")

        // The same code again changes nothing.
        let before = readFile(box.path + "/child/vault")
        let again = child.run(["import", sealed, "--yes"])
        #expect(again.status == 0 && again.stderr.contains("imported already"), "\(again.stderr)")
        #expect(readFile(box.path + "/child/vault") == before)

        // The parent's own vault shows the fingerprint the child pinned.
        #expect(parent.run(["unlock"]).status == 0)
        defer { _ = parent.run(["lock"]) }
        let status = CLI.run(["status", "--json", "--vault", box.path + "/parent/vault"])
        let signing = try JSON.parse(status.stdout)["issuer"]?.stringValue
        #expect(imported.stderr.contains(try #require(signing)))
        #expect(signing == issuerPrint)
        #expect(child.run(["unlock"]).status == 0)
        defer { _ = child.run(["lock"]) }
        let childStatus = CLI.run(["status", "--vault", box.path + "/child/vault"])
        #expect(childStatus.out.contains("source:        sealed by \(issuerPrint)"), "\(childStatus.out)")
        let childJSON = try JSON.parse(CLI.run(["status", "--json", "--vault", box.path + "/child/vault"]).stdout)
        #expect(childJSON["source"]?["issuer"]?.stringValue == issuerPrint)
    }

    @Test func everyRefusalHasExitSevenAndSaysWhich() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let now = Int64(time(nil))
        let issuer = IssuerKeyPair.generate()
        func sealed(_ issuedAt: Int64, lifetime: Int64 = 3600, to key: ReceivingKey? = nil, by: IssuerKeyPair? = nil) -> String {
            try! Envelope.seal(Self.config, to: key ?? child.key, issuer: by ?? issuer, now: issuedAt, lifetime: lifetime)
        }
        func refused(_ text: String, _ words: String, extra: [String] = []) {
            let result = child.run(["import", "--stdin", "--yes"] + extra, stdin: text)
            #expect(result.status == 7, "\(words): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        let first = sealed(now)
        var bytes = Base45.decode(String(first.dropFirst(4)))!
        bytes[20] ^= 0x40
        refused("LV3:" + Base45.encode(bytes), "tampered")
        bytes[20] ^= 0x40
        bytes[120] ^= 0x40
        refused("LV3:" + Base45.encode(bytes), "cannot be opened")
        refused(sealed(now - 3 * 86400, lifetime: 86400), "expired")
        refused(sealed(now, to: ReceivingKeyPair.generate().publicKey), "another device")
        var newer = Base45.decode(String(first.dropFirst(4)))!
        newer[0] = 9
        refused("LV3:" + Base45.encode(newer), "newer lomme-vault")
        refused("LV3:not base45!", "damaged")

        // First use pins the issuer; an earlier code from it is a rollback.
        let stored = child.run(["import", "--stdin", "--yes"], stdin: first)
        try #require(stored.status == 0, "\(stored.stderr)")
        refused(sealed(now - 600), "roll back")
        let replay = child.run(["import", "--stdin", "--yes"], stdin: first)
        #expect(replay.status == 0 && replay.stderr.contains("imported already"))

        // Another issuer: refused, both fingerprints shown, unless trusted.
        let stranger = IssuerKeyPair.generate()
        let other = sealed(now + 1, by: stranger)
        refused(other, stranger.fingerprint)
        refused(other, issuer.fingerprint)
        let trusted = child.run(["import", "--stdin", "--yes", "--trust-new-issuer"], stdin: other)
        #expect(trusted.status == 0 && trusted.stderr.contains("REPLACES"), "\(trusted.stderr)")
        #expect(child.run(["unlock"]).status == 0)
        defer { _ = child.run(["lock"]) }
        let status = CLI.run(["status", "--vault", box.path + "/child/vault"])
        #expect(status.out.contains("pinned issuer: \(stranger.fingerprint)"), "\(status.out)")
    }

    @Test func aVaultFromBeforeTheSourceWasRecordedSaysSoAndAPlainImportRecordsIt() throws {
        // Every copy of the vector is one session in the keyring: taken in turn (`exclusively`).
        try exclusively(versionOneSession) { () throws in
            let box = CLI.Sandbox()
            let vault = box.path + "/vault"
            _ = FileManager.default.createFile(atPath: vault, contents: Data(readFile(packageRoot + "/fixtures/vault-v1/vault")), attributes: [.posixPermissions: 0o600])
            let options = ["--vault", vault, "--passphrase-file", packageRoot + "/fixtures/vault-v1/passphrase.txt"]
            #expect(CLI.run(["unlock"] + options).status == 0)
            defer { _ = CLI.run(["lock"] + options) }
            #expect(CLI.run(["status", "--vault", vault]).out.contains("source:        not recorded (stored by an older lomme-vault)"))
            #expect(try JSON.parse(CLI.run(["status", "--json", "--vault", vault]).stdout)["source"] == .null)
            #expect(CLI.run(["import", "--stdin", "--yes", "--no-check"] + options, stdin: Sample.configB).status == 0)
            #expect(CLI.run(["status", "--vault", vault]).out.contains("source:        a plain code (unauthenticated"))
            #expect(try JSON.parse(CLI.run(["status", "--json", "--vault", vault]).stdout)["source"]?["kind"]?.stringValue == "plain")
        }
    }

    @Test func sealingNeedsTheParentsOwnVault() {
        let box = CLI.Sandbox()
        let json = box.write("config.json", PlainPayload.encode(Self.config))
        let key = ReceivingKeyPair.generate().publicKey.text
        let result = CLI.run(["issue", "--from", json, "--to", key, "--vault", box.path + "/none/vault", "--no-prompt"])
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.reason == .noVault && result.stderr.contains("lomme-vault init"))
        var typo = Array(key)
        typo[12] = typo[12] == "q" ? "p" : "q"
        let mistyped = CLI.run(["issue", "--from", json, "--to", String(typo), "--vault", box.path + "/none/vault"])
        #expect(mistyped.status == 64 && mistyped.reason == .receivingKeyTypo, "\(mistyped.stderr)")
    }
}
