#include "http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <microhttpd.h>

#define MAX_BODY ((size_t)64 << 20)
#define MAX_REQUESTS 256

struct am_test_http_server {
    struct MHD_Daemon *daemon;
    unsigned port;
    am_test_http_handler handler;
    void *user;
    pthread_mutex_t lock;
    int stopping;
    am_test_http_request reqs[MAX_REQUESTS];
    size_t count;
};

typedef struct upload {
    char *data;
    size_t size, cap;
    int too_big;
} upload;

static void copy_header(struct MHD_Connection *c, const char *name, char *out, size_t size)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    snprintf(out, size, "%s", v ? v : "");
}

static enum MHD_Result reply(struct MHD_Connection *c, int status, const char *body, const char *ctype)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", ctype);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

/* A body sent only up to `cut` bytes of its announced length. */
typedef struct cut_body {
    char *data;
    size_t size, cut;
} cut_body;

static ssize_t read_cut(void *cls, uint64_t pos, char *buf, size_t max)
{
    cut_body *c = cls;
    if (pos >= c->cut)
        return MHD_CONTENT_READER_END_WITH_ERROR; /* closes the connection mid-body */
    size_t n = c->cut - (size_t)pos < max ? c->cut - (size_t)pos : max;
    memcpy(buf, c->data + pos, n);
    return (ssize_t)n;
}

static void free_cut(void *cls)
{
    cut_body *c = cls;
    free(c->data);
    free(c);
}

static enum MHD_Result reply_cut(struct MHD_Connection *c, int status, const char *body, const char *ctype, size_t cut)
{
    cut_body *cb = calloc(1, sizeof *cb);
    if (!cb)
        return MHD_NO;
    cb->size = strlen(body);
    cb->cut = cut < cb->size ? cut : cb->size;
    cb->data = malloc(cb->size + 1);
    if (!cb->data) {
        free(cb);
        return MHD_NO;
    }
    memcpy(cb->data, body, cb->size + 1);
    struct MHD_Response *r = MHD_create_response_from_callback(cb->size, 1024, read_cut, cb, free_cut);
    if (!r) {
        free_cut(cb);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *data_size, void **con_cls)
{
    am_test_http_server *s = cls;
    upload *u = *con_cls;
    if (!u) {
        u = calloc(1, sizeof *u);
        if (!u)
            return MHD_NO;
        *con_cls = u;
        return MHD_YES;
    }
    if (*data_size) {
        if (u->size + *data_size > MAX_BODY) {
            u->too_big = 1;
        } else {
            if (u->size + *data_size + 1 > u->cap) {
                size_t cap = (u->size + *data_size + 1) * 2;
                char *nd = realloc(u->data, cap);
                if (!nd)
                    return MHD_NO;
                u->data = nd;
                u->cap = cap;
            }
            memcpy(u->data + u->size, data, *data_size);
            u->size += *data_size;
        }
        *data_size = 0;
        return MHD_YES;
    }
    if (u->too_big)
        return reply(c, 413, "{\"ok\":false,\"error\":\"too big\"}", "application/json");

    am_test_http_request rq;
    memset(&rq, 0, sizeof rq);
    snprintf(rq.method, sizeof rq.method, "%s", method);
    snprintf(rq.path, sizeof rq.path, "%s", url);
    copy_header(c, "Content-Type", rq.content_type, sizeof rq.content_type);
    copy_header(c, "Authorization", rq.authorization, sizeof rq.authorization);
    copy_header(c, "Idempotency-Key", rq.idempotency_key, sizeof rq.idempotency_key);
    rq.body = malloc(u->size + 1);
    if (!rq.body)
        return MHD_NO;
    if (u->size)
        memcpy(rq.body, u->data, u->size);
    rq.body[u->size] = '\0';
    rq.body_size = u->size;

    am_test_http_response resp;
    memset(&resp, 0, sizeof resp);
    resp.status = 200;
    snprintf(resp.content_type, sizeof resp.content_type, "application/json");
    pthread_mutex_lock(&s->lock);
    s->handler(&rq, &resp, s->user);
    if (s->count < MAX_REQUESTS)
        s->reqs[s->count++] = rq;
    else
        free(rq.body);
    pthread_mutex_unlock(&s->lock);

    /* Hang in short slices so stopping the server never waits long. */
    for (int waited = 0; waited < resp.hang_ms; waited += 10) {
        pthread_mutex_lock(&s->lock);
        int stop = s->stopping;
        pthread_mutex_unlock(&s->lock);
        if (stop)
            break;
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (resp.drop)
        return MHD_NO; /* MHD closes the connection: no status line at all */
    if (resp.cut_after)
        return reply_cut(c, resp.status, resp.body, resp.content_type, resp.cut_after);
    return reply(c, resp.status, resp.body, resp.content_type);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
        *con_cls = NULL;
    }
}

am_test_http_server *am_test_http_start(am_test_http_handler handler, void *user)
{
    am_test_http_server *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->handler = handler;
    s->user = user;
    pthread_mutex_init(&s->lock, NULL);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
                                 on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned)10, MHD_OPTION_END);
    if (!s->daemon)
        fail_msg("cannot start the test HTTP server on 127.0.0.1");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (!info || !info->port)
        fail_msg("test HTTP server has no port");
    s->port = info->port;
    return s;
}

unsigned am_test_http_port(const am_test_http_server *s)
{
    return s->port;
}

void am_test_http_stop(am_test_http_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    pthread_mutex_unlock(&s->lock);
    MHD_stop_daemon(s->daemon);
    for (size_t i = 0; i < s->count; i++)
        free(s->reqs[i].body);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

size_t am_test_http_count(am_test_http_server *s)
{
    pthread_mutex_lock(&s->lock);
    size_t n = s->count;
    pthread_mutex_unlock(&s->lock);
    return n;
}

void am_test_http_get(am_test_http_server *s, size_t i, am_test_http_request *out)
{
    pthread_mutex_lock(&s->lock);
    assert_true(i < s->count);
    *out = s->reqs[i];
    out->body = malloc(out->body_size + 1);
    assert_non_null(out->body);
    memcpy(out->body, s->reqs[i].body, out->body_size + 1);
    pthread_mutex_unlock(&s->lock);
}

unsigned am_test_closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    socklen_t len = sizeof addr;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
    close(fd);
    return ntohs(addr.sin_port);
}
