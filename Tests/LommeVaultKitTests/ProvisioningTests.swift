import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// Provisioning and IssueService through the library.
@Suite("Provisioning and IssueService")
struct ProvisioningTests {
    @Test func deviceKeysAreMadeOnceAndKept() throws {
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        let context = box.context(ScriptedInteraction())
        try VaultActions.create(context, contents: VaultContents(), source: .file(pw))  // a vault from before device keys
        let options = UnlockOptions(source: .file(pw))
        let made = try Provisioning.deviceIdentity(Session.open(context, options, useKeyring: false))
        #expect(made.made)
        let again = try Provisioning.deviceIdentity(Session.open(context, options, useKeyring: false))
        #expect(!again.made)
        #expect(again.identity.receiving.publicKey == made.identity.receiving.publicKey)
        #expect(try Provisioning(context).deviceIdentity(options).identity.signing.publicKey == made.identity.signing.publicKey)
    }

    @Test func noPromptWithoutAPassphraseSourceCreatesNothing() throws {
        let box = ServiceBox()
        do {
            _ = try Provisioning(box.context(ScriptedInteraction())).createVault(source: .terminal, noPrompt: true, refusal: "no prompt")
            Issue.record("created a vault")
        } catch {
            #expect(error.code == .locked && error.message == "no prompt")
        }
        #expect(!VaultStore(path: box.vault).exists)
    }

    @Test func sealingNeedsAVault() throws {
        let box = ServiceBox()
        let request = IssueService.Request(from: nil, recipient: .key(ReceivingKeyPair.generate().publicKey), lifetime: 60, checksums: true,
                                           unlock: UnlockOptions())
        let error = #expect(throws: LommeError.self) { try IssueService(box.context(ScriptedInteraction())).run(request, nowMs: 0) }
        #expect(error?.code == .notFound)
    }
}
