import Glibc
import LommeCore

/// "Give me an access token for this vault": the cached one while it is valid and the
/// vault is unlocked (a session; a passphrase given now neither reads nor fills the
/// cache), else the client-credentials grant with the config's id and secret.
package struct TokenService {
    package let context: VaultContext

    package init(_ context: VaultContext) {
        self.context = context
    }

    package struct Timeouts: Sendable {
        package var connect: Double
        package var total: Double
        package init(connect: Double = 5, total: Double = 20) {
            self.connect = min(connect, total)
            self.total = total
        }
    }

    package struct Outcome: Sendable {
        package var token: AccessToken
        /// Seconds the token still lives (nil when the endpoint did not say).
        package var remaining: UInt64?
        package var fromCache: Bool
    }

    /// Says once per context that tokens cannot be cached here.
    static func tellUnavailable(_ problem: Keyring.Unavailable, _ context: VaultContext) {
        context.noticeOnce("token-keyring", "lomme-vault: warning: \(problem.summary); the token is not cached, so every call asks the token endpoint")
    }

    /// `token`: opens the vault (its session, or a passphrase from `options`) and obtains
    /// a token for its config.
    package func obtain(_ options: UnlockOptions, explicitURL: TokenURL?, refresh: Bool,
                        timeouts: Timeouts = Timeouts()) throws(LommeError) -> Outcome {
        let opened = try Session.open(context, options)
        let config = try ConfigService.config(opened)
        if let warning = opened.contents.secretWarning(now: Int64(time(nil))) { context.interaction.notice("lomme-vault: " + warning) }
        return try obtain(opened, config: config, explicitURL: explicitURL, refresh: refresh, timeouts: timeouts)
    }

    /// - Parameters:
    ///   - opened: the vault, opened by its session or a passphrase: a cached token is
    ///     served only to a caller that could open the vault, and lives no longer than
    ///     the session it was fetched in.
    ///   - config: the config `opened` holds.
    ///   - explicitURL: `--token-url`, already checked; nil means the config's `tokenUrl`.
    ///   - refresh: skip (and drop) the cached token.
    package func obtain(_ opened: OpenedVault, config: Config, explicitURL: TokenURL?, refresh: Bool,
                        timeouts: Timeouts = Timeouts()) throws(LommeError) -> Outcome {
        let fingerprint = TokenCache.fingerprint(opened.sealed.bytes)
        let vaultID = Session.vaultID(salt: opened.sealed.salt)
        let description = TokenCache.description(vaultID: vaultID, url: explicitURL?.text)
        // Only an unlocked session caches: its key seals the entry, its end ends it.
        let session = opened.fromKeyring ? opened.sessionDeadline : nil
        let key = session.map { TokenCache.sealingKey(master: opened.master, sessionDeadline: $0, description: description) }
        var cacheUsable = key != nil
        do {
            if refresh {
                try TokenCache.forget(description, keyring: context.keyring)
            } else if let key, let entry = try TokenCache.lookup(description, fingerprint: fingerprint, key: key, keyring: context.keyring) {
                return Outcome(token: entry.token, remaining: entry.token.expiresIn, fromCache: true)
            }
        } catch {
            Self.tellUnavailable(error, context)
            cacheUsable = false
        }

        let url: TokenURL
        if let explicitURL {
            url = explicitURL
        } else if let text = config.tokenURL {
            url = try TokenURL(text, source: "the config's tokenUrl")
        } else {
            throw LommeError.failure(.tokenURLMissing, "no token URL: pass --token-url or put tokenUrl in the config")
        }
        let requested = TokenCache.nowMilliseconds()
        let token = try Self.fetch(url, config: config, timeouts: timeouts)
        var remaining = token.expiresIn
        if cacheUsable, let key, let session {
            do {
                if let entry = try TokenCache.store(description, fingerprint: fingerprint, key: key, token: token, requested: requested,
                                                    notAfter: TokenCache.bootMilliseconds(unixSeconds: session), keyring: context.keyring) {
                    remaining = entry.remaining()
                }
            } catch {
                Self.tellUnavailable(error, context)
            }
        }
        return Outcome(token: token, remaining: remaining, fromCache: false)
    }

    /// One client-credentials request; every failure is one line without a secret.
    package static func fetch(_ url: TokenURL, config: Config, timeouts: Timeouts) throws(LommeError) -> AccessToken {
        let authorization = TokenRequest.basicAuthorization(clientId: config.clientId, clientSecret: config.clientSecret)
        let endpoint = "the token endpoint \(url.shown)"
        let answer: HTTPClient.Answer
        do {
            answer = try HTTPClient.postForm(url, authorization: authorization, body: TokenRequest.body,
                                             connectTimeout: timeouts.connect, totalTimeout: timeouts.total)
        } catch {
            throw message(for: error, endpoint: endpoint, timeouts: timeouts)
        }
        return try TokenResponse.interpret(status: answer.status, body: answer.body, contentType: answer.contentType, endpoint: endpoint)
    }

    static func message(for failure: HTTPClient.Failure, endpoint: String, timeouts: Timeouts) -> LommeError {
        func seconds(_ value: Double) -> String {
            value == value.rounded() && value >= 1 ? DurationText.format(UInt64(value)) : "\(value)s"
        }
        switch failure {
        case .noLibrary(let detail):
            return LommeError.failure(.libraryMissing, "`lomme-vault token` needs libcurl: \(detail)")
        case .unreachable(let detail):
            return LommeError(.token, .tokenEndpointUnreachable, "cannot reach \(endpoint): \(detail)")
        case .timeout:
            return LommeError(.token, .tokenEndpointTimedOut, "\(endpoint) did not answer in time (connect \(seconds(timeouts.connect)), total \(seconds(timeouts.total))); check the network, or raise --timeout")
        case .tls(let detail):
            return LommeError(.token, .tokenTLSFailed, "TLS with \(endpoint) failed: \(detail); check the URL and the system's CA certificates")
        case .tooLarge:
            return LommeError(.token, .tokenAnswerTooLarge, "\(endpoint) sent an answer larger than \(HTTPClient.maximumAnswer / 1024) KiB; that is not a token")
        case .refusedURL(let detail):
            return LommeError.failure(.tokenURLRefused, "cannot use the token URL: \(detail)")
        case .other(let detail):
            return LommeError(.token, .tokenRequestFailed, "the request to \(endpoint) failed: \(detail)")
        }
    }
}
