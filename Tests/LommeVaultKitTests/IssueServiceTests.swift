import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// IssueService's whole flow (the config, the seal, the record) through the library, and
/// the order of sealed codes: two codes of one issuer never compare equal, so a child
/// stores only a strictly newer one.
@Suite("IssueService")
struct IssueServiceTests {
    @Test func codesIssuedInOneSecondGetLaterTimesAndTheChildTakesOnlyNewer() throws {
        let parent = ServiceBox(), child = ServiceBox()
        let parentPW = parent.file("pw", servicePhrase), childPW = child.file("pw", servicePhrase)
        let quiet = ScriptedInteraction()
        _ = try Provisioning(parent.context(quiet)).createVault(source: .file(parentPW), noPrompt: false, refusal: "")
        let childKeys = try Provisioning(child.context(quiet)).createVault(source: .file(childPW), noPrompt: false, refusal: "").identity
        let configFile = parent.file("config.json", PlainPayload.encode(sampleConfig()))
        let request = IssueService.Request(from: configFile, recipient: .key(childKeys.receiving.publicKey), lifetime: 3600, checksums: false,
                                           unlock: UnlockOptions(source: .file(parentPW)))
        let nowMs = Int64(time(nil)) * 1000
        // Three codes "in the same millisecond": each a millisecond later, never more.
        let codes = try (0..<3).map { _ throws(LommeError) in try IssueService(parent.context(quiet)).run(request, nowMs: nowMs) }
        let times = try codes.map { (code) throws(LommeError) in try Envelope(text: code.payload).issuedMs }
        #expect(times == [nowMs, nowMs + 1, nowMs + 2], "\(times)")
        #expect(codes.allSatisfy { $0.config == sampleConfig() && $0.issued == nowMs / 1000 && $0.expires == $0.issued + 3600 })
        let recorded = try Session.open(parent.context(quiet), UnlockOptions(source: .file(parentPW)), useKeyring: false).contents.identity
        #expect(recorded?.lastIssuedMs == nowMs + 2)

        func importing(_ code: IssueService.Issued) throws(LommeError) -> ImportService.Outcome {
            try ImportService(child.context(ScriptedInteraction()), ImportServiceTests.request(childPW, yes: true)).run(Array(code.payload.utf8))
        }
        #expect(try importing(codes[0]) == .stored)
        #expect(try importing(codes[1]) == .stored, "a code issued a moment later is newer")
        // Back to the first: refused, and so is one of the same millisecond from elsewhere.
        let older = #expect(throws: LommeError.self) { _ = try importing(codes[0]) }
        #expect(older?.code == .refused && older?.reason == .rollback)
        let sameMoment = try Envelope.seal(sampleConfig(secret: "other"), to: childKeys.receiving.publicKey,
                                           issuer: try Provisioning(parent.context(quiet)).deviceIdentity(UnlockOptions(source: .file(parentPW))).identity.signing,
                                           issuedMs: times[1], lifetime: 3600)
        let tie = #expect(throws: LommeError.self) {
            _ = try ImportService(child.context(ScriptedInteraction()), ImportServiceTests.request(childPW, yes: true)).run(Array(sameMoment.utf8))
        }
        #expect(tie?.reason == .rollback && tie?.message.contains("at the same moment as") == true, "\(String(describing: tie))")
    }

    @Test func aPlainCodeNeedsNoVault() throws {
        let box = ServiceBox()
        let file = box.file("config.json", PlainPayload.encode(sampleConfig()))
        let issued = try IssueService(box.context(ScriptedInteraction(canAsk: false)))
            .run(IssueService.Request(from: file, recipient: .plain, lifetime: 60, checksums: false, unlock: UnlockOptions()), nowMs: 5000)
        #expect(issued.payload == PlainPayload.encode(sampleConfig()) && issued.issuer == nil)
        #expect(!FileManager.default.fileExists(atPath: box.vault))
    }
}
