import Foundation
import LommeCore
import LommeTestSupport
import Testing

/// A sandbox with a vault holding `Sample.configA`, made through the built binary, for the
/// promise tests: each of them asserts one promise of docs/contract.md directly.
struct PromiseVault {
    static let passphrase = "promise test passphrase 16"
    let box = CLI.Sandbox()
    let pw: String

    init(config: String = Sample.configA) {
        pw = box.write("pw", Self.passphrase + "\n")
        let made = run(["import", "--stdin", "--yes", "--no-check"], stdin: config)
        #expect(made.status == 0, "\(made.stderr)")
    }

    var args: [String] { ["--vault", box.vault] }

    /// Runs the binary on this vault (the passphrase from the file).
    func run(_ arguments: [String], stdin: String? = nil) -> CLI.Result {
        CLI.run(arguments + ["--vault", box.vault, "--passphrase-file", pw], stdin: stdin)
    }

    var bytes: [UInt8] { readFile(box.vault) }

    func replace(with bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: box.vault, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
    }

    /// The vault key (the file key), unwrapped by the library with the passphrase.
    func master() throws -> SecureBytes {
        try VaultFormat.open(VaultFormat.parse(bytes), passphrase: SecureBytes(copying: Array(Self.passphrase.utf8))).master
    }
}

/// Expects a failure: the exit code, exactly one line on stderr, and words in it.
func expectRefusal(_ result: CLI.Result, _ status: Int32, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == status, "exit \(result.status), wanted \(status): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.contains(words), "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)", sourceLocation: sourceLocation)
}
