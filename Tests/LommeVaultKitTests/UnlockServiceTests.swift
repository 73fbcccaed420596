import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// UnlockService through the library, with the real kernel keyring.
@Suite("UnlockService")
struct UnlockServiceTests {
    static func vault(_ box: ServiceBox) throws -> String {
        let pw = box.file("pw", servicePhrase)
        _ = try Provisioning(box.context(ScriptedInteraction())).createVault(source: .file(pw), noPrompt: false, refusal: "")
        return pw
    }

    @Test func threeWrongPassphrasesAreExitFourAfterTwoNotices() throws {
        let box = ServiceBox()
        _ = try Self.vault(box)
        let asked = ScriptedInteraction([.secret("wrong one"), .secret("wrong two"), .secret("wrong three")])
        do {
            _ = try UnlockService(box.context(asked)).unlock(idle: 60, UnlockOptions())
            Issue.record("unlocked with a wrong passphrase")
        } catch {
            #expect(error.code == .wrongPassphrase)
        }
        #expect(asked.notices == ["Wrong passphrase; try again.", "Wrong passphrase; try again."])
        #expect(asked.progress == ["unlocking…", "unlocking…", "unlocking…"])
        let cannotAsk = ScriptedInteraction(canAsk: false)
        #expect(throws: LommeError.self) { try UnlockService(box.context(cannotAsk)).unlock(idle: 60, UnlockOptions()) }
        #expect(cannotAsk.questions.isEmpty)
    }

    @Test func lockForgetsTheSessionAndTheVaultsCachedTokens() throws {
        let box = ServiceBox()
        let pw = try Self.vault(box)
        let context = box.context(ScriptedInteraction())
        let unlocked = try UnlockService(context).unlock(idle: 120, UnlockOptions(source: .file(pw)))
        #expect(!unlocked.keptLiveSession)
        let sealed = try VaultFormat.parse(try context.store.read())
        #expect(Session.fromKeyring(context, sealed) != nil, "unlock keeps the key in the keyring")
        let description = TokenCache.description(vaultID: Session.vaultID(salt: sealed.salt), url: nil)
        let token = AccessToken(accessToken: "tok", tokenType: "Bearer", expiresIn: 600)
        let (master, state) = try #require(Session.fromKeyring(context, sealed))
        _ = try TokenCache.store(description, fingerprint: TokenCache.fingerprint(sealed.bytes),
                                 key: TokenCache.sealingKey(master: master, sessionDeadline: state.deadline, description: description), token: token,
                                 requested: TokenCache.nowMilliseconds(), notAfter: TokenCache.bootMilliseconds(unixSeconds: state.deadline),
                                 keyring: context.keyring)
        #expect(try UnlockService(context).lock() == .forgot(sessions: 1, tokens: 1))
        #expect(Session.fromKeyring(context, sealed) == nil)
        #expect(try Keyring().find(description) == nil, "the token went with the session")
        #expect(try UnlockService(context).lock() == .forgot(sessions: 0, tokens: 0))
    }

    @Test func aKeyringTurnedOffInTheSettingsIsNeverTouched() throws {
        let box = ServiceBox()
        let pw = try Self.vault(box)
        let told = ScriptedInteraction()
        let context = box.context(told, keyringOff: true)
        #expect(throws: LommeError.self) { try UnlockService(context).unlock(idle: 60, UnlockOptions(source: .file(pw))) }
        #expect(UnlockService(context).lockAll() == .keyringUnavailable(reason: "LOMME_VAULT_KEYRING=off"))
        _ = try Session.open(context, UnlockOptions(source: .file(pw)))
        _ = try Session.open(context, UnlockOptions(source: .file(pw)))
        #expect(told.notices.filter { $0.contains("keyring turned off (LOMME_VAULT_KEYRING=off)") }.count == 1, "said once per context: \(told.notices)")
    }

    @Test func passwdAsksTwiceRefusesAShortOneAndTheNewPassphraseOpens() throws {
        let box = ServiceBox()
        let pw = try Self.vault(box)
        let newPhrase = "a new and longer passphrase"
        let asked = ScriptedInteraction([.secret("short"), .secret(newPhrase), .secret(newPhrase)])
        _ = try UnlockService(box.context(asked)).changePassphrase(old: UnlockOptions(source: .file(pw)), new: .terminal)
        #expect(asked.notices.first?.hasPrefix("the passphrase is too short") == true)
        #expect(throws: LommeError.self) { try Session.open(box.context(ScriptedInteraction()), UnlockOptions(source: .file(pw)), useKeyring: false) }
        _ = try Session.open(box.context(ScriptedInteraction()), UnlockOptions(source: .file(box.file("new", newPhrase))), useKeyring: false)
    }
}
