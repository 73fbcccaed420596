/// Every failure the tool reports: one line for the user, the exit code it is given,
/// and what went wrong by name (`Reason`), which code and tests match — the message is for
/// people and may be reworded.
///
/// Messages say what went wrong and what to do; they never contain a secret.
package struct LommeError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The exit codes (docs/commands.md, "Exit codes").
    package enum Code: Int32, Sendable, CaseIterable {
        case failure = 1
        case unreadableImage = 2
        case locked = 3
        case wrongPassphrase = 4
        case damaged = 5
        case notFound = 6
        case refused = 7
        case token = 8
        case usage = 64
    }

    package let code: Code
    /// What went wrong, by name: every failure has one (NamedErrorsTests).
    package let reason: Reason
    package let message: String

    package init(_ code: Code, _ reason: Reason, _ message: String) {
        self.code = code
        self.reason = reason
        self.message = message
    }

    package var description: String { message }

    /// The same failure, with `message` in place of its own (a prefix, say).
    package func with(message: String) -> LommeError { LommeError(code, reason, message) }

    /// The same failure, with another exit code (a token URL's rule broken in a config field
    /// is a refusal, exit 7): a rethrow keeps the reason.
    package func with(code: Code) -> LommeError { LommeError(code, reason, message) }

    package static func failure(_ reason: Reason, _ message: String) -> LommeError { LommeError(.failure, reason, message) }
    package static func image(_ reason: Reason, _ message: String) -> LommeError { LommeError(.unreadableImage, reason, message) }
    package static func refused(_ reason: Reason, _ message: String) -> LommeError { LommeError(.refused, reason, message) }
    package static func usage(_ reason: Reason, _ message: String) -> LommeError { LommeError(.usage, reason, message) }
}
