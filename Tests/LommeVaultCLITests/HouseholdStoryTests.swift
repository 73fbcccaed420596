import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// The parent's household through the built binary: three vaults (the parent, Anna, Ola)
/// and the Authlib token server. The parent stores the config and deletes the JSON, adds
/// both children (one by key text, one by a photo of the child's key code), issues to
/// each, renews the secret, re-issues to all; nothing but a sealed box ever holds the secret.
@Suite("The parent's household", .serialized)
struct HouseholdStoryTests {
    /// One machine: its vault, its passphrase file, and every output it produced.
    final class Machine {
        let box: CLI.Sandbox
        let name: String
        var outputs: [String] = []
        init(_ box: CLI.Sandbox, _ name: String) {
            self.box = box
            self.name = name
            _ = mkdir(box.path + "/" + name, 0o700)
            box.write(name + "/pw", "\(name) passphrase for the story\n")
        }
        var folder: String { box.path + "/" + name }
        var vault: String { folder + "/data/vault" }

        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil) -> CLI.Result {
            let result = CLI.run(arguments + ["--passphrase-file", folder + "/pw"], stdin: stdin, environment: ["LOMME_VAULT": vault])
            outputs.append(result.out + result.stderr)
            return result
        }
    }

    /// A photograph-like copy of a PNG: turned, blurred, JPEG.
    static func photo(_ png: String) -> String {
        let jpeg = png + ".jpg"
        let made = CLI.run([], shell: "convert '\(png)' -background white -rotate 5 -blur 0x1 -quality 80 '\(jpeg)'")
        #expect(made.status == 0, "convert: \(made.stderr)")
        return jpeg
    }

    /// What zbarimg reads in `image`.
    static func decoded(_ image: String) -> String {
        CLI.run([], shell: "zbarimg --quiet --raw '\(image)'").out
    }

    @Test func theWholeStory() throws {
        let server = try OAuthServer.start(lifetime: 3600)
        defer { server.stop() }
        let box = CLI.Sandbox()
        let parent = Machine(box, "parent"), anna = Machine(box, "anna"), ola = Machine(box, "ola")
        let oldSecret = TokenFixture.secret, newSecret = "renewed: \(UUID().uuidString) æ%2B"

        // The parent stores the bank's config once and deletes the file.
        #expect(parent.run(["init", "--parent"]).status == 0)
        let json = box.write("parent/config.json", TokenFixture.config(tokenURL: server.url("/token")))
        let stored = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", parent.folder + "/pw"],
                             stdin: try String(contentsOfFile: json, encoding: .utf8), environment: ["LOMME_VAULT": parent.vault])
        #expect(stored.status == 0, "\(stored.stderr)")
        try FileManager.default.removeItem(atPath: json)

        // The children's machines and their receiving keys.
        #expect(anna.run(["init", "--child"]).status == 0 && ola.run(["init", "--child"]).status == 0)
        let annaKey = anna.run(["key", "--text"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(annaKey.hasPrefix("lvk1"))
        #expect(ola.run(["key", "--output", ola.folder + "/key.png"]).status == 0)
        let olaKeyPhoto = Self.photo(ola.folder + "/key.png")

        let addAnna = parent.run(["child", "add", "anna", "--key", annaKey, "--account", "9710 41 33219", "--field", "name=Anna", "--yes"])
        #expect(addAnna.status == 0, "\(addAnna.stderr)")
        let addOla = parent.run(["child", "add", "ola", "--key-image", olaKeyPhoto, "--account", TokenFixture.accountNr, "--no-check", "--yes"])
        #expect(addOla.status == 0, "\(addOla.stderr)")
        let olaPrint = ola.run(["key", "--text"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(addOla.stderr.contains(try ReceivingKey(text: olaPrint).fingerprint), "the fingerprint to compare is shown")

        // A code to each; each child imports a photo of theirs.
        for (child, machine) in [("anna", anna), ("ola", ola)] {
            let issued = parent.run(["issue", "--to", child, "--output", box.path + "/\(child).png"])
            #expect(issued.status == 0, "\(issued.stderr)")
            // The fixture's national id is a test number: --no-check.
            let imported = machine.run(["import", Self.photo(box.path + "/\(child).png"), "--yes", "--no-check"])
            #expect(imported.status == 0, "\(child): \(imported.stderr)")
        }
        // Anna's device shows a receipt; the parent photographs it: Anna is confirmed, Ola not.
        let receipt = anna.run(["receipt", "--output", box.path + "/receipt.png"])
        #expect(receipt.status == 0, "\(receipt.stderr)")
        let confirmed = parent.run(["child", "confirm", Self.photo(box.path + "/receipt.png")])
        #expect(confirmed.status == 0 && confirmed.stderr.contains("Confirmed: anna's device holds the code issued"), "\(confirmed.stderr)")
        #expect(try Self.children(parent).map { $0["confirmed"] as? Bool } == [true, false])
        #expect(anna.run(["get", "accountNr"]).out == "97104133219")
        #expect(anna.run(["get", "name"]).out == "Anna")
        #expect(ola.run(["get", "accountNr"]).out == TokenFixture.accountNr)
        let crossed = ola.run(["import", Self.photo(box.path + "/anna.png"), "--yes", "--no-check"])
        #expect(crossed.status == 7 && crossed.reason == .codeForAnotherDevice, "\(crossed.stderr)")
        #expect(anna.run(["token"]).status == 0 && ola.run(["token", "--refresh"]).status == 0)

        // The parent orders a new secret at the bank, and stores it.
        _ = try server.curl(["-sS", "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@-", server.url("/renew-secret")],
                            stdin: try String(decoding: JSONSerialization.data(withJSONObject: ["client_id": TokenFixture.clientId, "client_secret": newSecret]), as: UTF8.self))
        #expect(try Self.bankAccepts(server, newSecret) && !(try Self.bankAccepts(server, oldSecret)), "the bank takes only the new secret")
        let set = parent.run(["set", "clientSecret"], stdin: newSecret + "\n")
        #expect(set.status == 0 && set.stderr.contains("Not current now: anna (secret renewed), ola (secret renewed)")
                && set.stderr.contains("lomme-vault issue --all"), "\(set.stderr)")
        let listed = try Self.children(parent)
        #expect(listed.map { $0["name"] as? String } == ["anna", "ola"])
        #expect(listed.allSatisfy { $0["current"] as? Bool == false && $0["lastIssued"] is String && $0["expires"] is String })
        let refused = ola.run(["token", "--refresh"])
        #expect(refused.status == 8 && refused.reason == .tokenClientRefused && refused.stderr.contains("ask for a new"), "\(refused.stderr)")

        // A fresh code for every child, written to a folder; both re-import; both tokens work.
        let beforeDryRun = readFile(parent.vault)
        let dry = parent.run(["issue", "--all", "--dry-run"])
        #expect(dry.status == 0 && dry.out == "anna: would get a new code (now: secret renewed)\nola: would get a new code (now: secret renewed)\n", "\(dry.out)")
        #expect(dry.stderr.contains("Without --dry-run, each of the 2 children gets a code sealed to their key."), "\(dry.stderr)")
        #expect(readFile(parent.vault) == beforeDryRun, "--dry-run wrote the vault")
        let all = parent.run(["issue", "--all", "--output-dir", box.path + "/codes"])
        #expect(all.status == 0, "\(all.stderr)")
        for (child, machine) in [("anna", anna), ("ola", ola)] {
            let png = box.path + "/codes/\(child).png"
            #expect(CLI.mode(png) == 0o644)
            #expect(machine.run(["import", Self.photo(png), "--yes", "--no-check"]).status == 0)
            let token = machine.run(["token", "--refresh"])
            #expect(token.status == 0 && token.out.count >= 20, "\(child): \(token.stderr)")
            // Compared outside #expect, so a failure does not print the secret.
            let holdsNewSecret = machine.run(["get", "clientSecret"]).out == newSecret
            #expect(holdsNewSecret, "\(child) does not hold the new secret")
        }
        #expect(try Self.children(parent).allSatisfy { $0["current"] as? Bool == true })
        #expect(parent.run(["unlock"]).status == 0)
        defer { _ = CLI.run(["lock"], environment: ["LOMME_VAULT": parent.vault]) }
        let status = CLI.run(["status"], environment: ["LOMME_VAULT": parent.vault])
        #expect(status.out.contains("children:") && status.out.contains("2 (all current)"), "\(status.out)")

        // Removing Ola: the honest message, and no more codes to Ola.
        let removed = parent.run(["child", "remove", "ola", "--yes"])
        #expect(removed.status == 0 && removed.stderr.contains("keeps working until the secret is renewed"), "\(removed.stderr)")
        #expect(removed.stderr.contains("lomme-vault set clientSecret") && removed.stderr.contains("lomme-vault issue --all"))
        let gone = parent.run(["issue", "--to", "ola", "--output", box.path + "/ola2.png"])
        #expect(gone.status == 6 && gone.reason == .noSuchChild && gone.stderr.contains("the children are anna"), "\(gone.stderr)")

        // The household as docs/FORMAT.md writes it, read by code no one here wrote the other
        // side of: the vault opened with PyNaCl (Tests/scripts/vault-open.py), parsed by
        // Python's json, and each record's credential recomputed with hashlib's BLAKE2b.
        let check = """
            import hashlib, json, struct, subprocess, sys
            plain = subprocess.run([sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]], capture_output=True, check=True).stdout
            vault = json.loads(plain)
            h, config = vault["household"], vault["config"]
            key = bytes.fromhex(h["credentialKey"])
            def credential(cid, secret):
                data = b"lomme-vault credential v1\\0"
                for part in (cid, secret):
                    raw = part.encode()
                    data += struct.pack(">I", len(raw)) + raw
                return hashlib.blake2b(data, digest_size=16, key=key).hexdigest()
            now = credential(config["clientId"], config["clientSecret"])
            newest = {}
            for record in h["issued"]:
                newest[record["recipient"]] = record
            assert [c["name"] for c in h["children"]] == ["anna"], h["children"]  # ola was removed; her records stay
            assert h["children"][0]["fields"] == {"name": "Anna"} and h["children"][0]["accountNr"] == "97104133219"
            assert len(h["issued"]) == 4 and [r["child"] for r in h["issued"]] == ["anna", "ola", "anna", "ola"]
            assert all(r["credential"] == now for r in h["issued"][2:]), "the re-issued codes carry the new secret"
            assert all(r["credential"] != now for r in h["issued"][:2]), "the first codes carried the old one"
            assert config["clientSecret"] not in json.dumps(h)
            assert all(isinstance(r["handedOut"], int) and len(r["carried"]) == 80 for r in h["issued"]), "each handed out, with what it carried"
            assert "confirmed" in h["issued"][0] and all("confirmed" not in r for r in h["issued"][1:]), "anna's first code was confirmed"
            print("ok", len(h["issued"]))
            """
        let script = box.write("check.py", check)
        let verified = CLI.run([], shell: "/usr/bin/python3 '\(script)' '\(packageRoot)/Tests/scripts/vault-open.py' '\(parent.vault)' '\(parent.folder)/pw'")
        #expect(verified.status == 0 && verified.out == "ok 4\n", "\(verified.out) \(verified.stderr.suffix(600))")

        // The secret is in no file of the parent's folder, no output, and no code's text.
        for secret in [oldSecret, newSecret] {
            let needle = Array(secret.utf8)
            for (path, bytes) in CLI.allFileBytes(under: parent.folder) + CLI.allFileBytes(under: box.path + "/codes") {
                #expect(!bytes.contains(needle), "\(path) holds the secret")
            }
            for machine in [parent] { #expect(!machine.outputs.contains { $0.contains(secret) }, "the parent's output shows the secret") }
            for image in ["anna.png", "ola.png", "codes/anna.png", "codes/ola.png"] {
                let text = Self.decoded(box.path + "/" + image)
                #expect(text.hasPrefix(Envelope.textPrefix), "\(image) decodes to a sealed code: \(text.prefix(8))")
                #expect(!text.contains(secret), "\(image)'s text holds the secret")
            }
        }
    }

    /// The children as `child list --json` gives them.
    static func children(_ parent: Machine) throws -> [[String: Any]] {
        let listed = parent.run(["child", "list", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout)) as? [[String: Any]])
    }

    /// Whether the bank gives a token for the client with `secret` (RFC 6749 Basic, each
    /// part form-encoded; the header on curl's standard input, not its argv).
    static func bankAccepts(_ server: OAuthServer, _ secret: String) throws -> Bool {
        func encode(_ text: String) -> String {
            let kept = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
            return text.addingPercentEncoding(withAllowedCharacters: kept)!
        }
        let basic = Data((encode(TokenFixture.clientId) + ":" + encode(secret)).utf8).base64EncodedString()
        let code = try server.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "@-", "-d", "grant_type=client_credentials", server.url("/token")],
                                   stdin: "Authorization: Basic \(basic)\n")
        return String(decoding: code, as: UTF8.self) == "200"
    }
}
