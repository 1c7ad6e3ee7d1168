/* A real HTTP server on 127.0.0.1 (libmicrohttpd, ephemeral port) for tests of network
 * clients. Each request is recorded; a handler supplied by the test decides the reply and
 * can make the server misbehave (error status, malformed body, hang past a timeout).
 * The handler runs under the server's lock, so it may keep its own state without locking;
 * a hang happens after the lock is released and ends early when the server stops. */
#ifndef AM_TESTS_SUPPORT_HTTP_SERVER_H
#define AM_TESTS_SUPPORT_HTTP_SERVER_H

#include <stddef.h>

typedef struct am_test_http_request {
    char method[16];
    char path[512];
    char content_type[128];
    char authorization[512];
    char idempotency_key[128];
    char *body; /* NUL-terminated copy */
    size_t body_size;
} am_test_http_request;

typedef struct am_test_http_response {
    int status;            /* default 200 */
    char body[4096];       /* default "" */
    char content_type[64]; /* default application/json */
    int hang_ms;           /* sleep this long before answering (bounded; cut short on stop) */
    int drop;              /* close the connection without any reply (after acting) */
    size_t cut_after;      /* > 0: send the status and headers for the whole body, then only
                              this many bytes of it, then close (a reply dropped midway) */
} am_test_http_response;

typedef void (*am_test_http_handler)(const am_test_http_request *req, am_test_http_response *resp, void *user);

typedef struct am_test_http_server am_test_http_server;

/* Start on 127.0.0.1 with a free port; fails the test on error. */
am_test_http_server *am_test_http_start(am_test_http_handler handler, void *user);
unsigned am_test_http_port(const am_test_http_server *s);
/* Stop (joins every connection thread) and free, with the recorded requests. */
void am_test_http_stop(am_test_http_server *s);
/* Number of requests received so far, and a copy of request i (body malloc'd: free it). */
size_t am_test_http_count(am_test_http_server *s);
void am_test_http_get(am_test_http_server *s, size_t i, am_test_http_request *out);

/* A 127.0.0.1 port where nothing listens (bound then closed): connections are refused. */
unsigned am_test_closed_port(void);

#endif
