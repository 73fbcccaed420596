import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// The sealed checks are made again under the write lock against what the vault holds
/// then: a concurrent import that pinned an issuer while this one waited for its "yes" is
/// not overwritten by a code from another issuer.
@Suite("Import re-checks under the lock")
struct ImportRaceTests {
    /// Answers yes, after running `meanwhile` (another import, at the moment of the question).
    final class Racing: Interaction {
        let meanwhile: () -> Void
        private(set) var asked = 0
        init(_ meanwhile: @escaping () -> Void) { self.meanwhile = meanwhile }
        var canAsk: Bool { true }
        func ask(_ prompt: String) throws(LommeError) -> String { throw LommeError.failure(.internalError, "not asked here") }
        func askSecret(_ prompt: String) throws(LommeError) -> SecureBytes { throw LommeError.failure(.internalError, "not asked here") }
        func confirm(_ question: String) throws(LommeError) -> Bool {
            asked += 1
            meanwhile()
            return true
        }
        func notice(_ text: String) {}
        func progress<R>(_ text: String, _ body: () throws(LommeError) -> R) throws(LommeError) -> R { try body() }
    }

    @Test func anIssuerPinnedMeanwhileIsNotOverwritten() throws {
        let child = ServiceBox()
        let pw = child.file("pw", servicePhrase)
        let keys = try Provisioning(child.context(ScriptedInteraction())).createVault(source: .file(pw), noPrompt: false, refusal: "").identity
        let now = Int64(time(nil))
        let parent = IssuerKeyPair.generate(), stranger = IssuerKeyPair.generate()
        let parents = try Envelope.seal(sampleConfig(secret: "parent's"), to: keys.receiving.publicKey, issuer: parent, now: now, lifetime: 3600)
        let strangers = try Envelope.seal(sampleConfig(secret: "stranger's"), to: keys.receiving.publicKey, issuer: stranger, now: now + 1, lifetime: 3600)
        var request = ImportService.Request()
        request.checksums = false
        request.unlock = UnlockOptions(source: .file(pw))

        // While the stranger's import waits for its "yes", the parent's code is imported
        // (with --yes) and pins the parent.
        var yes = request
        yes.yes = true
        let racing = Racing {
            #expect((try? ImportService(child.context(ScriptedInteraction()), yes).run(Array(parents.utf8))) == .stored)
        }
        let error = #expect(throws: LommeError.self) {
            let context = VaultContext(settings: child.context(ScriptedInteraction()).settings, interaction: racing)
            _ = try ImportService(context, request).run(Array(strangers.utf8))
        }
        #expect(racing.asked == 1)
        #expect(error?.code == .refused && error?.reason == .issuerNotPinned, "\(String(describing: error))")
        let contents = try Session.open(child.context(ScriptedInteraction()), UnlockOptions(source: .file(pw)), useKeyring: false).contents
        #expect(contents.identity?.pinnedIssuer == parent.publicKey)
        #expect(contents.config?.clientSecret == "parent's")
    }
}
