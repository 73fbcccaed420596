import Foundation
@testable import LommeCore
@testable import LommeVaultKit
import LommeTestSupport
import Testing

/// A vault that would grow past the size a vault may hold says so and writes nothing.
@Suite("A vault past 8 MiB (through the built binary)")
struct VaultTooLargeTests {
    /// Extra fields of 65 000 characters, one `set` at a time (each keeps the config before
    /// as the previous one): the write that would pass 8 MiB says the vault is too large and
    /// what to do (not "check the disk, and report this"), writes nothing, and the vault
    /// still opens.
    @Test func aWritePastTheLimitSaysTooLargeAndWritesNothing() throws {
        let vault = PromiseVault()
        let value = String(repeating: "x", count: 65_000) + "\n"
        var refused: CLI.Result?
        for number in 1...100 {
            let before = vault.bytes
            let result = vault.run(["set", "--new", "note\(number)"], stdin: value)
            if result.status != 0 {
                refused = result
                #expect(vault.bytes == before, "a refused write changed the vault")
                break
            }
            #expect(vault.bytes.count <= 8 << 20)
        }
        let result = try #require(refused, "a hundred fields of 65 000 characters were stored")
        expectRefusal(result, 1, "more than the 8 MiB a vault may hold, so nothing was written")
        #expect(!result.stderr.contains("report this"), "\(result.stderr)")
        #expect(vault.run(["get", "clientId"]).out == "client-A")
    }
}
