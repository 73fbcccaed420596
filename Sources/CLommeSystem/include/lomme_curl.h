#ifndef LOMME_CURL_H
#define LOMME_CURL_H
#include <stddef.h>

/// One HTTPS (or loopback HTTP) POST through libcurl, which is loaded with dlopen on
/// first use: `get` and the other commands never load libcurl, OpenSSL and the rest of
/// an HTTP stack at start-up.

/// What went wrong, for the caller to word a message (the detail is in `message`).
enum {
    LV_HTTP_OK = 0,            ///< an HTTP answer arrived; see `status`
    LV_HTTP_NO_LIBRARY = 1,    ///< libcurl.so.4 could not be loaded
    LV_HTTP_UNREACHABLE = 2,   ///< name not resolved, connection refused, network down
    LV_HTTP_TIMEOUT = 3,       ///< connect or total timeout
    LV_HTTP_TLS = 4,           ///< TLS handshake or certificate verification failed
    LV_HTTP_TOO_LARGE = 5,     ///< the answer was larger than `max_response`
    LV_HTTP_REFUSED_URL = 6,   ///< scheme not allowed, or a malformed URL
    LV_HTTP_OTHER = 7,         ///< any other transfer failure
};

/// POSTs `body` (application/x-www-form-urlencoded) to `url` with `Accept:
/// application/json` and, when not NULL, the header line `authorization` (the whole
/// line, "Authorization: Basic …"). No redirects, no cookies, no proxy for loopback.
/// `allow_http` 0 allows only https://; 1 also http:// (the caller has checked the host
/// is loopback). On LV_HTTP_OK, `*response` is a malloc'ed buffer (free with
/// lv_http_free, which wipes it first) of `*response_length` bytes, and `*status` the
/// HTTP status. Otherwise `message` holds one line of explanation.
int lv_http_post(const char *url, const char *authorization, const char *body,
                 long connect_timeout_ms, long total_timeout_ms, int allow_http,
                 size_t max_response, const char *user_agent,
                 unsigned char **response, size_t *response_length, long *status,
                 char *content_type, size_t content_type_size,
                 char *message, size_t message_size);

/// Wipes and frees a response buffer from lv_http_post.
void lv_http_free(unsigned char *response, size_t length);

/// 1 when libcurl has been loaded into this process (for tests), else 0.
int lv_http_library_loaded(void);

#endif
