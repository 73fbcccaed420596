import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// `import --allow-plain` drops the pinned issuer but not the memory of the last sealed code:
/// a sealed code older than the last one stored (or the same one replayed after a newer)
/// stays refused as a rollback, even though no issuer is pinned any more. Through the binary.
@Suite("Plain import keeps the last sealed code (through the built binary)")
struct PlainKeepsReplayTests {
    typealias Device = SealedFlowTests.Device

    @Test func anOldSealedCodeIsStillRefusedAfterAPlainImport() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let issuer = IssuerKeyPair.generate()
        let now = Int64(time(nil))
        let older = try Envelope.seal(SealedFlowTests.config, to: child.key, issuer: issuer, now: now - 120, lifetime: 3600)
        let newer = try Envelope.seal(SealedFlowTests.config, to: child.key, issuer: issuer, now: now - 60, lifetime: 3600)
        #expect(child.run(["import", "--stdin", "--yes"], stdin: older).status == 0)
        #expect(child.run(["import", "--stdin", "--yes"], stdin: newer).status == 0)

        let plain = child.run(["import", "--stdin", "--yes", "--no-check", "--allow-plain"], stdin: Sample.configB)
        #expect(plain.status == 0, "\(plain.stderr)")

        // No pin now, but the older sealed code is still a rollback.
        let before = readFile(box.path + "/child/vault")
        let replay = child.run(["import", "--stdin", "--yes"], stdin: older)
        #expect(replay.status == 7, "\(replay.stderr)")
        #expect(replay.reason == .rollback, "\(replay.stderr)")
        let unchanged = readFile(box.path + "/child/vault") == before
        #expect(unchanged, "a refused import wrote the vault")
    }

    /// The last sealed code again, after a plain code replaced its config: not "unchanged"
    /// (exit 0 while the vault holds the plain config) but refused (exit 7), saying what is
    /// stored, and nothing written. Before the plain code it is "unchanged" (the control).
    @Test func theLastSealedCodeAgainAfterAPlainImportIsRefused() throws {
        let box = CLI.Sandbox()
        let child = try Device("child", in: box)
        let code = try Envelope.seal(SealedFlowTests.config, to: child.key, issuer: IssuerKeyPair.generate(), now: Int64(time(nil)) - 60, lifetime: 3600)
        #expect(child.run(["import", "--stdin", "--yes"], stdin: code).status == 0)
        let again = child.run(["import", "--stdin", "--yes"], stdin: code)
        #expect(again.status == 0 && again.stderr.contains("Unchanged"), "\(again.stderr)")
        #expect(child.run(["import", "--stdin", "--yes", "--no-check", "--allow-plain"], stdin: Sample.configB).status == 0)
        let before = readFile(box.path + "/child/vault")
        let replay = child.run(["import", "--stdin", "--yes"], stdin: code)
        expectRefusal(replay, 7, "this sealed code was imported already, and the vault now holds a plain code's config")
        #expect(!replay.stderr.contains("Unchanged"), "\(replay.stderr)")
        let unchanged = readFile(box.path + "/child/vault") == before
        #expect(unchanged, "a refused import wrote the vault")
        #expect(child.run(["get", "clientId"]).out == "client-B")
    }
}
