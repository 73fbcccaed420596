import Glibc
import LommeCore

/// Where `issue` gets the config from: a JSON file, standard input, or questions through
/// the interaction (ConfigQuestions.swift; the secret typed with echo off). Never from argv.
package enum ConfigInput {
    /// The largest config file read; a config is a few hundred bytes.
    package static let maximumSize = 64 * 1024

    /// Reads `path` (`-` for standard input) and parses it as a config.
    package static func read(from path: String, checksums: Bool) throws(LommeError) -> Config {
        let bytes = try readSmallFile(path, limit: maximumSize, what: "config file")
        let name = path == "-" ? "standard input" : path
        do {
            return try Config(jsonBytes: bytes, checksums: checksums)
        } catch {
            throw error.with(message: "\(name): \(error.message)")
        }
    }

    /// Reads a whole file, or standard input for `-`, refusing more than `limit` bytes.
    /// `check`, when given, judges the opened file first (`SecretFile`'s checks).
    package static func readSmallFile(_ path: String, limit: Int, what: String,
                                      check: ((stat) throws(LommeError) -> Void)? = nil) throws(LommeError) -> [UInt8] {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LommeError.failure(.fileUnreadable, "cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
        }
        defer { if path != "-" { close(descriptor) } }
        if let check {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                throw LommeError.failure(.fileUnreadable, "cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
            }
            try check(info)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LommeError.failure(.fileUnreadable, "cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit {
                throw LommeError.failure(.fileTooLarge, "the \(what) \(path) is larger than \(limit / 1024) KiB; is it the right file?")
            }
        }
        return bytes
    }
}
