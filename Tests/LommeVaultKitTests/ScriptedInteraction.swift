import Glibc
import LommeCore
import LommeTestSupport
import LommeVaultKit

/// The library's questions answered from a script, in order, and everything it says kept:
/// the test double of the CLI's terminal. A question with no answer left fails the call,
/// as a closed terminal would.
final class ScriptedInteraction: Interaction {
    /// `yesAfter`: runs the closure (another process's change, say) and answers yes.
    enum Answer { case text(String), secret(String), yes, no, yesAfter(() throws -> Void) }

    var answers: [Answer]
    var canAsk: Bool
    private(set) var questions: [String] = []
    private(set) var notices: [String] = []
    private(set) var progress: [String] = []

    init(_ answers: [Answer] = [], canAsk: Bool = true) {
        self.answers = answers
        self.canAsk = canAsk
    }

    private func next(_ prompt: String) throws(LommeError) -> Answer {
        questions.append(prompt)
        guard !answers.isEmpty else { throw LommeError.failure(.internalError, "the script has no answer to \(prompt)") }
        return answers.removeFirst()
    }

    func ask(_ prompt: String) throws(LommeError) -> String {
        guard case .text(let text) = try next(prompt) else { throw LommeError.failure(.internalError, "scripted: not a text answer to \(prompt)") }
        return text
    }

    func askSecret(_ prompt: String) throws(LommeError) -> SecureBytes {
        guard case .secret(let text) = try next(prompt) else { throw LommeError.failure(.internalError, "scripted: not a secret for \(prompt)") }
        return SecureBytes(copying: Array(text.utf8))
    }

    func confirm(_ question: String) throws(LommeError) -> Bool {
        switch try next(question) {
        case .yes: return true
        case .no: return false
        case .yesAfter(let meanwhile):
            do { try meanwhile() } catch { throw LommeError.failure(.internalError, "scripted: the change meanwhile failed: \(error)") }
            return true
        default: throw LommeError.failure(.internalError, "scripted: not a yes/no answer to \(question)")
        }
    }

    func notice(_ text: String) { notices.append(text) }

    func progress<R>(_ text: String, _ body: () throws(LommeError) -> R) throws(LommeError) -> R {
        progress.append(text)
        return try body()
    }
}

/// A temp directory with a vault path in it (real files, removed at the end), and contexts
/// on it with the fast test KDF and the real keyring.
final class ServiceBox {
    private let folder = TemporaryFolder("lomme-vault-service")
    var path: String { folder.path }

    var vault: String { path + "/data/vault" }

    func context(_ interaction: ScriptedInteraction, vault: String? = nil, keyringOff: Bool = false, tpm: String? = nil,
                 slotKinds: SlotKinds = .builtIn) -> VaultContext {
        VaultContext(settings: VaultSettings(store: VaultStore(path: vault ?? self.vault), kdf: "minimum", keyring: Keyring(off: keyringOff), tpm: tpm),
                     interaction: interaction, slotKinds: slotKinds)
    }

    /// Writes `text` to a file in the box (for --passphrase-file sources).
    func file(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        return file
    }
}

/// The passphrase the service tests use.
let servicePhrase = "correct horse battery staple"
