import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// StatusService through the library: no vault, a locked one, an unlocked one — never a
/// question, and the session's timeout is not refreshed by looking.
@Suite("StatusService")
struct StatusServiceTests {
    @Test func statusNeverAsksAndTellsLockedFromUnlocked() throws {
        let box = ServiceBox()
        let silent = ScriptedInteraction(canAsk: false)
        #expect(try StatusService(box.context(silent)).run().exists == false)
        let pw = try UnlockServiceTests.vault(box)
        let locked = try StatusService(box.context(silent)).run()
        #expect(locked.exists && locked.lines.joined(separator: "\n").contains("locked"), "\(locked.lines)")
        _ = try UnlockService(box.context(ScriptedInteraction())).unlock(idle: 120, UnlockOptions(source: .file(pw)))
        defer { _ = try? UnlockService(box.context(ScriptedInteraction())).lock() }
        let unlocked = try StatusService(box.context(silent)).run()
        #expect(unlocked.lines.joined(separator: "\n").contains("unlocked"), "\(unlocked.lines)")
        #expect(silent.questions.isEmpty)
    }
}
