import CLommeSystem
import Glibc
import LommeCore

/// One form POST through libcurl, loaded on first use by the C glue (`lv_http_post`),
/// so no other command pays for an HTTP stack at start-up.
package enum HTTPClient {
    package struct Answer: Sendable {
        package var status: Int
        package var body: [UInt8]
        package var contentType: String
    }

    package enum Failure: Error, Sendable, Equatable {
        case noLibrary(String)
        case unreachable(String)
        case timeout(String)
        case tls(String)
        case tooLarge(String)
        case refusedURL(String)
        case other(String)
    }

    package static let maximumAnswer = 64 * 1024

    /// True once libcurl is loaded into this process.
    static var libraryLoaded: Bool { lv_http_library_loaded() != 0 }

    /// POSTs `body` to `url`. `authorization` is a NUL-terminated header line.
    /// Plain http is passed to libcurl only for a loopback URL (checked again here).
    package static func postForm(_ url: TokenURL, authorization: SecureBytes?, body: String,
                                connectTimeout: Double, totalTimeout: Double) throws(Failure) -> Answer {
        if !url.isHTTPS && !url.isLoopback { throw .refusedURL("plain http:// is allowed only to loopback") }
        var response: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        var status = 0
        var contentType = [CChar](repeating: 0, count: 256)
        var message = [CChar](repeating: 0, count: 512)
        let allowHTTP: Int32 = url.isHTTPS ? 0 : 1
        let agent = "lomme-vault/\(LommeVersion.string)"
        let result: Int32
        if let authorization {
            result = authorization.withUnsafeBytes { header in
                lv_http_post(url.text, header.baseAddress!.assumingMemoryBound(to: CChar.self), body,
                             Int(connectTimeout * 1000), Int(totalTimeout * 1000), allowHTTP, maximumAnswer, agent,
                             &response, &length, &status, &contentType, contentType.count, &message, message.count)
            }
        } else {
            result = lv_http_post(url.text, nil, body, Int(connectTimeout * 1000), Int(totalTimeout * 1000), allowHTTP,
                                  maximumAnswer, agent, &response, &length, &status, &contentType, contentType.count,
                                  &message, message.count)
        }
        let text = cText(message)
        switch Int(result) {
        case LV_HTTP_OK:
            var bytes: [UInt8] = []
            if let response {
                bytes = Array(UnsafeBufferPointer(start: response, count: length))
                lv_http_free(response, length)
            }
            return Answer(status: status, body: bytes, contentType: cText(contentType))
        case LV_HTTP_NO_LIBRARY: throw .noLibrary(text)
        case LV_HTTP_UNREACHABLE: throw .unreachable(text)
        case LV_HTTP_TIMEOUT: throw .timeout(text)
        case LV_HTTP_TLS: throw .tls(text)
        case LV_HTTP_TOO_LARGE: throw .tooLarge(text)
        case LV_HTTP_REFUSED_URL: throw .refusedURL(text)
        default: throw .other(text)
        }
    }

    /// The text of a NUL-terminated C buffer.
    static func cText(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
