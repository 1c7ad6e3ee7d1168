#include "world/http.h"
#include "world/curl_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#define AM_HTTP_MAX_REPLY ((size_t)16 << 20)

typedef struct sink {
    am_buf *buf;
    int overflow;
    int nomem;
} sink;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    if (s->buf->size + n > AM_HTTP_MAX_REPLY) {
        s->overflow = 1;
        return 0; /* aborts the transfer */
    }
    if (am_buf_append(s->buf, ptr, n, NULL)) {
        s->nomem = 1;
        return 0;
    }
    return n;
}

static am_http_failure classify(CURLcode c, long status)
{
    /* A status line arrived and then the connection went: the reply was cut. */
    if (status > 0 &&
        (c == CURLE_PARTIAL_FILE || c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR || c == CURLE_GOT_NOTHING))
        return AM_HTTP_CUT;
    switch (c) {
    case CURLE_COULDNT_CONNECT:
        return AM_HTTP_REFUSED;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE: return AM_HTTP_DROPPED;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return AM_HTTP_DNS;
    case CURLE_OPERATION_TIMEDOUT:
        return AM_HTTP_TIMEOUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
        return AM_HTTP_TLS;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return AM_HTTP_BAD_URL;
    default:
        return AM_HTTP_OTHER;
    }
}

const char *am_http_failure_text(am_http_failure f)
{
    switch (f) {
    case AM_HTTP_REPLIED: return "replied";
    case AM_HTTP_REFUSED: return "connection refused";
    case AM_HTTP_DROPPED: return "connection dropped before a reply";
    case AM_HTTP_CUT: return "connection dropped in the middle of the reply";
    case AM_HTTP_DNS: return "host name did not resolve";
    case AM_HTTP_TIMEOUT: return "timed out";
    case AM_HTTP_TLS: return "TLS error";
    case AM_HTTP_BAD_URL: return "bad URL";
    default: return "transfer failed";
    }
}

am_status am_http_post(const am_http_request *req, am_http_reply *reply, am_error *err)
{
    memset(reply, 0, sizeof *reply);
    am_curl_api curl;
    am_status loaded = am_curl_open(&curl, err);
    if (loaded)
        return loaded;
    CURL *c = curl.easy_init();
    if (!c)
        return am_fail(err, AM_ERR_NOMEM, "cannot start libcurl");
    struct curl_slist *hdrs = NULL, *t;
    char ct[128];
    snprintf(ct, sizeof ct, "Content-Type: %s", req->content_type ? req->content_type : "application/octet-stream");
    am_status st = AM_OK;
    /* An empty Expect stops curl waiting for "100 Continue" on larger bodies. */
    const char *fixed[] = {ct, "Expect:", NULL};
    for (int i = 0; fixed[i] && !st; i++) {
        t = curl.slist_append(hdrs, fixed[i]);
        if (!t)
            st = am_fail_nomem(err, "HTTP headers");
        else
            hdrs = t;
    }
    for (size_t i = 0; !st && req->headers && req->headers[i]; i++) {
        t = curl.slist_append(hdrs, req->headers[i]);
        if (!t)
            st = am_fail_nomem(err, "HTTP headers");
        else
            hdrs = t;
    }
    if (st) {
        curl.slist_free_all(hdrs);
        curl.easy_cleanup(c);
        return st;
    }
    sink s = {&reply->body, 0, 0};
    char errbuf[CURL_ERROR_SIZE] = "";
    curl.easy_setopt(c, CURLOPT_URL, req->url);
    curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(c, CURLOPT_POST, 1L);
    curl.easy_setopt(c, CURLOPT_POSTFIELDS, req->body ? req->body : "");
    curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_size);
    curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl.easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms > 0 ? req->connect_timeout_ms : 5000L);
    curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, req->total_timeout_ms > 0 ? req->total_timeout_ms : 60000L);
    curl.easy_setopt(c, CURLOPT_USERAGENT, "animesh/" AM_VERSION);
    CURLcode rc = curl.easy_perform(c);
    if (s.nomem) {
        st = am_fail_nomem(err, "HTTP reply");
    } else if (s.overflow) {
        reply->failure = AM_HTTP_OTHER;
        snprintf(reply->detail, sizeof reply->detail, "reply larger than %zu bytes", AM_HTTP_MAX_REPLY);
    } else if (rc != CURLE_OK) {
        long seen = 0;
        curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &seen);
        reply->failure = classify(rc, seen);
        snprintf(reply->detail, sizeof reply->detail, "%s", errbuf[0] ? errbuf : curl.easy_strerror(rc));
    } else {
        reply->failure = AM_HTTP_REPLIED;
        curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply->status);
    }
    curl.slist_free_all(hdrs);
    curl.easy_cleanup(c);
    if (st)
        am_http_reply_free(reply);
    return st;
}

void am_http_reply_free(am_http_reply *reply)
{
    am_buf_free(&reply->body);
}

void am_http_snippet(const am_buf *body, size_t max, const am_secrets *secrets, char *out, size_t out_size)
{
    am_secret_snippet(body->data, body->size, secrets, max, out, out_size);
}

void am_http_redact_url(const char *url, char *out, size_t out_size)
{
    const char *scheme = strstr(url, "://");
    const char *host = scheme ? scheme + 3 : url;
    const char *end = host + strcspn(host, "/?#");
    const char *at = NULL;
    for (const char *p = host; p < end; p++)
        if (*p == '@')
            at = p;
    if (!at) {
        snprintf(out, out_size, "%s", url);
        return;
    }
    snprintf(out, out_size, "%.*s%s", (int)(host - url), url, at + 1);
}

bool am_http_url_is_loopback(const char *url)
{
    const char *scheme = url ? strstr(url, "://") : NULL;
    if (!scheme)
        return false;
    const char *host = scheme + 3;
    const char *end = host + strcspn(host, "/?#");
    for (const char *p = host; p < end; p++)
        if (*p == '@')
            host = p + 1; /* after any user:password@ */
    char h[256];
    size_t n;
    if (*host == '[') {
        const char *close = memchr(host, ']', (size_t)(end - host));
        if (!close)
            return false;
        host++;
        n = (size_t)(close - host);
    } else {
        n = strcspn(host, ":/?#");
    }
    if (n == 0 || n >= sizeof h)
        return false;
    memcpy(h, host, n);
    h[n] = '\0';
    if (h[n - 1] == '.')
        h[--n] = '\0';
    if (strcasecmp(h, "localhost") == 0)
        return true;
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, h, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, h, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}
