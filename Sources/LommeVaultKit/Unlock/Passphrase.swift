import Glibc
import LommeCore

/// Where a passphrase comes from: the terminal (no echo), a file descriptor, or a
/// file. Never argv, never an environment variable.
package enum PassphraseSource: Sendable, Equatable {
    case terminal
    case descriptor(Int32)
    case file(String)

    package static let minimumLength = 8
    package static let maximumLength = 4096

    /// The first line of the fd or file (without its line end). Read one byte at a
    /// time straight into locked memory, so nothing past the line is consumed. A file that
    /// other users may read is read, and `warn`ed about (chmod 600; `SecretFile`), as ssh
    /// warns of a key.
    package func readFirstLine(noun: String = "passphrase", warn: ((String) -> Void)? = nil) throws(LommeError) -> SecureBytes {
        let descriptor: Int32
        let label: String
        switch self {
        case .terminal:
            preconditionFailure("terminal passphrases are asked, not read")
        case .descriptor(let fd):
            descriptor = fd
            label = "file descriptor \(fd)"
        case .file(let path):
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            label = path
            guard descriptor >= 0 else {
                if errno == ENOENT {
                    throw LommeError.failure(.secretFileMissing, "the \(noun) file \(path) does not exist; check the path given to --\(noun == "passphrase" ? "passphrase" : noun)-file")
                }
                throw LommeError.failure(.secretFileUnreadable, "cannot read the \(noun) file \(path): \(String(cString: strerror(errno)))")
            }
        }
        defer { if case .file = self { close(descriptor) } }
        var info = stat()
        if case .file(let path) = self, let warn, fstat(descriptor, &info) == 0,
           let warning = SecretFile.readableWarning(info, path: path, noun: noun) {
            warn(warning)
        }
        let buffer = SecureBytes(count: PassphraseSource.maximumLength + 1)
        var length = 0
        let failure: Int32? = buffer.withUnsafeMutableBytes { raw -> Int32? in
            while length <= PassphraseSource.maximumLength {
                let count = read(descriptor, raw.baseAddress! + length, 1)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 || raw[length] == 0x0A { break }
                length += 1
            }
            return nil
        }
        if let failure {
            throw LommeError.failure(.secretFileUnreadable, "cannot read the \(noun) from \(label): \(String(cString: strerror(failure)))")
        }
        guard length <= PassphraseSource.maximumLength else {
            throw LommeError.failure(.secretTooLong, "the \(noun) from \(label) is longer than \(PassphraseSource.maximumLength) bytes")
        }
        if length > 0, buffer.withUnsafeBytes({ $0[length - 1] }) == 0x0D { length -= 1 }
        guard length > 0 else { throw LommeError.failure(.secretEmpty, "the \(noun) from \(label) is empty") }
        return buffer.slice(0..<length)
    }
}

/// Asking for passphrases.
package enum Passphrase {
    /// A passphrase to open an existing vault, from `source`.
    package static func existing(_ source: PassphraseSource, prompt: String, _ interaction: any Interaction) throws(LommeError) -> SecureBytes {
        switch source {
        case .terminal:
            let typed = try interaction.askSecret(prompt)
            guard typed.count > 0 else { throw LommeError(.wrongPassphrase, .secretEmpty, "no passphrase was typed") }
            return typed
        default:
            return try source.readFirstLine(warn: interaction.warning)
        }
    }

    /// A new passphrase: on a terminal typed twice, at least `minimumLength` long (three
    /// tries), with a warning when it is weak; from an fd or file read once.
    package static func new(_ source: PassphraseSource, _ interaction: any Interaction, what: String = "New passphrase") throws(LommeError) -> SecureBytes {
        guard source == .terminal else {
            let phrase = try source.readFirstLine(warn: interaction.warning)
            try checkLength(phrase)
            warnIfWeak(phrase, interaction)
            return phrase
        }
        return try typedTwice(interaction, prompt: "\(what): ", noun: "passphrase", check: checkLength) { warnIfWeak($0, interaction) }
    }

    /// A new secret typed twice on a terminal (three tries): each `check`ed as typed (the
    /// reason told, then asked again), `accepted` told once it passes, then repeated.
    static func typedTwice(_ interaction: any Interaction, prompt: String, noun: String,
                           check: (SecureBytes) throws(LommeError) -> Void,
                           accepted: (SecureBytes) -> Void = { _ in }) throws(LommeError) -> SecureBytes {
        for _ in 0..<3 {
            let secret = try interaction.askSecret(prompt)
            do {
                try check(secret)
            } catch {
                interaction.notice(error.message)
                continue
            }
            accepted(secret)
            if try interaction.askSecret("Repeat it: ").isEqual(to: secret) { return secret }
            interaction.notice("The two \(noun)s differ; try again.")
        }
        throw LommeError.failure(.newSecretNotSet, "no \(noun) was set (three tries); run the command again")
    }

    static func checkLength(_ phrase: SecureBytes) throws(LommeError) {
        let characters = phrase.withUnsafeBytes { bytes in bytes.filter { $0 & 0xC0 != 0x80 }.count }
        guard characters >= PassphraseSource.minimumLength else {
            throw LommeError.failure(.passphraseTooShort, "the passphrase is too short: use at least \(PassphraseSource.minimumLength) characters (four random words are better)")
        }
    }

    /// Weak: shorter than 12 characters, or made of one kind of character only.
    package static func isWeak(_ phrase: SecureBytes) -> Bool {
        phrase.withUnsafeBytes { bytes in
            var kinds = Set<Int>()
            for byte in bytes {
                switch byte {
                case 0x61...0x7A: kinds.insert(0)
                case 0x41...0x5A: kinds.insert(1)
                case 0x30...0x39: kinds.insert(2)
                default: kinds.insert(3)
                }
            }
            let distinct = Set(bytes).count
            return bytes.count < 12 || kinds.count < 2 && bytes.count < 20 || distinct < 5
        }
    }

    static func warnIfWeak(_ phrase: SecureBytes, _ interaction: any Interaction) {
        if isWeak(phrase) {
            interaction.warning("this passphrase is weak; a longer one, such as four or more random words, is much harder to guess")
        }
    }
}
