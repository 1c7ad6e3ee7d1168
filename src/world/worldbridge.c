#include "world/worldbridge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/io.h"
#include "core/json_text.h"
#include "core/outset.h"
#include "core/secret.h"
#include "world/checks.h"
#include "world/digest.h"
#include "world/http.h"

#define AM_WORLDBRIDGE_SNIPPET 80
#define AM_WORLDBRIDGE_MAX_BACKOFF_MS 8000L

void am_worldbridge_options_init(am_worldbridge_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->connect_timeout_ms = 5000;
    opt->total_timeout_ms = 60000;
    opt->max_attempts = 4;
    opt->backoff_ms = 500;
}

void am_worldbridge_options_from_env(am_worldbridge_options *opt)
{
    const char *url = getenv("WORLDBRIDGE_URL");
    const char *tok = getenv("WORLDBRIDGE_TOKEN");
    if (url && url[0])
        opt->base_url = url;
    if (tok && tok[0])
        opt->token = tok;
}

am_status am_worldbridge_client_init(am_worldbridge_client *c, const am_worldbridge_options *opt, am_error *err)
{
    memset(c, 0, sizeof *c);
    c->opt = *opt;
    if (!opt->dry_run_dir) {
        if (!opt->base_url || !opt->base_url[0])
            return am_fail(err, AM_ERR_USAGE, "no WorldBridge URL: give the base_url option or set WORLDBRIDGE_URL");
        if (strncmp(opt->base_url, "http://", 7) != 0 && strncmp(opt->base_url, "https://", 8) != 0)
            return am_fail(err, AM_ERR_USAGE, "WorldBridge URL must start with http:// or https://");
        /* commands are appended to the path: a query or fragment would swallow them (and a
         * secret in a query would be printed with every error) */
        if (strpbrk(opt->base_url, "?#"))
            return am_fail(err, AM_ERR_USAGE,
                           "WorldBridge URL must not carry a query or fragment ('?', '#'): each command is "
                           "POSTed to <URL>/<command>; pass a token in WORLDBRIDGE_TOKEN");
    }
    /* A control character in the token would end the header and start another. */
    for (const char *t = opt->token; t && *t; t++)
        if ((unsigned char)*t < 0x20 || *t == 0x7f)
            return am_fail(err, AM_ERR_USAGE, "WORLDBRIDGE_TOKEN holds a control character");
    /* zero fields are the defaults (worldbridge.h) */
    c->opt.connect_timeout_ms = am_option_int(c->opt.connect_timeout_ms, 5000);
    c->opt.total_timeout_ms = am_option_int(c->opt.total_timeout_ms, 60000);
    c->opt.max_attempts = (int)am_option_int(c->opt.max_attempts, 4);
    c->opt.backoff_ms = am_option_int(c->opt.backoff_ms, 500);
    if (c->opt.max_attempts < 1)
        c->opt.max_attempts = 1;
    if (c->opt.backoff_ms < 0)
        c->opt.backoff_ms = 0;
    return AM_OK;
}

void am_worldbridge_result_free(am_worldbridge_result *r)
{
    if (r->reply)
        json_decref(r->reply);
    r->reply = NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The token in every spelling a bridge could echo (core/secret.h). */
static am_secrets secrets_of(const char *token)
{
    am_secrets sec = {{token}};
    return sec;
}

/* The reply's first bytes, with the token masked before they are cut. */
static void snippet(const am_buf *body, const char *token, char *out, size_t size)
{
    am_secrets sec = secrets_of(token);
    am_http_snippet(body, AM_WORLDBRIDGE_SNIPPET, &sec, out, size);
}

/* A URL for messages: no user:password@, no token. */
static void shown_url(const char *url, const char *token, char *out, size_t size)
{
    am_http_redact_url(url, out, size);
    am_secrets sec = secrets_of(token);
    am_secret_mask(out, &sec, strlen(out) + 1 >= size);
}

/* Dry run: each request becomes NN-command.json (the body) and NN-command.http (URL and
 * headers, no token) in one output set, committed by am_worldbridge_client_finish. */
static am_status dry_run(am_worldbridge_client *c, const char *command, const char *url, const char *json, size_t n,
                         am_worldbridge_result *res, am_error *err)
{
    am_status s = AM_OK;
    if (!c->dry_set && ((s = am_mkdir_p(c->opt.dry_run_dir, err)) ||
                        (s = am_outset_begin(&c->dry_set, c->opt.dry_run_dir, NULL, 0, err))))
        return s;
    char name[128];
    snprintf(name, sizeof name, "%02d-%s.json", c->sequence, command);
    /* The body is ours, but a name could hold the token: it never reaches a file. */
    am_secrets sec = secrets_of(c->opt.token);
    char *masked = malloc(n + 1);
    if (!masked)
        return am_fail_nomem(err, "dry-run body");
    memcpy(masked, json, n + 1);
    am_secret_mask_bytes((uint8_t *)masked, n, &sec, false);
    s = am_outset_add(c->dry_set, name, masked, n, err);
    free(masked);
    if (s)
        return s;
    am_buf h = {0};
    char shown[1024];
    shown_url(url, c->opt.token, shown, sizeof shown);
    s = am_buf_printf(&h, err,
                      "POST %s\nContent-Type: application/json\nContent-Length: %zu\nIdempotency-Key: %s\n%s",
                      shown, n, res->idempotency_key,
                      c->opt.token ? "Authorization: Bearer <WORLDBRIDGE_TOKEN, not written>\n" : "");
    if (!s) {
        snprintf(name, sizeof name, "%02d-%s.http", c->sequence, command);
        s = am_outset_add(c->dry_set, name, h.data, h.size, err);
    }
    am_buf_free(&h);
    return s;
}

am_status am_worldbridge_client_finish(am_worldbridge_client *c, am_error *err)
{
    if (!c->dry_set)
        return AM_OK;
    am_status s = am_outset_commit(c->dry_set, err);
    am_outset_free(c->dry_set);
    c->dry_set = NULL;
    return s;
}

void am_worldbridge_client_free(am_worldbridge_client *c)
{
    am_outset_free(c->dry_set); /* uncommitted: nothing written */
    c->dry_set = NULL;
}

am_status am_worldbridge_judge_reply(const char *command, long status, const uint8_t *body, size_t size,
                                     const char *token, am_worldbridge_result *res, am_error *err)
{
    char snip[AM_WORLDBRIDGE_SNIPPET + 8];
    am_buf b = {(uint8_t *)body, size, size};
    snippet(&b, token, snip, sizeof snip);
    am_error be; /* a reply is a small object: 16 MiB of tree is far beyond one (core/json_text.h) */
    if (size && am_json_check_budget((const char *)body, size, (size_t)16 << 20, "reply", &be))
        return am_fail(err, AM_ERR_INVALID, "%s: reply refused (HTTP %ld): %s", command, status, be.msg);
    json_error_t je;
    json_t *j = size ? json_loadb((const char *)body, size, 0, &je) : NULL;
    if (!j || !json_is_object(j)) {
        if (j)
            json_decref(j);
        return am_fail(err, AM_ERR_INVALID, "%s: malformed reply (HTTP %ld, not a JSON object): %s", command, status,
                       snip[0] ? snip : "(empty body)");
    }
    res->reply = j;
    const json_t *ok = json_object_get(j, "ok");
    if (!json_is_true(ok)) {
        const char *e = json_string_value(json_object_get(j, "error"));
        if (json_is_false(ok) && e) {
            /* the bridge's own words: masked whole, then cut */
            char said[128];
            am_secrets sec = secrets_of(token);
            am_secret_snippet((const uint8_t *)e, strlen(e), &sec, 120, said, sizeof said);
            return am_fail(err, AM_ERR_INVALID, "%s: the bridge refused (HTTP %ld): %s", command, status, said);
        }
        if (json_is_false(ok))
            return am_fail(err, AM_ERR_INVALID, "%s: the bridge refused (HTTP %ld): %s", command, status, snip);
        return am_fail(err, AM_ERR_INVALID, "%s: malformed reply (HTTP %ld, no \"ok\": true): %s", command, status,
                       snip);
    }
    const json_t *u = json_object_get(j, "uuid");
    if (u) {
        if (!am_uuid_parse(json_string_value(u), NULL))
            return am_fail(err, AM_ERR_INVALID, "%s: malformed reply (HTTP %ld, \"uuid\" is not a UUID): %s", command,
                           status, snip);
        snprintf(res->uuid, sizeof res->uuid, "%s", json_string_value(u));
    } else if (strcmp(command, "spawn_mesh") == 0 || strcmp(command, "store_anim") == 0) {
        return am_fail(err, AM_ERR_INVALID, "%s: malformed reply (HTTP %ld, no \"uuid\"): %s", command, status, snip);
    }
    return AM_OK;
}

am_status am_worldbridge_call(am_worldbridge_client *c, const char *command, const json_t *body,
                              am_worldbridge_result *res, am_error *err)
{
    memset(res, 0, sizeof *res);
    am_error_clear(err);
    c->sequence++;
    char *json = json_dumps(body, JSON_COMPACT);
    if (!json)
        return am_fail_nomem(err, "request body");
    size_t n = strlen(json);
    am_status s = am_sha256_hex(json, n, res->idempotency_key, err);
    char url[2048];
    const char *base = c->opt.base_url ? c->opt.base_url : "http://dry-run";
    size_t bl = strlen(base);
    while (bl > 0 && base[bl - 1] == '/')
        bl--;
    if (!s && (size_t)snprintf(url, sizeof url, "%.*s/%s", (int)bl, base, command) >= sizeof url)
        s = am_fail(err, AM_ERR_USAGE, "WorldBridge URL too long");
    if (s) {
        free(json);
        return s;
    }
    if (c->opt.dry_run_dir) {
        s = dry_run(c, command, url, json, n, res, err);
        free(json);
        return s;
    }

    char key_hdr[96], auth_hdr[1024];
    snprintf(key_hdr, sizeof key_hdr, "Idempotency-Key: %s", res->idempotency_key);
    const char *headers[3] = {key_hdr, NULL, NULL};
    if (c->opt.token) {
        if ((size_t)snprintf(auth_hdr, sizeof auth_hdr, "Authorization: Bearer %s", c->opt.token) >= sizeof auth_hdr) {
            free(json);
            return am_fail(err, AM_ERR_USAGE, "WORLDBRIDGE_TOKEN is too long");
        }
        headers[1] = auth_hdr;
    }
    am_http_request req = {url, "application/json", headers, json, n, c->opt.connect_timeout_ms,
                           c->opt.total_timeout_ms};
    char shown[512];
    shown_url(url, c->opt.token, shown, sizeof shown);
    am_secrets sec = secrets_of(c->opt.token);
    long delay = c->opt.backoff_ms;
    for (int attempt = 1;; attempt++) {
        am_http_reply rep;
        s = am_http_post(&req, &rep, err);
        if (s)
            break;
        res->attempts = attempt;
        res->http_status = rep.failure == AM_HTTP_REPLIED ? rep.status : 0;
        /* Safe to repeat: the Idempotency-Key makes the bridge answer a repeat with the
         * first result, so a reply lost before or in the middle is asked for again. */
        bool transient = rep.failure == AM_HTTP_REFUSED || rep.failure == AM_HTTP_DROPPED ||
                         rep.failure == AM_HTTP_CUT || rep.failure == AM_HTTP_TIMEOUT ||
                         (rep.failure == AM_HTTP_REPLIED && rep.status >= 500);
        if (transient && attempt < c->opt.max_attempts) {
            am_http_reply_free(&rep);
            sleep_ms(delay);
            res->backoff_waited_ms += delay;
            delay = delay * 2 > AM_WORLDBRIDGE_MAX_BACKOFF_MS ? AM_WORLDBRIDGE_MAX_BACKOFF_MS : delay * 2;
            continue;
        }
        char snip[AM_WORLDBRIDGE_SNIPPET + 8];
        snippet(&rep.body, c->opt.token, snip, sizeof snip);
        am_secret_mask(rep.detail, &sec, strlen(rep.detail) + 1 >= sizeof rep.detail);
        const char *tries = attempt == 1 ? "1 attempt" : NULL;
        char tries_buf[32];
        if (!tries) {
            snprintf(tries_buf, sizeof tries_buf, "%d attempts", attempt);
            tries = tries_buf;
        }
        if (rep.failure == AM_HTTP_TIMEOUT) {
            s = am_fail(err, AM_ERR_NETWORK, "%s: timed out (connect %ld ms, total %ld ms) after %s", command,
                        c->opt.connect_timeout_ms, c->opt.total_timeout_ms, tries);
        } else if (rep.failure != AM_HTTP_REPLIED) {
            s = am_fail(err, AM_ERR_NETWORK, "%s: %s after %s (%s)", command, am_http_failure_text(rep.failure), tries,
                        rep.detail);
        } else if (rep.status < 200 || rep.status > 299) {
            const char *hint = rep.status == 401 || rep.status == 403 ? " (check WORLDBRIDGE_TOKEN)" : "";
            s = am_fail(err, AM_ERR_NETWORK, "%s: HTTP %ld%s after %s: %s", command, rep.status, hint, tries,
                        snip[0] ? snip : "(empty body)");
        } else {
            s = am_worldbridge_judge_reply(command, rep.status, rep.body.data, rep.body.size, c->opt.token, res, err);
        }
        am_http_reply_free(&rep);
        if (s)
            am_error_where(err, "%s", shown);
        break;
    }
    free(json);
    return s;
}

/* {"<key>_base64"|..., "bytes": N, "sha256": hex} members added to obj. */
static am_status add_file(json_t *obj, const char *b64_key, const uint8_t *data, size_t size, am_error *err)
{
    char *b64 = NULL, hex[65];
    am_status s = am_base64_encode(data, size, &b64, err);
    if (s)
        return s;
    if ((s = am_sha256_hex(data, size, hex, err))) {
        free(b64);
        return s;
    }
    int bad = json_object_set_new(obj, b64_key, json_string(b64)) ||
              json_object_set_new(obj, "bytes", json_integer((json_int_t)size)) ||
              json_object_set_new(obj, "sha256", json_string(hex));
    free(b64);
    return bad ? am_fail_nomem(err, "request body") : AM_OK;
}

json_t *am_worldbridge_spawn_mesh_body(json_t *meshdata, const double position[3], const uint8_t *tex_j2c,
                                       size_t tex_size, const char *tex_uuid, const char *name, am_error *err)
{
    if (am_world_check_text("spawn_mesh: object", name, err))
        return NULL;
    json_t *tex;
    if (tex_j2c) {
        if (!(tex = json_object())) {
            am_fail_nomem(err, "spawn_mesh body");
            return NULL;
        }
        if (add_file(tex, "j2c_base64", tex_j2c, tex_size, err)) {
            json_decref(tex);
            return NULL;
        }
    } else if (tex_uuid) {
        tex = json_pack("{s:s}", "uuid", tex_uuid);
    } else {
        tex = json_null();
    }
    /* "o" steals tex even when packing fails. */
    json_t *b = tex ? json_pack("{s:O,s:[f,f,f],s:o,s:s}", "meshdata", meshdata, "position", position[0],
                                position[1], position[2], "texture", tex, "name", name)
                    : NULL;
    if (!b)
        am_fail_nomem(err, "spawn_mesh body");
    return b;
}

json_t *am_worldbridge_store_anim_body(const char *name, const uint8_t *anim, size_t size, am_error *err)
{
    if (am_world_check_text("store_anim: animation", name, err))
        return NULL;
    json_t *b = json_object();
    if (!b || json_object_set_new(b, "name", json_string(name))) {
        json_decref(b);
        am_fail_nomem(err, "store_anim body");
        return NULL;
    }
    if (add_file(b, "anim_base64", anim, size, err)) {
        json_decref(b);
        return NULL;
    }
    return b;
}

json_t *am_worldbridge_play_anim_body(const char *object_uuid, const char *anim, const char *name, am_error *err)
{
    if (am_world_check_text("play_anim: animation", anim, err) ||
        am_world_check_text("play_anim: animation", name, err))
        return NULL;
    json_t *b = json_pack("{s:s,s:s,s:s}", "uuid", object_uuid, "anim", anim, "name", name);
    if (!b)
        am_fail_nomem(err, "play_anim body");
    return b;
}

json_t *am_worldbridge_save_world_body(am_error *err)
{
    json_t *b = json_object();
    if (!b)
        am_fail_nomem(err, "save_world body");
    return b;
}
