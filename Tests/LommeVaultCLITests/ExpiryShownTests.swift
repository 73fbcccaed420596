import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `scan` and `import` say when a sealed code expires, in one duration style: "expires in
/// 23h59m", "expired 2m ago — accepted within the 5-minute clock-skew allowance", and an
/// expired code names its expiry time and says to ask for a new one.
@Suite("A sealed code's expiry, shown")
struct ExpiryShownTests {
    @Test func scanAndImportShowTheExpiry() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "expiry shown passphrase\n")
        let env = ["LOMME_VAULT": box.vault]
        #expect(CLI.run(["init", "--child", "--passphrase-file", pw], environment: env).status == 0)
        let key = try ReceivingKey(text: CLI.run(["key", "--text", "--passphrase-file", pw], environment: env).out)
        let issuer = SigningKeyPair.generate()
        let now = Int64(time(nil))
        func code(issued: Int64, lifetime: Int64, _ name: String) throws -> String {
            let text = try Envelope.seal(sampleConfig(secret: name), to: key, issuer: issuer, now: issued, lifetime: lifetime)
            return CLI.qrImage(text, in: box, name: name)
        }
        let fresh = try code(issued: now, lifetime: 86400, "fresh")
        let scanned = CLI.run(["scan", fresh])
        #expect(scanned.status == 0 && scanned.out.contains("  expires in 23h59m (at ") || scanned.out.contains("  expires in 1d (at "), "\(scanned.out)")

        let late = try code(issued: now - 3600 - 120, lifetime: 3600, "late")
        let lateScan = CLI.run(["scan", late])
        #expect(lateScan.out.contains("expired 2m ago (at \(VaultContents.timestamp(Int(now - 120))))") || lateScan.out.contains("expired 2m1s ago"), "\(lateScan.out)")
        #expect(lateScan.out.contains("accepted within the 5-minute clock-skew allowance"))
        let imported = CLI.run(["import", late, "--yes", "--passphrase-file", pw], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("— accepted within the 5-minute clock-skew allowance"), "\(imported.stderr)")

        let old = try code(issued: now - 7200 - 3600, lifetime: 3600, "old")
        let before = readFile(box.vault)
        let refused = CLI.run(["import", old, "--yes", "--passphrase-file", pw], environment: env)
        #expect(refused.status == 7, "\(refused.stderr)")
        #expect(refused.stderr == "lomme-vault: this code expired 2h ago (at \(VaultContents.timestamp(Int(now - 7200)))); ask the parent for a new one\n"
                || refused.stderr.contains("this code expired 2h ago"), "\(refused.stderr)")
        #expect(readFile(box.vault) == before)
        let oldScan = CLI.run(["scan", old])
        #expect(oldScan.out.contains("expired 2h ago") && oldScan.out.contains("ask the parent for a new one"), "\(oldScan.out)")
    }
}
