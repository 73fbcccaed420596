import Glibc
import LommeCore

/// A token endpoint's URL, checked before any connection: `https://` anywhere, plain
/// `http://` only to a loopback address written literally (127.0.0.0/8 as a dotted quad,
/// [::1], or `localhost` exactly), no credentials inside the URL.
package struct TokenURL: Sendable, Equatable {
    /// The URL exactly as given (what the request goes to and the cache is keyed by).
    package let text: String
    package let isHTTPS: Bool
    /// The host as written (without brackets for IPv6).
    package let host: String
    package let isLoopback: Bool

    /// The URL without query or fragment, for messages.
    package var shown: String {
        let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? text.endIndex
        return String(text[..<cut])
    }

    /// Checks `text`; `source` names where it came from for the message ("--token-url",
    /// "the config's tokenUrl"). Text that is not a URL this could use (no http(s)://, a
    /// bad host or port) is an error with the code `malformed` (a usage error for an
    /// option); a URL the rules refuse (plain http:// off this machine, a password in it)
    /// is always exit 1.
    package init(_ text: String, source: String = "the token URL", malformed: LommeError.Code = .failure) throws(LommeError) {
        func refuse(_ why: String) -> LommeError { LommeError(malformed, .tokenURLMalformed, "\(source) \(why)") }
        guard !text.isEmpty else { throw refuse("is empty") }
        guard text.utf8.count <= 2048 else { throw refuse("is longer than 2048 characters") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw refuse("holds a space, a control character or a non-ASCII character; percent-encode it (and write the host in punycode)")
        }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            isHTTPS = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            isHTTPS = false
            rest = text.dropFirst(7)
        } else {
            throw refuse("must start with https:// (\"\(JSON.printable(text))\" does not)")
        }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        if authority.contains("@") {
            throw LommeError.failure(.tokenURLHasCredentials, "\(source) holds a user name or password before @; lomme-vault sends the client id and secret itself, so leave them out of the URL")
        }
        var host: Substring
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("has an IPv6 address without its closing ]") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("has something other than :PORT after the IPv6 address") }
                port = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw refuse("has no host name") }
        let hostCharacters = authority.hasPrefix("[") ? "0123456789abcdefABCDEF:." : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_"
        guard host.allSatisfy(hostCharacters.contains) else {
            throw refuse("has a host with a character a host name cannot hold (\"\(JSON.printable(String(host)))\"); write the host name in punycode, or the address")
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), (1...65535).contains(number) else {
                throw refuse("has a port that is not a number from 1 to 65535")
            }
        }
        self.text = text
        self.host = String(host)
        isLoopback = TokenURL.isLoopback(host: String(host))
        if !isHTTPS && !isLoopback {
            throw LommeError.failure(.tokenURLNotHTTPS, "refusing plain http:// to \(self.host) (\(source)); use https:// — plain http is allowed only to this machine, written as 127.0.0.1 (any 127.x.y.z), [::1] or localhost")
        }
    }

    /// True only for a loopback host written so that no resolver is asked and no other
    /// spelling is guessed at: `localhost` exactly (lower case, no trailing dot — libcurl
    /// answers it itself), a dotted quad in 127.0.0.0/8 (four decimal parts, no leading
    /// zeros: not `127.1`, `0x7f.1` or `0.0.0.0`), or `::1` (any spelling of that one
    /// address; not a v4-mapped `::ffff:127.0.0.1`). `localhost.`, `LOCALHOST`,
    /// `localhost.example` and names that resolve to 127.0.0.1 are not loopback here.
    package static func isLoopback(host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1
        }
        return false
    }
}

/// The client-credentials request (RFC 6749 §4.4): the body and the Basic header.
package enum TokenRequest {
    package static let body = "grant_type=client_credentials"

    /// The bytes the original app kept as they are; every other UTF-8 byte becomes
    /// `%XX` (uppercase hex), a space too (`%20`, never `+`).
    static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "~"),
             UInt8(ascii: "*"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"):
            return true
        default:
            return false
        }
    }

    static func encodedLength(_ text: String) -> Int {
        text.utf8.reduce(0) { $0 + (isKept($1) ? 1 : 3) }
    }

    /// Writes the form encoding of `text` at `output[offset...]`; returns the new offset.
    static func encode(_ text: String, into output: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        let hex = Array("0123456789ABCDEF".utf8)
        var index = offset
        for byte in text.utf8 {
            if isKept(byte) {
                output[index] = byte
                index += 1
            } else {
                output[index] = UInt8(ascii: "%")
                output[index + 1] = hex[Int(byte >> 4)]
                output[index + 2] = hex[Int(byte & 15)]
                index += 3
            }
        }
        return index
    }

    /// The form encoding of `text` (for tests; the request builds it in locked memory).
    static func formEncoded(_ text: String) -> String {
        let buffer = SecureBytes(count: encodedLength(text))
        buffer.withUnsafeMutableBytes { _ = encode(text, into: $0, at: 0) }
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    static let headerPrefix = Array("Authorization: Basic ".utf8)

    /// `Authorization: Basic base64(form(id) ":" form(secret))` as one NUL-terminated
    /// header line, built in sodium-allocated memory. The secret's encoded copy never
    /// leaves locked memory on this side (libcurl copies the line; its copy is wiped
    /// before it is freed).
    package static func basicAuthorization(clientId: String, clientSecret: String) -> SecureBytes {
        let plainLength = encodedLength(clientId) + 1 + encodedLength(clientSecret)
        let plain = SecureBytes(count: plainLength)
        plain.withUnsafeMutableBytes { output in
            var offset = encode(clientId, into: output, at: 0)
            output[offset] = UInt8(ascii: ":")
            offset = encode(clientSecret, into: output, at: offset + 1)
            precondition(offset == plainLength)
        }
        let line = SecureBytes(count: headerPrefix.count + Sodium.base64Length(plainLength) + 1)
        line.withUnsafeMutableBytes { output in
            output.baseAddress!.copyMemory(from: headerPrefix, byteCount: headerPrefix.count)
            plain.withUnsafeBytes { input in
                Sodium.base64(input, into: UnsafeMutableRawBufferPointer(rebasing: output[headerPrefix.count...]))
            }
        }
        return line
    }
}
