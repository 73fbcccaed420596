/// Every failure the tool reports: one line for the user and the exit code the spec gives it.
///
/// Messages say what went wrong and what to do; they never contain a secret.
package struct LommeError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The spec's exit codes (SPEC.md, "Exit codes").
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
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    package static func failure(_ message: String) -> LommeError { LommeError(.failure, message) }
    package static func image(_ message: String) -> LommeError { LommeError(.unreadableImage, message) }
    package static func refused(_ message: String) -> LommeError { LommeError(.refused, message) }
    package static func usage(_ message: String) -> LommeError { LommeError(.usage, message) }
}
