import LommeCore

/// An access token as the endpoint issued it.
package struct AccessToken: Sendable, Equatable {
    package var accessToken: String
    package var tokenType: String
    /// Seconds the token lives from issue, when the endpoint said (RFC 6749 makes it optional).
    package var expiresIn: UInt64?

    package init(accessToken: String, tokenType: String, expiresIn: UInt64?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }

    /// The longest access token accepted (a JWT with many claims is a few KiB).
    package static let maximumLength = 8192
    /// The longest lifetime taken at its word (ten years); more is a malformed answer.
    package static let maximumLifetime: UInt64 = 10 * 365 * 24 * 3600
}

/// Reads the token endpoint's answer strictly (RFC 6749 §5.1 and §5.2). Every refusal is
/// exit 8 with one line that never quotes the token.
package enum TokenResponse {
    package static func interpret(status: Int, body: [UInt8], contentType: String, endpoint: String) throws(LommeError) -> AccessToken {
        func fail(_ reason: LommeError.Reason, _ message: String) -> LommeError { LommeError(.token, reason, message) }
        switch status {
        case 200:
            return try parseSuccess(body, contentType: contentType, endpoint: endpoint)
        case 400, 401:
            let (code, description) = errorFields(body)
            let said = description.map { " (\($0))" } ?? ""
            switch code {
            case "invalid_client":
                throw fail(.tokenClientRefused, "the client secret was refused — ask for a new QR (\(endpoint) answered invalid_client\(said))")
            case nil where status == 401:
                throw fail(.tokenClientRefused, "the client secret was refused — ask for a new QR (\(endpoint) answered HTTP 401)")
            case "unauthorized_client":
                throw fail(.tokenGrantRefused, "\(endpoint) does not let this client use the client-credentials grant (unauthorized_client\(said)); ask the bank or the parent for a client that may")
            case let code?:
                throw fail(.tokenRequestRefused, "\(endpoint) refused the token request: \(code)\(said)")
            case nil:
                throw fail(.tokenRequestRefused, "\(endpoint) refused the token request with HTTP 400 and no OAuth error; check the token URL")
            }
        case 500...599:
            throw fail(.tokenServerFailed, "\(endpoint) failed with HTTP \(status); try again later")
        default:
            throw fail(.tokenAnswerUnexpected, "\(endpoint) answered HTTP \(status), not a token; check the token URL")
        }
    }

    /// `error` and `error_description` of an error answer, made safe to print.
    static func errorFields(_ body: [UInt8]) -> (String?, String?) {
        guard let json = try? JSON.parse(body), case .object = json, let code = json["error"]?.stringValue else { return (nil, nil) }
        let cleanCode = code.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) && code.count <= 64 ? code : "an unreadable error"
        let description = json["error_description"]?.stringValue.map { JSON.printable($0) }.flatMap { $0.isEmpty ? nil : $0 }
        return (cleanCode, description)
    }

    static func parseSuccess(_ body: [UInt8], contentType: String, endpoint: String) throws(LommeError) -> AccessToken {
        func malformed(_ why: String) -> LommeError {
            LommeError(.token, .tokenAnswerMalformed, "\(endpoint) answered, but not with a token: \(why)")
        }
        let json: JSON
        do {
            json = try JSON.parse(body)
        } catch {
            let type = contentType.isEmpty ? "" : " (it sent \(JSON.printable(contentType)))"
            throw malformed(body.isEmpty ? "the answer is empty" : "the answer is not JSON\(type): \(error.reason)")
        }
        guard case .object = json else { throw malformed("the answer is JSON but not an object") }
        guard let tokenValue = json["access_token"] else { throw malformed("access_token is missing") }
        guard case .string(let token) = tokenValue else { throw malformed("access_token is not a string") }
        guard !token.isEmpty else { throw malformed("access_token is empty") }
        guard token.utf8.count <= AccessToken.maximumLength else {
            throw malformed("access_token is longer than \(AccessToken.maximumLength) bytes")
        }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw malformed("access_token holds a space, a control or a non-ASCII character, so it cannot be sent in a header")
        }
        guard let typeValue = json["token_type"] else { throw malformed("token_type is missing") }
        guard case .string(let type) = typeValue else { throw malformed("token_type is not a string") }
        guard type.lowercased() == "bearer" else {
            throw malformed("token_type is \"\(JSON.printable(type))\"; lomme-vault handles only Bearer tokens")
        }
        var expiresIn: UInt64?
        switch json["expires_in"] {
        case nil:
            expiresIn = nil
        case .some(.number(let literal)):
            guard literal.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let seconds = UInt64(literal) else {
                throw malformed("expires_in is \(JSON.printable(literal)), not a whole number of seconds")
            }
            guard seconds <= AccessToken.maximumLifetime else { throw malformed("expires_in is more than ten years") }
            expiresIn = seconds
        case .some:
            throw malformed("expires_in is not a number")
        }
        return AccessToken(accessToken: token, tokenType: type, expiresIn: expiresIn)
    }
}
