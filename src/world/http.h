/* One HTTP POST over libcurl, with the failure classified so callers can decide what is
 * safe to retry and print a message a user can act on. Shared by the WorldBridge client
 * and the RemoteAdmin (XML-RPC) client. Never logs headers: they may carry secrets. */
#ifndef AM_WORLD_HTTP_H
#define AM_WORLD_HTTP_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/io.h"
#include "core/secret.h"

/* Why a request produced no HTTP reply. */
typedef enum am_http_failure {
    AM_HTTP_REPLIED = 0, /* an HTTP status arrived (any status, 2xx or not) */
    AM_HTTP_REFUSED,     /* connection refused: the request never reached the peer */
    AM_HTTP_DROPPED,     /* connection dropped after sending, before a reply: the peer may have acted */
    AM_HTTP_CUT,         /* connection dropped in the middle of the reply (status seen, body cut) */
    AM_HTTP_DNS,         /* host name did not resolve */
    AM_HTTP_TIMEOUT,     /* connect or total timeout */
    AM_HTTP_TLS,         /* TLS handshake or certificate failure */
    AM_HTTP_BAD_URL,     /* malformed URL or unsupported scheme (not retryable) */
    AM_HTTP_OTHER        /* anything else curl reports */
} am_http_failure;

typedef struct am_http_request {
    const char *url;
    const char *content_type;   /* e.g. "application/json" */
    const char *const *headers; /* extra "Name: value" lines, NULL-terminated; may be NULL */
    const void *body;
    size_t body_size;
    long connect_timeout_ms;
    long total_timeout_ms;
} am_http_request;

typedef struct am_http_reply {
    am_http_failure failure;
    long status;     /* HTTP status when failure == AM_HTTP_REPLIED */
    am_buf body;     /* reply bytes (capped at 16 MiB); free with am_http_reply_free */
    char detail[160];/* curl's own words when there was no reply */
} am_http_reply;

/* Send the POST. Returns AM_OK whenever the exchange ended (check reply->failure and
 * reply->status); an am_error only for local problems (memory, curl setup). */
am_status am_http_post(const am_http_request *req, am_http_reply *reply, am_error *err);
void am_http_reply_free(am_http_reply *reply);

/* "connection refused", "timed out", ... for messages. */
const char *am_http_failure_text(am_http_failure f);

/* The "first bytes of the body" errors quote: up to max bytes as printable text (control
 * bytes become '.'), "..." when cut, every secret masked first (core/secret.h). */
void am_http_snippet(const am_buf *body, size_t max, const am_secrets *secrets, char *out, size_t out_size);

/* url without any "user:password@" part, for messages. */
void am_http_redact_url(const char *url, char *out, size_t out_size);

/* Whether url's host is this machine's loopback: localhost, 127.0.0.0/8 or ::1. */
bool am_http_url_is_loopback(const char *url);

#ifdef __cplusplus
}
#endif

#endif
