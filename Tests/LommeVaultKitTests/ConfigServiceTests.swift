import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// ConfigService (get, export, exec) and TokenService's own opening of the vault, through
/// the library: the services open the vault, the CLI never does.
@Suite("ConfigService")
struct ConfigServiceTests {
    @Test func theStoredConfigComesOutAndANoneIsExitSix() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        let options = UnlockOptions(source: .file(pw))
        #expect(throws: LommeError(.notFound, .noConfig, "the vault holds no config yet; import one with `lomme-vault import PHOTO` or `--stdin`")) {
            _ = try ConfigService(context).config(options)
        }
        let config = sampleConfig(extras: [JSON.Member("name", .string("Anna"))])
        _ = try ImportService(context, ImportServiceTests.request(pw, yes: true)).run(Array(PlainPayload.encode(config).utf8))
        #expect(try ConfigService(context).config(options) == config)
        #expect(ConfigService.fieldNames(config) == ["clientId", "clientSecret", "userId", "accountNr", "name"])
        // Locked, no passphrase and no terminal: exit 3, as get.
        let locked = #expect(throws: LommeError.self) { _ = try ConfigService(context).config(UnlockOptions(noPrompt: true)) }
        #expect(locked?.code == .locked)
    }

    @Test func aTokenNeedsATokenURLAndTheVaultOpenedByTheService() throws {
        let box = ServiceBox()
        let pw = try UnlockServiceTests.vault(box)
        let context = box.context(ScriptedInteraction(canAsk: false))
        _ = try ImportService(context, ImportServiceTests.request(pw, yes: true)).run(Array(PlainPayload.encode(sampleConfig()).utf8))
        // The sample config has no tokenUrl: the service opened the vault and says what is missing.
        #expect(throws: LommeError.failure(.tokenURLMissing, "no token URL: pass --token-url or put tokenUrl in the config")) {
            _ = try TokenService(context).obtain(UnlockOptions(source: .file(pw)), explicitURL: nil, refresh: false)
        }
        let wrong = box.file("wrong", "not the passphrase at all\n")
        let error = #expect(throws: LommeError.self) {
            _ = try TokenService(context).obtain(UnlockOptions(source: .file(wrong)), explicitURL: nil, refresh: false)
        }
        #expect(error?.code == .wrongPassphrase)
    }
}
