// libcurl, loaded on first use. Linking it would make every start of the tool load
// libcurl and what it links (OpenSSL, nghttp2, libssh2, GSSAPI, LDAP, …), which costs
// `get` time for nothing; dlopen keeps that cost inside `token`.
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lomme_curl.h"

typedef CURL *(*easy_init_f)(void);
typedef CURLcode (*easy_setopt_f)(CURL *, CURLoption, ...);
typedef CURLcode (*easy_perform_f)(CURL *);
typedef CURLcode (*easy_getinfo_f)(CURL *, CURLINFO, ...);
typedef void (*easy_cleanup_f)(CURL *);
typedef const char *(*easy_strerror_f)(CURLcode);
typedef struct curl_slist *(*slist_append_f)(struct curl_slist *, const char *);
typedef void (*slist_free_all_f)(struct curl_slist *);

static struct {
    void *handle;
    easy_init_f easy_init;
    easy_setopt_f easy_setopt;
    easy_perform_f easy_perform;
    easy_getinfo_f easy_getinfo;
    easy_cleanup_f easy_cleanup;
    easy_strerror_f easy_strerror;
    slist_append_f slist_append;
    slist_free_all_f slist_free_all;
} curl;

static void say(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, size, format, arguments);
    va_end(arguments);
}

static int load(char *message, size_t message_size) {
    if (curl.handle) return 0;
    static const char *names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4"};
    void *handle = NULL;
    const char *first_error = NULL;
    char first[256] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !handle; i++) {
        handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!handle && !first_error) {
            first_error = dlerror();
            snprintf(first, sizeof first, "%s", first_error ? first_error : names[i]);
        }
    }
    if (!handle) {
        say(message, message_size, "cannot load libcurl (install the Debian package libcurl4): %s", first);
        return -1;
    }
#define FIND(field, symbol)                                                              \
    do {                                                                                 \
        *(void **)(&curl.field) = dlsym(handle, symbol);                                 \
        if (!curl.field) {                                                               \
            say(message, message_size, "the loaded libcurl has no %s; it is too old", symbol); \
            dlclose(handle);                                                             \
            memset(&curl, 0, sizeof curl);                                               \
            return -1;                                                                   \
        }                                                                                \
    } while (0)
    FIND(easy_init, "curl_easy_init");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_perform, "curl_easy_perform");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
#undef FIND
    curl.handle = handle;
    return 0;
}

int lv_http_library_loaded(void) { return curl.handle != NULL; }

struct sink {
    unsigned char *data;
    size_t length;
    size_t limit;
    int overflow;
};

static size_t collect(char *pointer, size_t size, size_t count, void *context) {
    struct sink *sink = context;
    size_t bytes = size * count;
    if (bytes > sink->limit - sink->length) {
        sink->overflow = 1;
        return 0;  // makes curl stop with CURLE_WRITE_ERROR
    }
    memcpy(sink->data + sink->length, pointer, bytes);
    sink->length += bytes;
    return bytes;
}

void lv_http_free(unsigned char *response, size_t length) {
    if (!response) return;
    volatile unsigned char *p = response;
    for (size_t i = 0; i < length; i++) p[i] = 0;
    free(response);
}

/// curl_slist_append keeps its own copy of each line, the Basic credentials among them:
/// wipe the copies before curl frees them.
static void wipe_and_free(struct curl_slist *headers) {
    for (struct curl_slist *node = headers; node; node = node->next) {
        if (node->data) {
            volatile char *p = node->data;
            while (*p) *p++ = 0;
        }
    }
    curl.slist_free_all(headers);
}

static int classify(CURLcode code) {
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
        return LV_HTTP_UNREACHABLE;
    case CURLE_OPERATION_TIMEDOUT:
        return LV_HTTP_TIMEOUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return LV_HTTP_TLS;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return LV_HTTP_REFUSED_URL;
    default:
        return LV_HTTP_OTHER;
    }
}

int lv_http_post(const char *url, const char *authorization, const char *body,
                 long connect_timeout_ms, long total_timeout_ms, int allow_http,
                 size_t max_response, const char *user_agent,
                 unsigned char **response, size_t *response_length, long *status,
                 char *content_type, size_t content_type_size,
                 char *message, size_t message_size) {
    *response = NULL;
    *response_length = 0;
    *status = 0;
    if (content_type && content_type_size) content_type[0] = 0;
    if (load(message, message_size) != 0) return LV_HTTP_NO_LIBRARY;

    CURL *easy = curl.easy_init();
    if (!easy) {
        say(message, message_size, "libcurl could not start a transfer");
        return LV_HTTP_OTHER;
    }
    struct sink sink = {malloc(max_response ? max_response : 1), 0, max_response, 0};
    if (!sink.data) {
        curl.easy_cleanup(easy);
        say(message, message_size, "out of memory");
        return LV_HTTP_OTHER;
    }
    struct curl_slist *headers = NULL;
    headers = curl.slist_append(headers, "Accept: application/json");
    headers = curl.slist_append(headers, "Content-Type: application/x-www-form-urlencoded");
    headers = curl.slist_append(headers, "Expect:");  // no 100-continue round trip
    if (authorization) headers = curl.slist_append(headers, authorization);

    char errors[CURL_ERROR_SIZE] = "";
    const char *protocols = allow_http ? "http,https" : "https";
    CURLcode set = CURLE_OK;
#define SET(option, value) if (set == CURLE_OK) set = curl.easy_setopt(easy, option, value)
    SET(CURLOPT_ERRORBUFFER, errors);
    SET(CURLOPT_URL, url);
    SET(CURLOPT_PROTOCOLS_STR, protocols);
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, total_timeout_ms);
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDS, body);
    SET(CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    SET(CURLOPT_WRITEFUNCTION, collect);
    SET(CURLOPT_WRITEDATA, &sink);
    SET(CURLOPT_USERAGENT, user_agent);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
    // Loopback traffic never goes through a proxy (an http:// request would hand the
    // credentials to it in clear text); https:// honours https_proxy as curl does.
    if (allow_http) SET(CURLOPT_NOPROXY, "*");
#undef SET
    if (set != CURLE_OK) {
        say(message, message_size, "libcurl refused an option: %s", curl.easy_strerror(set));
        curl.easy_cleanup(easy);
        wipe_and_free(headers);
        lv_http_free(sink.data, max_response);
        return LV_HTTP_OTHER;
    }

    CURLcode code = curl.easy_perform(easy);
    int result = LV_HTTP_OK;
    if (code != CURLE_OK) {
        if (sink.overflow) {
            result = LV_HTTP_TOO_LARGE;
            say(message, message_size, "the answer is larger than %zu bytes", max_response);
        } else {
            result = classify(code);
            say(message, message_size, "%s", errors[0] ? errors : curl.easy_strerror(code));
        }
    } else {
        curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
        char *type = NULL;
        if (curl.easy_getinfo(easy, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type && content_type)
            snprintf(content_type, content_type_size, "%s", type);
    }
    curl.easy_cleanup(easy);
    wipe_and_free(headers);
    if (result == LV_HTTP_OK) {
        *response = sink.data;
        *response_length = sink.length;
    } else {
        lv_http_free(sink.data, max_response);
    }
    return result;
}
