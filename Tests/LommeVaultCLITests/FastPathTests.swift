import LommeTestSupport
import Testing

/// `--version`, `get FIELD` and `scan --raw PHOTO…` skip ArgumentParser (Sources/lomme-vault/Support/FastPath.swift); every
/// argument list must still do exactly what the full parser does with it, errors included.
/// LOMME_VAULT_FAST_PATH=off runs the same binary through ArgumentParser only.
@Suite("Fast path")
struct FastPathTests {
    static let off = ["LOMME_VAULT_FAST_PATH": "off"]

    /// The same run with and without the fast path: same exit code, same bytes on stdout and stderr.
    static func expectSame(_ arguments: [String], environment: [String: String] = [:],
                           status expected: Int32? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = CLI.run(arguments, environment: environment)
        let full = CLI.run(arguments, environment: environment.merging(off) { $1 })
        #expect(fast.status == full.status && fast.stdout == full.stdout && fast.stderr == full.stderr,
                "\(arguments): fast \(fast.status) \(fast.out.debugDescription) \(fast.stderr.debugDescription); full \(full.status) \(full.out.debugDescription) \(full.stderr.debugDescription)",
                sourceLocation: sourceLocation)
        if let expected {
            #expect(fast.status == expected, "\(arguments): \(fast.status) \(fast.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func everyArgumentListDoesWhatTheFullParserDoes() throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "fast path passphrase\n")
        let vault = box.vault, locked = box.path + "/locked/vault"
        for path in [vault, locked] {
            let made = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw, "--vault", path], stdin: Sample.configA)
            try #require(made.status == 0, "\(made.stderr)")
        }
        try #require(CLI.run(["unlock", "--passphrase-file", pw, "--vault", vault]).status == 0)
        defer { _ = CLI.run(["lock", "--vault", vault]) }

        // Recognised by the fast path.
        Self.expectSame(["--version"], status: 0)
        Self.expectSame(["get", "accountNr", "--vault", vault], status: 0)
        Self.expectSame(["get", "clientSecret", "--vault", vault, "--no-prompt", "-n"], status: 0)
        Self.expectSame(["get", "--newline", "--vault", vault, "name"], status: 0)
        Self.expectSame(["get", "--no-prompt", "userId"], environment: ["LOMME_VAULT": vault], status: 0)
        Self.expectSame(["get", "help", "--vault", vault], status: 6)
        Self.expectSame(["get", "nosuch", "--vault", vault], status: 6)
        Self.expectSame(["get", "", "--vault", vault], status: 64)  // as `set ""`: a name no field can have
        Self.expectSame(["get", "clientsecret", "--vault", vault], status: 0)
        Self.expectSame(["get", "clientSecert", "--vault", vault], status: 6)
        Self.expectSame(["get", "accountNr", "--vault", box.path + "/none/vault"], status: 6)
        Self.expectSame(["get", "accountNr", "--vault", locked, "--no-prompt"], status: 3)
        Self.expectSame(["get", "accountNr", "--vault", locked], status: 3)
        Self.expectSame(["get", "accountNr", "--vault", box.path], status: 1)
        // Left to ArgumentParser: other shapes, errors, help.
        Self.expectSame(["-V"], status: 64)
        Self.expectSame(["--version", "get"], status: 0)
        Self.expectSame(["get", "--version"], status: 0)
        Self.expectSame(["get", "accountNr", "--help"], status: 0)
        Self.expectSame(["get", "-h"], status: 0)
        Self.expectSame(["get"], status: 64)
        Self.expectSame(["get", "accountNr", "userId", "--vault", vault], status: 64)
        Self.expectSame(["get", "accountNr", "-n", "--newline", "--vault", vault], status: 64)
        Self.expectSame(["get", "accountNr", "-n", "-n", "--vault", vault], status: 0)
        Self.expectSame(["get", "accountNr", "--vault"], status: 64)
        Self.expectSame(["get", "accountNr", "--vault", "-n"], status: 64)
        Self.expectSame(["get", "accountNr", "--vault", vault, "--vault", locked], status: 3)
        Self.expectSame(["get", "--vault=" + vault, "accountNr"], status: 0)
        Self.expectSame(["get", "--", "accountNr", "--vault", vault], status: 64)
        Self.expectSame(["get", "accountNr", "--bogus", "--vault", vault], status: 64)
        Self.expectSame(["get", "--json", "--vault", vault], status: 0)
        Self.expectSame(["get", "accountNr", "--passphrase-file", pw, "--vault", locked], status: 0)
    }

    /// `scan --raw PHOTO…` (a link's code, a config's, a photo that is none) does what the
    /// full parser does; other shapes of `scan` are left to it.
    @Test func scanRawDoesWhatTheFullParserDoes() throws {
        let box = CLI.Sandbox()
        let link = CLI.qrImage("https://example.invalid/fast", in: box, name: "link")
        let config = CLI.qrImage(Sample.configA, in: box, name: "config")
        let text = box.write("notes.txt", "not a picture\n")
        // Recognised by the fast path.
        Self.expectSame(["scan", "--raw", link], status: 0)
        Self.expectSame(["scan", "--raw", "-n", config], status: 0)
        Self.expectSame(["scan", link, "--raw", config], status: 0)
        Self.expectSame(["scan", "-n", "--raw", link], status: 0)
        Self.expectSame(["scan", "--raw", "-n", link, config], status: 0)
        Self.expectSame(["scan", "--raw", text, link], status: 2)
        Self.expectSame(["scan", "--raw", box.path + "/missing.png"], status: 2)
        // Left to ArgumentParser.
        Self.expectSame(["scan", "--raw"], status: 64)
        Self.expectSame(["scan", "--raw", "--raw", link], status: 0)
        Self.expectSame(["scan", "--raw", "--camera", link], status: 64)
        Self.expectSame(["scan", "--raw", "--", link], status: 0)
        Self.expectSame(["scan", link], status: 0)
    }

    /// The fast path is really taken: ArgumentParser's start-up touches pages the fast path
    /// never does (its metadata, conformance records, reflection), a count that does not depend
    /// on the machine's load the way time does.
    @Test(arguments: [["--version"], ["get", "accountNr", "--no-prompt", "--vault"]])
    func theFastPathSkipsArgumentParser(arguments: [String]) throws {
        let box = CLI.Sandbox()
        let pw = box.write("pw", "fast path passphrase\n")
        let made = CLI.run(["import", "--stdin", "--yes", "--no-check", "--passphrase-file", pw, "--vault", box.vault], stdin: Sample.configA)
        try #require(made.status == 0, "\(made.stderr)")
        try #require(CLI.run(["unlock", "--passphrase-file", pw, "--vault", box.vault]).status == 0)
        defer { _ = CLI.run(["lock", "--vault", box.vault]) }
        let command = arguments + (arguments.last == "--vault" ? [box.vault] : [])
        /// The fewest minor page faults of five runs.
        func faults(_ environment: [String: String]) throws -> Int {
            let r = CLI.run(command, environment: environment,
                            shell: #"for i in 1 2 3 4 5; do /usr/bin/time -f %R "$LV" "$@" 2>&1 >/dev/null | tail -1; done"#)
            let counts = r.out.split(separator: "\n").compactMap { Int($0) }
            try #require(counts.count == 5, "\(r.out) \(r.stderr)")
            return counts.min()!
        }
        let fast = try faults([:]), full = try faults(Self.off)
        #expect(fast * 10 < full * 9, "\(command): \(fast) page faults with the fast path, \(full) without")
    }
}
