/* The WorldBridge client against a real HTTP server on 127.0.0.1 that checks every request
 * against the contract of docs/reference/worldbridge.md and misbehaves on demand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "core/io.h"
#include "support/http_server.h"
#include "support/test_support.h"
#include "world/world_push.h"
#include "world/worldbridge.h"
#include "support/world_fixtures.h"

#define TOKEN "tok-Secret-42"

typedef struct action {
    char key[65];
    char reply[256];
} action;

typedef struct bridge {
    int status_always;    /* answer every request with this status */
    int fail_500;         /* answer 500 this many times first */
    int hangs;            /* perform, then hang this many times (reply late) */
    int hang_ms;
    int drops;            /* perform, then close without a reply this many times */
    int cuts;             /* perform, then drop the connection mid-reply this many times */
    const char *raw_body; /* answer 200 with this body */
    const char *refuse;   /* answer this command 400 {"ok": false} */
    const char *expect_token;
    action done[64];
    size_t done_count;
    int spawns, stores, plays, saves;
    char violation[256];
    int next_uuid;
} bridge;

static void violate(bridge *b, const char *fmt, ...)
{
    if (b->violation[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->violation, sizeof b->violation, fmt, ap);
    va_end(ap);
}

static void sha256_hex(const void *d, size_t n, char out[65])
{
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256(d, n, h);
    for (int i = 0; i < 32; i++)
        sprintf(out + 2 * i, "%02x", h[i]);
}

/* Check a {"<b64key>", "bytes", "sha256"} file object: decodes, length and digest agree. */
static void check_file(bridge *b, const json_t *o, const char *b64key, const char *cmd)
{
    const char *b64 = json_string_value(json_object_get(o, b64key));
    json_int_t bytes = json_integer_value(json_object_get(o, "bytes"));
    const char *sha = json_string_value(json_object_get(o, "sha256"));
    if (!b64 || !json_is_integer(json_object_get(o, "bytes")) || !sha) {
        violate(b, "%s: missing %s/bytes/sha256", cmd, b64key);
        return;
    }
    size_t len = strlen(b64);
    unsigned char *raw = malloc(len + 3);
    int n = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)len);
    if (n < 0) {
        violate(b, "%s: %s is not base64", cmd, b64key);
        free(raw);
        return;
    }
    if (len >= 1 && b64[len - 1] == '=')
        n--;
    if (len >= 2 && b64[len - 2] == '=')
        n--;
    char hex[65];
    sha256_hex(raw, (size_t)n, hex);
    if (n != bytes)
        violate(b, "%s: bytes %lld but %d decoded", cmd, (long long)bytes, n);
    if (strcmp(hex, sha) != 0)
        violate(b, "%s: sha256 does not match the decoded bytes", cmd);
    free(raw);
}

static void check_contract(bridge *b, const am_test_http_request *rq, const char *cmd, json_t *j)
{
    if (strcmp(rq->method, "POST") != 0)
        violate(b, "%s: method %s", cmd, rq->method);
    if (strcmp(rq->content_type, "application/json") != 0)
        violate(b, "%s: content type '%s'", cmd, rq->content_type);
    char want[128];
    if (b->expect_token) {
        snprintf(want, sizeof want, "Bearer %s", b->expect_token);
        if (strcmp(rq->authorization, want) != 0)
            violate(b, "%s: Authorization header missing or wrong", cmd);
    } else if (rq->authorization[0]) {
        violate(b, "%s: unexpected Authorization header", cmd);
    }
    char hex[65];
    sha256_hex(rq->body, rq->body_size, hex);
    if (strcmp(hex, rq->idempotency_key) != 0)
        violate(b, "%s: Idempotency-Key is not the SHA-256 of the body", cmd);
    if (!json_is_object(j)) {
        violate(b, "%s: body is not a JSON object", cmd);
        return;
    }
    if (strcmp(cmd, "spawn_mesh") == 0) {
        const json_t *pos = json_object_get(j, "position");
        if (!json_is_object(json_object_get(j, "meshdata")) || json_array_size(pos) != 3 ||
            !json_is_string(json_object_get(j, "name")) || !json_object_get(j, "texture"))
            violate(b, "spawn_mesh: body lacks meshdata/position/texture/name");
        const json_t *tex = json_object_get(j, "texture");
        if (json_is_object(tex) && json_object_get(tex, "j2c_base64"))
            check_file(b, tex, "j2c_base64", cmd);
    } else if (strcmp(cmd, "store_anim") == 0) {
        if (!json_is_string(json_object_get(j, "name")))
            violate(b, "store_anim: no name");
        check_file(b, j, "anim_base64", cmd);
    } else if (strcmp(cmd, "play_anim") == 0) {
        if (!json_is_string(json_object_get(j, "uuid")) || !json_is_string(json_object_get(j, "anim")) ||
            !json_is_string(json_object_get(j, "name")))
            violate(b, "play_anim: body lacks uuid/anim/name");
    } else if (strcmp(cmd, "save_world") == 0) {
        if (json_object_size(j) != 0)
            violate(b, "save_world: body is not {}");
    } else {
        violate(b, "unknown command %s", cmd);
    }
}

static void handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    bridge *b = user;
    const char *cmd = strncmp(rq->path, "/wb/", 4) == 0 ? rq->path + 4 : "";
    json_t *j = json_loadb(rq->body, rq->body_size, 0, NULL);
    check_contract(b, rq, cmd, j);
    json_decref(j);
    if (b->status_always) {
        resp->status = b->status_always;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"status %d\",\"echo\":\"%s\"}",
                 b->status_always, rq->authorization);
        return;
    }
    if (b->refuse && strcmp(cmd, b->refuse) == 0) {
        resp->status = 400;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"refused\"}");
        return;
    }
    if (b->raw_body) {
        snprintf(resp->body, sizeof resp->body, "%s", b->raw_body);
        return;
    }
    if (b->fail_500 > 0) {
        b->fail_500--;
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"try again\"}");
        return;
    }
    /* A retried request (same key) gets the first reply: nothing is done twice. */
    for (size_t i = 0; i < b->done_count; i++)
        if (strcmp(b->done[i].key, rq->idempotency_key) == 0) {
            snprintf(resp->body, sizeof resp->body, "%s", b->done[i].reply);
            if (b->hangs > 0) {
                b->hangs--;
                resp->hang_ms = b->hang_ms;
            }
            return;
        }
    action *a = &b->done[b->done_count++];
    snprintf(a->key, sizeof a->key, "%s", rq->idempotency_key);
    if (strcmp(cmd, "spawn_mesh") == 0 || strcmp(cmd, "store_anim") == 0) {
        *(strcmp(cmd, "spawn_mesh") == 0 ? &b->spawns : &b->stores) += 1;
        snprintf(a->reply, sizeof a->reply, "{\"ok\":true,\"uuid\":\"00000000-0000-4000-8000-%012d\"}", ++b->next_uuid);
    } else {
        *(strcmp(cmd, "play_anim") == 0 ? &b->plays : &b->saves) += 1;
        snprintf(a->reply, sizeof a->reply, "{\"ok\":true}");
    }
    snprintf(resp->body, sizeof resp->body, "%s", a->reply);
    if (b->hangs > 0) {
        b->hangs--;
        resp->hang_ms = b->hang_ms;
    }
    if (b->drops > 0) {
        b->drops--;
        resp->drop = 1;
    } else if (b->cuts > 0) {
        b->cuts--;
        resp->cut_after = 10; /* {"ok":true, then nothing */
    }
}

typedef struct fixture {
    bridge b;
    am_test_http_server *srv;
    am_worldbridge_client client;
    char url[128];
    uint8_t anim[512];
    size_t anim_size;
} fixture;

static int setup(void **state)
{
    am_test_no_proxy();
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->b.expect_token = TOKEN;
    f->srv = am_test_http_start(handler, &f->b);
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u/wb", am_test_http_port(f->srv));
    am_worldbridge_options opt;
    am_worldbridge_options_init(&opt);
    opt.base_url = f->url;
    opt.token = TOKEN;
    opt.connect_timeout_ms = 1000;
    opt.total_timeout_ms = 300;
    opt.max_attempts = 3;
    opt.backoff_ms = 20;
    am_error err;
    assert_int_equal(am_worldbridge_client_init(&f->client, &opt, &err), AM_OK);
    f->anim_size = am_test_tiny_anim(f->anim, sizeof f->anim, "mPelvis", 1.0f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_http_stop(f->srv);
    free(f);
    return 0;
}

static json_t *store_body(fixture *f)
{
    am_error err;
    json_t *body = am_worldbridge_store_anim_body("wave", f->anim, f->anim_size, &err);
    assert_non_null(body);
    return body;
}

static void test_full_sequence_follows_the_contract(void **state)
{
    fixture *f = *state;
    am_error err;
    json_error_t je;
    char path[4096];
    json_t *md = json_load_file(am_test_tri_meshdata_path(path, sizeof path), 0, &je);
    assert_non_null(md);
    const uint8_t j2c[] = {0xff, 0x4f, 0xff, 0x51, 0x00, 0x2f, 0x00, 0x00, 0x01};
    double pos[3] = {128, 64.5, 22};
    json_t *body = am_worldbridge_spawn_mesh_body(md, pos, j2c, sizeof j2c, NULL, "tri", &err);
    assert_non_null(body);
    am_worldbridge_result r;
    assert_int_equal(am_worldbridge_call(&f->client, "spawn_mesh", body, &r, &err), AM_OK);
    assert_string_equal(r.uuid, "00000000-0000-4000-8000-000000000001");
    assert_int_equal(r.attempts, 1);
    assert_int_equal(r.http_status, 200);
    char obj[37];
    strcpy(obj, r.uuid);
    am_worldbridge_result_free(&r);
    json_decref(body);

    body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_OK);
    assert_string_equal(r.uuid, "00000000-0000-4000-8000-000000000002");
    am_worldbridge_result_free(&r);
    json_decref(body);

    body = am_worldbridge_play_anim_body(obj, "00000000-0000-4000-8000-000000000002", "wave", &err);
    assert_int_equal(am_worldbridge_call(&f->client, "play_anim", body, &r, &err), AM_OK);
    assert_string_equal(r.uuid, "");
    am_worldbridge_result_free(&r);
    json_decref(body);
    body = am_worldbridge_save_world_body(&err);
    assert_int_equal(am_worldbridge_call(&f->client, "save_world", body, &r, &err), AM_OK);
    am_worldbridge_result_free(&r);
    json_decref(body);

    assert_string_equal(f->b.violation, "");
    assert_int_equal(am_test_http_count(f->srv), 4);
    assert_int_equal(f->b.spawns, 1);
    assert_int_equal(f->b.stores, 1);
    assert_int_equal(f->b.plays, 1);
    assert_int_equal(f->b.saves, 1);

    /* The spawn body carries the meshdata unchanged and the position as given. */
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    assert_string_equal(rq.path, "/wb/spawn_mesh");
    json_t *sent = json_loadb(rq.body, rq.body_size, 0, &je);
    assert_true(json_equal(json_object_get(sent, "meshdata"), md));
    assert_true(json_number_value(json_array_get(json_object_get(sent, "position"), 1)) == 64.5);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(sent, "texture"), "bytes")), 9);
    json_decref(sent);
    free(rq.body);
    am_test_http_get(f->srv, 2, &rq);
    sent = json_loadb(rq.body, rq.body_size, 0, &je);
    assert_string_equal(json_string_value(json_object_get(sent, "uuid")), obj);
    json_decref(sent);
    free(rq.body);
    json_decref(md);
}

/* am_world_push orders the same four commands itself: the play names the UUID the bridge
 * gave the stored animation, and `done` says what happened. */
static void test_world_push_spawns_stores_plays_the_stored_uuid_and_saves(void **state)
{
    fixture *f = *state;
    am_error err;
    json_error_t je;
    char path[4096];
    json_t *md = json_load_file(am_test_tri_meshdata_path(path, sizeof path), 0, &je);
    assert_non_null(md);
    am_world_push_anim anims[2] = {{"idle", f->anim, f->anim_size, ""}, {"wave", f->anim, f->anim_size, ""}};
    am_world_push_request rq = {path, NULL, "tri", {128, 64.5, 22}, NULL, 0, NULL, anims, 2, "wave", true};
    am_world_push_done done;
    assert_int_equal(am_world_push(&f->client.opt, &rq, &done, &err), AM_OK);
    assert_string_equal(done.object, "00000000-0000-4000-8000-000000000001");
    assert_string_equal(anims[0].uuid, "00000000-0000-4000-8000-000000000002");
    assert_string_equal(anims[1].uuid, "00000000-0000-4000-8000-000000000003");
    assert_int_equal(done.stored, 2);
    assert_true(done.played && done.saved);
    assert_int_equal(done.requests, 5);
    assert_string_equal(am_str(&done.step), "");
    am_world_push_done_free(&done);
    assert_string_equal(f->b.violation, "");
    assert_int_equal(f->b.spawns + f->b.stores * 10 + f->b.plays * 100 + f->b.saves * 1000, 1121);
    am_test_http_request hr;
    am_test_http_get(f->srv, 3, &hr);
    assert_string_equal(hr.path, "/wb/play_anim");
    json_t *sent = json_loadb(hr.body, hr.body_size, 0, &je);
    assert_string_equal(json_string_value(json_object_get(sent, "anim")), anims[1].uuid);
    assert_string_equal(json_string_value(json_object_get(sent, "uuid")), done.object);
    json_decref(sent);
    free(hr.body);
    json_decref(md);
}

/* A refusal at the first command: nothing done, the step named, one request made. */
static void test_world_push_refused_at_spawn_says_nothing_was_done(void **state)
{
    fixture *f = *state;
    f->b.status_always = 401;
    am_error err;
    json_error_t je;
    char path[4096];
    json_t *md = json_load_file(am_test_tri_meshdata_path(path, sizeof path), 0, &je);
    assert_non_null(md);
    am_world_push_anim anims[1] = {{"wave", f->anim, f->anim_size, "stale"}};
    am_world_push_request rq = {path, NULL, "tri", {128, 128, 25}, NULL, 0, NULL, anims, 1, "wave", false};
    am_world_push_done done;
    assert_int_not_equal(am_world_push(&f->client.opt, &rq, &done, &err), AM_OK);
    assert_non_null(strstr(err.msg, "spawn_mesh"));
    assert_string_equal(am_str(&done.step), "spawn_mesh");
    am_world_push_done_free(&done);
    assert_string_equal(done.object, "");
    assert_string_equal(anims[0].uuid, "");
    assert_int_equal(done.stored, 0);
    assert_false(done.played);
    assert_int_equal(done.requests, 1);
    assert_int_equal(f->b.stores, 0);
    json_decref(md);
}

/* The meshdata is read and checked before anything is sent: a file that is not meshdata
 * fails naming it, at the step "reading the meshdata", with no request made. */
static void test_world_push_reads_the_meshdata_before_sending_anything(void **state)
{
    fixture *f = *state;
    am_error err;
    char dir[4096], path[4200];
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/broken.meshdata.json", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("{\"name\": \"tri\", \"submeshes\": 7}", fp);
    fclose(fp);
    am_world_push_anim anims[1] = {{"wave", f->anim, f->anim_size, ""}};
    am_world_push_request rq = {path, NULL, NULL, {128, 128, 25}, NULL, 0, NULL, anims, 1, "wave", true};
    am_world_push_done done;
    assert_int_equal(am_world_push(&f->client.opt, &rq, &done, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, "broken.meshdata.json"));
    assert_string_equal(am_str(&done.step), "reading the meshdata");
    assert_int_equal(done.requests, 0);
    assert_int_equal(am_test_http_count(f->srv), 0);
    am_world_push_done_free(&done);
    am_test_rmtree(dir);
}

/* The failed step names the animation whole, however long its name (the step was cut at
 * 127 bytes when it was a fixed array): a 300-character name fails at its store. */
static void test_world_push_step_names_a_long_animation_whole(void **state)
{
    fixture *f = *state;
    f->b.refuse = "store_anim";
    am_error err;
    json_error_t je;
    char path[4096];
    json_t *md = json_load_file(am_test_tri_meshdata_path(path, sizeof path), 0, &je);
    assert_non_null(md);
    char name[301];
    for (size_t i = 0; i < 300; i++)
        name[i] = (char)('a' + i % 26);
    name[300] = '\0';
    am_world_push_anim anims[1] = {{name, f->anim, f->anim_size, ""}};
    am_world_push_request rq = {path, NULL, "tri", {128, 128, 25}, NULL, 0, NULL, anims, 1, NULL, false};
    am_world_push_done done;
    assert_int_not_equal(am_world_push(&f->client.opt, &rq, &done, &err), AM_OK);
    assert_int_equal(done.step.length, strlen("store_anim ") + 300);
    assert_memory_equal(am_str(&done.step), "store_anim ", 11);
    assert_string_equal(am_str(&done.step) + 11, name);
    assert_string_equal(done.object, "00000000-0000-4000-8000-000000000001"); /* spawned before */
    assert_int_equal(done.stored, 0);
    assert_int_equal(done.requests, 2);
    am_world_push_done_free(&done);
    assert_null(done.step.data);
    json_decref(md);
}

static void test_500_once_is_retried_with_the_same_key(void **state)
{
    fixture *f = *state;
    f->b.fail_500 = 1;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_OK);
    assert_int_equal(r.attempts, 2);
    assert_int_equal(f->b.stores, 1);
    assert_int_equal(r.backoff_waited_ms, 20); /* waited the first backoff, once */
    am_test_http_request a, b;
    am_test_http_get(f->srv, 0, &a);
    am_test_http_get(f->srv, 1, &b);
    assert_string_equal(a.idempotency_key, b.idempotency_key);
    assert_string_equal(a.idempotency_key, r.idempotency_key);
    assert_int_equal(a.body_size, b.body_size);
    assert_memory_equal(a.body, b.body, a.body_size);
    free(a.body);
    free(b.body);
    assert_string_equal(f->b.violation, "");
    am_worldbridge_result_free(&r);
    json_decref(body);
}

static void test_timeout_retry_never_stores_twice(void **state)
{
    fixture *f = *state;
    f->b.hangs = 1;
    f->b.hang_ms = 2000; /* well past the 300 ms total timeout */
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    /* Counted, not timed: had the client waited out the 2 s hang, the one attempt would have
     * succeeded; two attempts mean the 300 ms timeout cut the first. */
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_OK);
    assert_int_equal(r.attempts, 2);
    assert_int_equal(r.backoff_waited_ms, 20);
    assert_int_equal(am_test_http_count(f->srv), 2);
    assert_int_equal(f->b.stores, 1); /* the bridge acted once; the retry got the same UUID */
    assert_string_equal(r.uuid, "00000000-0000-4000-8000-000000000001");
    am_worldbridge_result_free(&r);
    json_decref(body);
}

/* The bridge acted, then the connection went (before the reply, or in its middle): both
 * are retried, and the Idempotency-Key brings back the first result (no second store). */
static void test_a_reply_dropped_before_or_midway_is_retried_without_a_second_store(void **state)
{
    fixture *f = *state;
    for (int cut = 0; cut < 2; cut++) {
        memset(f->b.done, 0, sizeof f->b.done);
        f->b.done_count = 0;
        f->b.stores = 0;
        f->b.drops = cut ? 0 : 1;
        f->b.cuts = cut ? 1 : 0;
        am_error err;
        am_worldbridge_result r;
        json_t *body = store_body(f);
        am_status s = am_worldbridge_call(&f->client, "store_anim", body, &r, &err);
        if (s) {
            char buf[AM_ERROR_TEXT_MAX];
            fail_msg("%s: %s", cut ? "cut" : "dropped", am_error_format(&err, buf, sizeof buf));
        }
        assert_int_equal(r.attempts, 2);
        assert_int_equal(f->b.stores, 1);
        assert_string_equal(r.uuid, "00000000-0000-4000-8000-000000000001");
        am_worldbridge_result_free(&r);
        f->b.next_uuid = 0;
        json_decref(body);
    }
    /* with no retry left, the cut is named as such */
    f->client.opt.max_attempts = 1;
    f->b.done_count = 0;
    f->b.cuts = 1;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_NETWORK);
    assert_non_null(strstr(err.msg, "in the middle of the reply"));
    am_worldbridge_result_free(&r);
    json_decref(body);
    assert_string_equal(f->b.violation, "");
}

static void test_timeouts_exhaust_attempts_and_say_so(void **state)
{
    fixture *f = *state;
    f->b.hangs = 10;
    f->b.hang_ms = 2000;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_NETWORK);
    assert_int_equal(r.attempts, 3);
    assert_non_null(strstr(err.msg, "store_anim: timed out"));
    assert_non_null(strstr(err.msg, "3 attempts"));
    assert_int_equal(f->b.stores, 1);
    json_decref(body);
}

static void test_refused_connection_is_retried_then_reported(void **state)
{
    fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/wb", am_test_closed_port());
    f->client.opt.base_url = url;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_NETWORK);
    assert_int_equal(r.attempts, 3);
    assert_int_equal(r.backoff_waited_ms, 20 + 40); /* the backoff doubles */
    assert_int_equal(r.http_status, 0);
    assert_non_null(strstr(err.msg, "store_anim: connection refused after 3 attempts"));
    assert_non_null(strstr(err.where, url));
    assert_int_equal(am_status_exit_code(err.code), 1);
    json_decref(body);
}

static void test_401_is_final_and_never_shows_the_token(void **state)
{
    fixture *f = *state;
    f->b.status_always = 401; /* the reply even echoes the Authorization header */
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_NETWORK);
    assert_int_equal(r.attempts, 1);
    assert_int_equal(r.http_status, 401);
    char full[512];
    am_error_format(&err, full, sizeof full);
    assert_non_null(strstr(full, "store_anim: HTTP 401 (check WORLDBRIDGE_TOKEN) after 1 attempt: {\"ok\":false"));
    assert_null(strstr(full, TOKEN));
    assert_int_equal(am_test_http_count(f->srv), 1);
    json_decref(body);
}

static void test_persistent_503_exhausts_attempts(void **state)
{
    fixture *f = *state;
    f->b.status_always = 503;
    am_error err;
    am_worldbridge_result r;
    json_t *body = am_worldbridge_save_world_body(&err);
    assert_int_equal(am_worldbridge_call(&f->client, "save_world", body, &r, &err), AM_ERR_NETWORK);
    assert_int_equal(r.attempts, 3);
    assert_int_equal(am_test_http_count(f->srv), 3);
    assert_non_null(strstr(err.msg, "save_world: HTTP 503 after 3 attempts: {\"ok\":false,\"error\":\"status 503\""));
    json_decref(body);
}

static void test_malformed_reply_is_reported_with_its_first_bytes(void **state)
{
    fixture *f = *state;
    f->b.raw_body = "<html>Bad Gateway but 200</html>";
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_INVALID);
    assert_int_equal(r.attempts, 1);
    assert_non_null(strstr(err.msg, "store_anim: malformed reply (HTTP 200, not a JSON object): <html>Bad Gateway"));
    am_worldbridge_result_free(&r);
    json_decref(body);
}

static void test_reply_without_uuid_or_with_ok_false_is_an_error(void **state)
{
    fixture *f = *state;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    f->b.raw_body = "{\"ok\":true}";
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no \"uuid\""));
    am_worldbridge_result_free(&r);
    f->b.raw_body = "{\"ok\":true,\"uuid\":\"not-a-uuid\"}";
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a UUID"));
    am_worldbridge_result_free(&r);
    f->b.raw_body = "{\"ok\":false,\"error\":\"anim rejected: joint mFoo\"}";
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "store_anim: the bridge refused (HTTP 200): anim rejected: joint mFoo"));
    assert_int_equal(r.attempts, 1);
    am_worldbridge_result_free(&r);
    json_decref(body);
}

static void test_dry_run_writes_the_exact_bodies_and_sends_nothing(void **state)
{
    fixture *f = *state;
    am_error err;
    am_worldbridge_result r;
    json_t *body = store_body(f);
    /* The real request first, to compare bytes. */
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", body, &r, &err), AM_OK);
    am_worldbridge_result_free(&r);
    am_test_http_request sent;
    am_test_http_get(f->srv, 0, &sent);

    char dir[512], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_worldbridge_options opt = f->client.opt;
    opt.dry_run_dir = dir;
    am_worldbridge_client dry;
    assert_int_equal(am_worldbridge_client_init(&dry, &opt, &err), AM_OK);
    assert_int_equal(am_worldbridge_call(&dry, "store_anim", body, &r, &err), AM_OK);
    assert_int_equal(r.attempts, 0);
    assert_null(r.reply);
    assert_int_equal(am_test_http_count(f->srv), 1);
    /* The request files are one output set: nothing is in place before the run finishes. */
    snprintf(path, sizeof path, "%s/01-store_anim.json", dir);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(am_worldbridge_client_finish(&dry, &err), AM_OK);
    am_worldbridge_client_free(&dry);

    uint8_t *data;
    size_t size;
    assert_int_equal(am_read_file(path, &data, &size, &err), AM_OK);
    assert_int_equal(size, sent.body_size);
    assert_memory_equal(data, sent.body, size);
    free(data);
    snprintf(path, sizeof path, "%s/01-store_anim.http", dir);
    assert_int_equal(am_read_file(path, &data, &size, &err), AM_OK);
    char want[256];
    snprintf(want, sizeof want, "Idempotency-Key: %s\n", sent.idempotency_key);
    assert_non_null(strstr((char *)data, want));
    assert_non_null(strstr((char *)data, "POST http://127.0.0.1:"));
    assert_non_null(strstr((char *)data, "Authorization: Bearer <WORLDBRIDGE_TOKEN, not written>"));
    assert_null(strstr((char *)data, TOKEN));
    free(data);
    free(sent.body);
    json_decref(body);
    am_test_rmtree(dir);
}

static void test_idempotency_key_is_sha256_of_the_body(void **state)
{
    fixture *f = *state;
    am_error err;
    am_worldbridge_result r1, r2;
    json_t *a = store_body(f), *b = store_body(f);
    /* Equal payloads: equal keys (the bridge's dedup); a different payload: a new key. */
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", a, &r1, &err), AM_OK);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", b, &r2, &err), AM_OK);
    assert_string_equal(r1.idempotency_key, r2.idempotency_key);
    assert_string_equal(r1.uuid, r2.uuid);
    assert_int_equal(f->b.stores, 1);
    am_worldbridge_result_free(&r1);
    am_worldbridge_result_free(&r2);
    json_decref(b);
    b = am_worldbridge_store_anim_body("wave2", f->anim, f->anim_size, &err);
    assert_int_equal(am_worldbridge_call(&f->client, "store_anim", b, &r2, &err), AM_OK);
    assert_string_not_equal(r2.uuid, "00000000-0000-4000-8000-000000000001");
    assert_int_equal(f->b.stores, 2);
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    char hex[65];
    sha256_hex(rq.body, rq.body_size, hex);
    assert_string_equal(rq.idempotency_key, hex);
    assert_int_equal(strlen(hex), 64);
    free(rq.body);
    am_worldbridge_result_free(&r2);
    json_decref(a);
    json_decref(b);
}

static void test_options_come_from_the_environment(void **state)
{
    (void)state;
    setenv("WORLDBRIDGE_URL", "http://127.0.0.1:1/wb", 1);
    setenv("WORLDBRIDGE_TOKEN", "envtok", 1);
    am_worldbridge_options opt;
    am_worldbridge_options_init(&opt);
    assert_null(opt.base_url); /* the library reads no environment on its own */
    am_worldbridge_options_from_env(&opt);
    assert_string_equal(opt.base_url, "http://127.0.0.1:1/wb");
    assert_string_equal(opt.token, "envtok");
    assert_int_equal(opt.max_attempts, 4);
    unsetenv("WORLDBRIDGE_URL");
    unsetenv("WORLDBRIDGE_TOKEN");
    am_worldbridge_options_init(&opt);
    am_worldbridge_options_from_env(&opt);
    assert_null(opt.base_url);
    assert_null(opt.token);
    am_worldbridge_client c;
    am_error err;
    assert_int_equal(am_worldbridge_client_init(&c, &opt, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "WORLDBRIDGE_URL"));
    opt.base_url = "http://127.0.0.1:1/";
    opt.token = "abc\r\nX-Injected: 1";
    assert_int_equal(am_worldbridge_client_init(&c, &opt, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "control character"));
    assert_null(strstr(err.msg, "abc"));
    opt.token = NULL;
    opt.base_url = "ftp://x/";
    assert_int_equal(am_worldbridge_client_init(&c, &opt, &err), AM_ERR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_full_sequence_follows_the_contract, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_push_spawns_stores_plays_the_stored_uuid_and_saves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_push_refused_at_spawn_says_nothing_was_done, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_push_step_names_a_long_animation_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_world_push_reads_the_meshdata_before_sending_anything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_500_once_is_retried_with_the_same_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_retry_never_stores_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_reply_dropped_before_or_midway_is_retried_without_a_second_store, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_timeouts_exhaust_attempts_and_say_so, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_connection_is_retried_then_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_401_is_final_and_never_shows_the_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_persistent_503_exhausts_attempts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_reply_is_reported_with_its_first_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_without_uuid_or_with_ok_false_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_writes_the_exact_bodies_and_sends_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idempotency_key_is_sha256_of_the_body, setup, teardown),
        cmocka_unit_test(test_options_come_from_the_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
