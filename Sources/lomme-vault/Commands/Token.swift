import ArgumentParser
import Glibc
import LommeCore
import LommeVaultKit

struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print an OAuth 2.0 access token (client credentials), cached in the kernel keyring until it expires.",
        discussion: """
            POSTs grant_type=client_credentials to the token URL (--token-url, else the config's tokenUrl) \
            with HTTP Basic authentication: the client id and secret, each form-urlencoded, then \
            base64. The token goes to stdout with nothing else (a newline only when stdout is a \
            terminal; -n never, --newline always); --json prints {"access_token", "token_type", \
            "expires_in"} with the seconds the token still lives.

            The token is kept in the user's kernel keyring (never on disk) until expires_in minus \
            30 s or a tenth of its life, whichever is less, an hour at most, and never past the end \
            of the unlocked session; keyed by vault and token URL. It is served only while the \
            vault is unlocked (or the passphrase is given): then no request is made. `lock` and \
            any change to the vault retire it. --refresh drops it and asks for a new one (do that \
            after the bank API answers 401).

            Plain http:// is allowed only to this machine (127.0.0.0/8, ::1, localhost); anywhere \
            else the token URL must be https://. libcurl is loaded only by this command.

            Exit 8, with one line on stderr that never holds the secret or the token:
              cannot reach the token endpoint URL: …   (refused, no route, DNS)
              the token endpoint URL did not answer in time (connect 5 s, total …)
              TLS with the token endpoint URL failed: …
              the client secret was refused — ask for a new QR   (invalid_client, 401)
              … does not let this client use the client-credentials grant
              … refused the token request: ERROR (DESCRIPTION)
              … failed with HTTP 5xx; try again later
              … answered HTTP NNN, not a token; check the token URL
              … answered, but not with a token: WHY   (not JSON, no access_token,
                not Bearer, a bad expires_in, larger than 64 KiB)
            Exit 1: no token URL, a refused URL (plain http:// off loopback, a \
            password in it; refused before any connection), libcurl missing. Exit 64: a \
            --token-url that is not an http(s) URL, a bad --timeout. Exits 3, 4, 5 and 6 as \
            for `get` when the vault must be opened. --url is the old name of --token-url, \
            still accepted.
            """
    )

    @Option(name: .customLong("token-url"), help: ArgumentHelp("The token endpoint (default: the config's tokenUrl).", valueName: "url"))
    var tokenURL: String?
    /// The old name of --token-url (as `exec` names it), kept for scripts; deprecated.
    @Option(name: .customLong("url"), help: .hidden) var oldURL: String?
    @Flag(name: .customLong("refresh"), help: "Ignore and replace a cached token.") var refresh = false
    @Flag(name: .customLong("json"), help: "Print access_token, token_type and expires_in (seconds left) as JSON.") var json = false
    @Option(name: .customLong("timeout"), help: ArgumentHelp("Give up after this long in all: 20s, 90s, 2m (at most 10m; connecting takes 5s at most).", valueName: "duration"))
    var timeout = "20s"
    @OptionGroup var newline: NewlineOptions
    @OptionGroup var vault: VaultOptions

    static let longestTimeout: UInt32 = 600

    /// `--token-url`, or the old `--url`.
    var givenURL: (text: String, option: String)? {
        tokenURL.map { ($0, "--token-url") } ?? oldURL.map { ($0, "--url") }
    }

    func validate() throws {
        if tokenURL != nil && oldURL != nil { throw ValidationError("give the token URL once, with --token-url (--url is its old name)") }
        try TokenURLOption.validate(givenURL?.text, option: givenURL?.option ?? "")
        _ = try DurationOption.seconds(timeout, option: "--timeout", atMost: Self.longestTimeout)
    }

    func run() throws {
        let explicit = try TokenURLOption.resolve(givenURL?.text, option: givenURL?.option ?? "")
        let context = try vault.prepare()
        let total = Double(DurationText.parse(timeout)!)
        let outcome = try TokenService(context).obtain(vault.unlockOptions, explicitURL: explicit, refresh: refresh,
                                              timeouts: .init(connect: 5, total: total))
        if json {
            let document = JSON.object([
                JSON.Member("access_token", .string(outcome.token.accessToken)),
                JSON.Member("token_type", .string(outcome.token.tokenType)),
                JSON.Member("expires_in", outcome.remaining.map { .number(String($0)) } ?? .null),
            ])
            try Terminal.output(document.text + (newline.wanted ? "\n" : ""))
        } else {
            try Terminal.output(outcome.token.accessToken + (newline.wanted ? "\n" : ""))
        }
    }
}
