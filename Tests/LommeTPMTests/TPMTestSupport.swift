import LommeCore
import LommeTPM
import Testing

/// A PIN-derived auth value and a secret whose bytes are printable text, so a test can
/// look for them in messages and on the bus as they are.
enum Secrets {
    static let auth = SecureBytes(copying: Array("PIN-AUTH-0123456789-abcdefghijkl".utf8))
    static let secret = SecureBytes(copying: Array("FILE-KEY-the-vault-file-key-32b!".utf8))
    static let wrongAuth = SecureBytes(copying: Array("WRONG-PIN-AUTH-0123456789-abcdef".utf8))

    /// Whether `text` holds any of the secrets, as text or as hex.
    static func appear(in text: String) -> Bool {
        [auth, secret, wrongAuth].contains { value in
            text.contains(String(decoding: value.bytes, as: UTF8.self)) || text.contains(Sodium.hex(value.bytes))
                || text.contains(String(decoding: value.bytes.prefix(8), as: UTF8.self))
        }
    }
}

/// The error `body` throws (a failed expectation when it throws none).
func failure<R>(_ body: () throws(LommeError) -> R, sourceLocation: SourceLocation = #_sourceLocation) -> LommeError? {
    do {
        _ = try body()
        Issue.record("no error", sourceLocation: sourceLocation)
        return nil
    } catch {
        #expect(!Secrets.appear(in: error.message), "a secret in: \(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
        return error
    }
}
