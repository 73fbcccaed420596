import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// ImportService through the library: scripted answers, real crypto, real files, no CLI.
@Suite("ImportService")
struct ImportServiceTests {
    static func request(_ pw: String, yes: Bool = false, allowPlain: Bool = false) -> ImportService.Request {
        var request = ImportService.Request()
        request.checksums = false
        request.yes = yes
        request.allowPlain = allowPlain
        request.unlock = UnlockOptions(source: .file(pw))
        return request
    }

    static func stored(_ box: ServiceBox, _ pw: String) throws -> VaultContents {
        try Session.open(box.context(ScriptedInteraction()), UnlockOptions(source: .file(pw)), useKeyring: false).contents
    }

    @Test func aPlainCodeIntoNoVaultIsConfirmedThenCreatesTheVaultWithAPassphraseTypedTwice() throws {
        let box = ServiceBox()
        let config = sampleConfig()
        let asked = ScriptedInteraction([.yes, .secret(servicePhrase), .secret(servicePhrase)])
        var request = Self.request("")
        request.unlock = UnlockOptions()
        let outcome = try ImportService(box.context(asked), request).run(Array(PlainPayload.encode(config).utf8))
        #expect(outcome == .created)
        #expect(asked.questions == ["Store it?", "New passphrase: ", "Repeat it: "])
        #expect(asked.notices.contains("There is no vault at \(box.vault) yet; creating it."))
        #expect(!asked.notices.joined().contains(config.clientSecret), "the secret is never shown")
        let contents = try Self.stored(box, box.file("pw", servicePhrase))
        #expect(contents.config == config)
        #expect(contents.identity != nil, "a new vault gets its device keys")
    }

    @Test func noAnswerMeansNothingStored() throws {
        let box = ServiceBox()
        let pw = box.file("pw", servicePhrase)
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(source: .file(pw), noPrompt: false, refusal: "")
        let before = readFile(box.vault)
        let asked = ScriptedInteraction([.no])
        #expect(throws: LommeError.self) { try ImportService(box.context(asked), Self.request(pw)).run(Array(PlainPayload.encode(sampleConfig()).utf8)) }
        #expect(readFile(box.vault) == before, "a no leaves the vault as it was")
        let quiet = ScriptedInteraction(canAsk: false)
        do {
            _ = try ImportService(box.context(quiet), Self.request(pw)).run(Array(PlainPayload.encode(sampleConfig()).utf8))
            Issue.record("stored without a confirmation")
        } catch {
            #expect(error.code == .failure && error.reason == .noTerminalToConfirm, "\(error)")
        }
    }

    @Test func sealedCodesArePinnedAndReplayRollbackAndPlainOverPinnedAreRefused() throws {
        let parent = ServiceBox(), child = ServiceBox()
        let parentPW = parent.file("pw", servicePhrase), childPW = child.file("pw", servicePhrase)
        let quiet = ScriptedInteraction()
        _ = try Provisioning(parent.context(quiet)).createVault(source: .file(parentPW), noPrompt: false, refusal: "")
        let childKeys = try Provisioning(child.context(quiet)).createVault(source: .file(childPW), noPrompt: false, refusal: "").identity
        let issuer = try Provisioning(parent.context(quiet)).deviceIdentity(UnlockOptions(source: .file(parentPW))).identity.signing
        let now = Int64(time(nil))
        func code(_ config: Config, issued: Int64) throws -> [UInt8] {
            Array(try Envelope.seal(config, to: childKeys.receiving.publicKey, issuer: issuer, now: issued, lifetime: 86400).utf8)
        }
        let first = sampleConfig(secret: "first"), older = sampleConfig(secret: "older")
        let olderCode = try code(older, issued: now - 600)
        let firstCode = try code(first, issued: now)

        let asked = ScriptedInteraction([.yes])
        #expect(try ImportService(child.context(asked), Self.request(childPW)).run(firstCode) == .stored)
        #expect(asked.questions.first?.contains(issuer.fingerprint) == true, "the first issuer is asked about by fingerprint")
        let pinned = try #require(try Self.stored(child, childPW).identity?.pinnedIssuer)
        #expect(pinned == issuer.publicKey)

        #expect(try ImportService(child.context(ScriptedInteraction()), Self.request(childPW, yes: true)).run(firstCode) == .alreadyImported)
        let before = readFile(child.vault)
        #expect(throws: LommeError.self, "an older code rolls back") {
            try ImportService(child.context(ScriptedInteraction()), Self.request(childPW, yes: true)).run(olderCode)
        }
        let plain = Array(PlainPayload.encode(sampleConfig(secret: "plain")).utf8)
        do {
            _ = try ImportService(child.context(ScriptedInteraction()), Self.request(childPW, yes: true)).run(plain)
            Issue.record("a plain code replaced a pinned issuer's config")
        } catch {
            #expect(error.code == .refused)
        }
        let declined = ScriptedInteraction([.no])
        #expect(throws: LommeError.self, "--allow-plain is asked again, whatever --yes says") {
            try ImportService(child.context(declined), Self.request(childPW, yes: true, allowPlain: true)).run(plain)
        }
        #expect(declined.questions == ["Drop the pin and store the plain code?"])
        #expect(readFile(child.vault) == before, "nothing refused changed the vault")
        #expect(try Self.stored(child, childPW).config == first)
    }
}
