import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `scan` and `import` say when a sealed code expires, in one duration style: "expires in
/// 23h59m", "expired 2m ago — accepted within the 5-minute clock-skew allowance", and an
/// expired code names its expiry time and says to ask for a new one.
@Suite("A sealed code's expiry, shown")
struct ExpiryShownTests {
    /// A duration as the tool writes it, written again here: its two largest units, the
    /// smaller truncated ("23h59m", "2m1s", "2h").
    static func rough(_ seconds: Int64) -> String {
        let units: [(String, Int64)] = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]
        guard let first = units.firstIndex(where: { seconds >= $0.1 }) else { return "0s" }
        var text = "\(seconds / units[first].1)\(units[first].0)"
        if first + 1 < units.count, case let rest = seconds % units[first].1 / units[first + 1].1, rest > 0 {
            text += "\(rest)\(units[first + 1].0)"
        }
        return text
    }

    @Test func theDurationsReadAsTheToolWritesThem() {
        #expect([86400, 86399, 120, 121, 7200, 7259].map(Self.rough) == ["1d", "23h59m", "2m", "2m1s", "2h", "2h"])
        #expect([86400, 86399, 120, 121, 7200, 7259].map { DurationText.rough(UInt64($0)) } == ["1d", "23h59m", "2m", "2m1s", "2h", "2h"])
    }

    /// Runs a command and gives, with its result, the seconds its clock may have read: a loaded
    /// machine may take seconds, and the expected text is then any of those seconds' texts.
    static func timed(_ run: () -> CLI.Result) -> (CLI.Result, ClosedRange<Int64>) {
        let before = Int64(time(nil))
        let result = run()
        return (result, before...Int64(time(nil)))
    }

    @Test func scanAndImportShowTheExpiry() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "expiry shown passphrase\n")
        let env = ["LOMME_VAULT": box.vault]
        #expect(CLI.run(["init", "--child", "--passphrase-file", pw], environment: env).status == 0)
        let key = try ReceivingKey(text: CLI.run(["key", "--text", "--passphrase-file", pw], environment: env).out)
        let issuer = IssuerKeyPair.generate()
        let now = Int64(time(nil))
        func code(issued: Int64, lifetime: Int64, _ name: String) throws -> String {
            let text = try Envelope.seal(sampleConfig(secret: name), to: key, issuer: issuer, now: issued, lifetime: lifetime)
            return CLI.qrImage(text, in: box, name: name)
        }
        let fresh = try code(issued: now, lifetime: 86400, "fresh")
        let (scanned, freshRead) = Self.timed { CLI.run(["scan", fresh]) }
        let expiresIn = freshRead.map { "  expires in \(Self.rough(now + 86400 - $0)) (at \(Instant(seconds: now + 86400).shown))" }
        #expect(scanned.status == 0 && expiresIn.contains { scanned.out.contains($0) }, "\(scanned.out)")

        // Expired two minutes ago: within the 5-minute allowance while the tool reads its clock
        // before then (checked only when it surely did, or surely did not).
        let lateExpiry = now - 120
        let late = try code(issued: lateExpiry - 3600, lifetime: 3600, "late")
        let (lateScan, lateRead) = Self.timed { CLI.run(["scan", late]) }
        let lateTexts = lateRead.map { read in
            "expired \(Self.rough(read - lateExpiry)) ago (at \(Instant(seconds: lateExpiry).shown))"
                + (read <= lateExpiry + 300 ? " — accepted within the 5-minute clock-skew allowance" : ": ask the parent for a new one")
        }
        #expect(lateTexts.contains { lateScan.out.contains($0) }, "\(lateScan.out)")
        let (imported, importRead) = Self.timed { CLI.run(["import", late, "--yes", "--passphrase-file", pw], environment: env) }
        if importRead.upperBound <= lateExpiry + 300 {
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stderr.contains("— accepted within the 5-minute clock-skew allowance"), "\(imported.stderr)")
        } else if importRead.lowerBound > lateExpiry + 300 {
            #expect(imported.status == 7, "\(imported.stderr)")
        }

        let oldExpiry = now - 7200
        let old = try code(issued: oldExpiry - 3600, lifetime: 3600, "old")
        let before = readFile(box.vault)
        let (refused, refusedRead) = Self.timed { CLI.run(["import", old, "--yes", "--passphrase-file", pw], environment: env) }
        #expect(refused.status == 7, "\(refused.stderr)")
        let refusal = refusedRead.map {
            "lomme-vault: this code expired \(Self.rough($0 - oldExpiry)) ago (at \(Instant(seconds: oldExpiry).shown)); ask the parent for a new one\n"
        }
        #expect(refusal.contains(refused.stderr), "\(refused.stderr)")
        #expect(readFile(box.vault) == before)
        let oldScan = CLI.run(["scan", old])
        #expect(oldScan.out.contains("expired 2h") && oldScan.out.contains("ask the parent for a new one"), "\(oldScan.out)")
    }
}
