import Foundation
import LommeCore
import LommeTestSupport
import LommeVaultKit
import Testing

/// `set` resolves the field name again under the write lock, against the config the vault
/// holds then, not the one it read before asking for the value: an `unset` meanwhile is
/// not undone by a `set` without --new, and a field another `set --new` added meanwhile is
/// not overwritten by this one's --new. The other command runs at the moment the value is
/// asked, so the race is the same every time.
@Suite("Set re-checks the field under the lock")
struct SetRaceTests {
    /// Answers `value` to the question for it, after running `meanwhile` (another command).
    final class Racing: Interaction {
        let value: String
        let meanwhile: () throws -> Void
        private(set) var asked = 0
        init(_ value: String, meanwhile: @escaping () throws -> Void) {
            self.value = value
            self.meanwhile = meanwhile
        }
        var canAsk: Bool { true }
        func ask(_ prompt: String) throws(LommeError) -> String {
            asked += 1
            do { try meanwhile() } catch { throw LommeError.failure(.internalError, "the change meanwhile failed: \(error)") }
            return value
        }
        func askSecret(_ prompt: String) throws(LommeError) -> SecureBytes { throw LommeError.failure(.internalError, "not asked here") }
        func confirm(_ question: String) throws(LommeError) -> Bool { throw LommeError.failure(.internalError, "not asked here") }
        func notice(_ text: String) {}
        func progress<R>(_ text: String, _ body: () throws(LommeError) -> R) throws(LommeError) -> R { try body() }
    }

    static func request(_ field: String, new: Bool = false, _ options: UnlockOptions) -> SetService.Request {
        var request = SetService.Request(field: field, source: .terminal)
        request.new = new
        request.unlock = options
        return request
    }

    static func nickname(_ box: ServiceBox, _ options: UnlockOptions) throws -> String? {
        try HouseholdServiceTests.contents(box, options).config?.extras.first { $0.key == "nickname" }?.value.stringValue
    }

    @Test func aFieldUnsetWhileItsValueWasAskedIsNotBroughtBack() throws {
        let (box, options) = try HouseholdServiceTests.parent()
        _ = try SetService(box.context(ScriptedInteraction([.text("Kari")]))).run(Self.request("nickname", new: true, options))
        try #require(try Self.nickname(box, options) == "Kari")

        let racing = Racing("Ola") { _ = try SetService(box.context(ScriptedInteraction())).unset("nickname", unlock: options) }
        let context = VaultContext(settings: box.context(ScriptedInteraction()).settings, interaction: racing)
        let error = #expect(throws: LommeError.self) { try SetService(context).run(Self.request("nickname", options)) }
        #expect(racing.asked == 1)
        #expect(error?.code == .notFound && error?.reason == .fieldUnknown, "\(String(describing: error))")
        #expect(try Self.nickname(box, options) == nil, "set brought the field back without --new")
    }

    @Test func aFieldAddedWhileANewOneWasAskedIsNotOverwritten() throws {
        let (box, options) = try HouseholdServiceTests.parent()
        let racing = Racing("Ola") {
            _ = try SetService(box.context(ScriptedInteraction([.text("Kari")]))).run(Self.request("nickname", new: true, options))
        }
        let context = VaultContext(settings: box.context(ScriptedInteraction()).settings, interaction: racing)
        let error = #expect(throws: LommeError.self) { try SetService(context).run(Self.request("nickname", new: true, options)) }
        #expect(racing.asked == 1)
        #expect(error?.code == .usage && error?.reason == .fieldExists, "\(String(describing: error))")
        #expect(try Self.nickname(box, options) == "Kari")
    }
}
