/* Secrets never leave the process (README: the WorldBridge token and the RemoteAdmin
 * password are "never printed"): servers on 127.0.0.1 echo the secret at every offset of
 * every text a client quotes (the bridge's error string, a non-JSON body, an HTTP error
 * body, a fault string), in the spelling a real peer would use (JSON- or XML-escaped), and no
 * three consecutive characters of it may appear in the error. Plus the masking itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/secret.h"
#include "support/http_server.h"
#include "support/test_support.h"
#include "world/remoteadmin.h"
#include "world/worldbridge.h"
#include "support/world_fixtures.h"

/* Characters no message of ours uses around a quote (upper case, digits, symbols), with
 * JSON's and XML's special characters in the middle. */
#define TOKEN "Q7/Z\"W&9#VKQWZ5"
#define PASSWORD "Q7&Z<W>9\"VKQWZ5"

/* Fails when any 3 consecutive characters of secret appear in text. */
static void assert_no_part_of(const char *secret, const char *text, const char *context)
{
    size_t n = strlen(secret);
    for (size_t i = 0; i + 3 <= n; i++) {
        char part[4] = {secret[i], secret[i + 1], secret[i + 2], 0};
        if (strstr(text, part))
            fail_msg("%s: '%s' of the secret appears in: %s", context, part, text);
    }
}

/* ---- the masking itself ---- */

static void test_snippet_masks_the_secret_at_every_offset_before_the_cut(void **state)
{
    (void)state;
    am_secrets sec = {{TOKEN}};
    size_t tl = strlen(TOKEN);
    for (size_t k = 0; k < 120; k++) {
        char text[256], out[100];
        memset(text, 'x', k);
        memcpy(text + k, TOKEN, tl);
        memset(text + k + tl, 'y', 90);
        size_t n = k + tl + 90;
        am_secret_snippet((const uint8_t *)text, n, &sec, 80, out, sizeof out);
        char ctx[32];
        snprintf(ctx, sizeof ctx, "offset %zu", k);
        assert_no_part_of(TOKEN, out, ctx);
        assert_int_equal(strlen(out), 83); /* 80 shown + "..." */
        /* what is shown of the secret is stars, nothing else changed */
        for (size_t i = 0; i < 80; i++)
            assert_true(out[i] == (i < k ? 'x' : i < k + tl ? '*' : 'y'));
    }
}

static void test_escaped_spellings_and_a_cut_tail_are_masked(void **state)
{
    (void)state;
    am_secrets sec = {{TOKEN, PASSWORD}};
    char s[200];
    snprintf(s, sizeof s, "json: Q7\\/Z\\\"W&9#VKQWZ5 json2: Q7/Z\\\"W&9#VKQWZ5 xml: Q7&amp;Z&lt;W&gt;9&quot;VKQWZ5 .");
    am_secret_mask(s, &sec, false);
    assert_no_part_of(TOKEN, s, "json");
    assert_no_part_of("VKQWZ5", s, "escaped");
    assert_non_null(strstr(s, "json: *"));
    assert_non_null(strstr(s, " xml: *"));
    assert_non_null(strstr(s, " ."));
    /* a buffer cut the text inside the secret: the tail that begins it is masked */
    for (size_t k = 1; k < strlen(PASSWORD); k++) {
        snprintf(s, sizeof s, "error: %.*s", (int)k, PASSWORD);
        am_secret_mask(s, &sec, true);
        char want[64];
        memset(want, '*', k);
        want[k] = '\0';
        assert_string_equal(s + 7, want);
    }
    /* not cut: an innocent tail stays */
    snprintf(s, sizeof s, "error: Q7");
    am_secret_mask(s, &sec, false);
    assert_string_equal(s, "error: Q7");
}

/* The secret in an encoding a peer may use: URL (%XX, upper or lower hex, only the reserved
 * characters or every one), &#NN; / &#xNN; character references (every character, or
 * mixed with plain text), each masked whole and the text around it kept. */
static void encode_each(const char *secret, const char *fmt_reserved, const char *fmt_plain, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = secret; *p && o + 12 < size; p++) {
        bool plain = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9');
        o += (size_t)snprintf(out + o, size - o, plain ? fmt_plain : fmt_reserved, plain ? *p : (unsigned char)*p);
    }
}

static void assert_masked_between(char *text, const am_secrets *sec, const char *what)
{
    am_secret_mask(text, sec, false);
    assert_no_part_of(TOKEN, text, what);
    if (strncmp(text, "before ", 7) != 0 || !strstr(text, " after"))
        fail_msg("%s: the text around the secret changed: %s", what, text);
    for (const char *p = text + 7; p < strstr(text, " after"); p++)
        if (*p != '*')
            fail_msg("%s: not masked whole: %s", what, text);
}

static void test_url_and_character_reference_spellings_are_masked(void **state)
{
    (void)state;
    am_secrets sec = {{TOKEN}};
    static const struct { const char *reserved, *plain, *what; } enc[] = {
        {"%%%02X", "%c", "URL, upper hex"},        {"%%%02x", "%c", "URL, lower hex"},
        {"%%%02X", "%%%02X", "URL, every byte"},   {"&#%d;", "&#%d;", "&#NN; every character"},
        {"&#x%X;", "&#x%x;", "&#xNN; every character"}, {"&#%d;", "%c", "&#NN; the reserved ones"},
        {"\\u%04x", "%c", "JSON \\u escapes"},
    };
    for (size_t e = 0; e < sizeof enc / sizeof enc[0]; e++) {
        char spelled[256], text[300];
        encode_each(TOKEN, enc[e].reserved, enc[e].plain, spelled, sizeof spelled);
        snprintf(text, sizeof text, "before %s after", spelled);
        assert_masked_between(text, &sec, enc[e].what);
    }
}

static void base64(const uint8_t *in, size_t n, char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = a[v >> 18 & 63];
        out[o++] = a[v >> 12 & 63];
        out[o++] = i + 1 < n ? a[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? a[v & 63] : '=';
    }
    out[o] = '\0';
}

/* Basic auth and the like: base64 of "user:" + secret + tail, at every alignment; what
 * depends on the secret alone is masked, so decoding what is shown gives no 3 bytes of it. */
static void test_base64_spellings_are_masked(void **state)
{
    (void)state;
    am_secrets sec = {{TOKEN}};
    for (size_t pre = 0; pre < 6; pre++) {
        char plain[64], b64[128], text[200];
        snprintf(plain, sizeof plain, "%.*s%s!?", (int)pre, "admin:", TOKEN);
        base64((const uint8_t *)plain, strlen(plain), b64);
        snprintf(text, sizeof text, "Authorization: Basic %s\n", b64);
        am_secret_mask(text, &sec, false);
        /* decode what is shown, '*' as zero bits: no 3 bytes of the token may survive */
        const char *shown = text + strlen("Authorization: Basic ");
        uint8_t dec[96];
        size_t dn = 0;
        for (size_t i = 0; shown[i] && shown[i] != '\n' && shown[i] != '='; i += 4) {
            uint32_t v = 0;
            for (int k = 0; k < 4; k++) {
                const char c = shown[i + k];
                const char *at = c && c != '*' && c != '=' && c != '\n'
                                     ? strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", c)
                                     : NULL;
                v = v << 6 | (at ? (uint32_t)(at - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") : 0);
            }
            dec[dn++] = (uint8_t)(v >> 16);
            dec[dn++] = (uint8_t)(v >> 8);
            dec[dn++] = (uint8_t)v;
        }
        dec[dn] = '\0';
        for (size_t i = 0; i + 3 <= strlen(TOKEN); i++)
            for (size_t j = 0; j + 3 <= dn; j++)
                if (memcmp(dec + j, TOKEN + i, 3) == 0)
                    fail_msg("prefix %zu: '%.3s' of the token decodes from %s", pre, TOKEN + i, text);
        assert_true(strchr(shown, '*') != NULL);
    }
}

/* Split over lines (CRLF, LF with indentation, JSON \n, &#10;), at every point. */
static void test_line_split_spellings_are_masked(void **state)
{
    (void)state;
    am_secrets sec = {{TOKEN}};
    static const char *breaks[] = {"\r\n", "\n    ", "\\n", "&#10;"};
    size_t tl = strlen(TOKEN);
    for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++)
        for (size_t k = 1; k < tl; k++) {
            char text[200];
            snprintf(text, sizeof text, "before %.*s%s%s after", (int)k, TOKEN, breaks[b], TOKEN + k);
            am_secret_mask(text, &sec, false);
            assert_no_part_of(TOKEN, text, breaks[b]);
            assert_int_equal(strncmp(text, "before ", 7), 0);
            assert_non_null(strstr(text, " after"));
        }
}

/* A line that ends with the first 4 or more characters of the secret (its rest cut away
 * or on a line we never see): that part is masked; 3 characters, or the same characters
 * inside a line, are left. */
static void test_a_line_ending_in_part_of_the_secret_is_masked(void **state)
{
    (void)state;
    am_secrets sec = {{PASSWORD}};
    size_t pl = strlen(PASSWORD);
    for (size_t k = 4; k < pl; k++) {
        char text[200];
        snprintf(text, sizeof text, "fault: %.*s\nnext line\n", (int)k, PASSWORD);
        am_secret_mask(text, &sec, false);
        char want[200];
        snprintf(want, sizeof want, "fault: %.*s\nnext line\n", (int)k, "****************");
        assert_string_equal(text, want);
    }
    char text[] = "fault: Q7&\nQ7&Z<W in the middle\n";
    am_secret_mask(text, &sec, false);
    assert_string_equal(text, "fault: Q7&\nQ7&Z<W in the middle\n");
    /* ordinary text is untouched */
    char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n\r\n<methodResponse/>";
    am_secret_mask(plain, &sec, false);
    assert_string_equal(plain, "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\n\r\n<methodResponse/>");
}

/* ---- WorldBridge: every text quoting the bridge ---- */

typedef enum wb_mode { WB_ERROR_FIELD, WB_NOT_JSON, WB_HTTP_500, WB_BAD_UUID } wb_mode;

typedef struct echo {
    wb_mode mode;
    size_t offset;
    int ra_mode;
} echo;

/* The secret as a JSON string's inside, as a bridge that json-encodes would echo it. */
static void json_inside(const char *secret, char *out, size_t size)
{
    json_t *s = json_string(secret);
    char *d = json_dumps(s, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH);
    snprintf(out, size, "%.*s", (int)strlen(d) - 2, d + 1);
    free(d);
    json_decref(s);
}

static void wb_handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    (void)rq;
    const echo *e = user;
    char pad[512], esc[128];
    memset(pad, 'x', e->offset);
    pad[e->offset] = '\0';
    json_inside(TOKEN, esc, sizeof esc);
    switch (e->mode) {
    case WB_ERROR_FIELD:
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"%s%s and more words\"}", pad, esc);
        break;
    case WB_NOT_JSON: snprintf(resp->body, sizeof resp->body, "%s%s trailing text", pad, TOKEN); break;
    case WB_HTTP_500:
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "{\"echo\":\"%s%s\"}", pad, esc);
        break;
    case WB_BAD_UUID: snprintf(resp->body, sizeof resp->body, "{\"ok\":true,\"uuid\":\"%s%s\"}", pad, esc); break;
    }
}

static void test_worldbridge_never_shows_the_token_the_bridge_echoes(void **state)
{
    (void)state;
    am_test_no_proxy();
    echo e = {0};
    am_test_http_server *srv = am_test_http_start(wb_handler, &e);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/wb", am_test_http_port(srv));
    am_worldbridge_options opt;
    am_worldbridge_options_init(&opt);
    opt.base_url = url;
    opt.token = TOKEN;
    opt.max_attempts = 1;
    am_worldbridge_client c;
    am_error err;
    assert_int_equal(am_worldbridge_client_init(&c, &opt, &err), AM_OK);
    uint8_t anim[256];
    size_t an = am_test_tiny_anim(anim, sizeof anim, "mPelvis", 1.0f);
    json_t *body = am_worldbridge_store_anim_body("wave", anim, an, &err);
    assert_non_null(body);
    for (int mode = WB_ERROR_FIELD; mode <= WB_BAD_UUID; mode++) {
        for (size_t k = 0; k <= 130; k++) {
            e.mode = (wb_mode)mode;
            e.offset = k;
            am_worldbridge_result r;
            assert_int_not_equal(am_worldbridge_call(&c, "store_anim", body, &r, &err), AM_OK);
            am_worldbridge_result_free(&r);
            char text[AM_ERROR_TEXT_MAX], ctx[48];
            am_error_format(&err, text, sizeof text);
            snprintf(ctx, sizeof ctx, "mode %d offset %zu", mode, k);
            assert_no_part_of(TOKEN, text, ctx);
            if (k == 0)
                assert_non_null(strchr(text, '*')); /* it was there, and masked */
        }
    }
    json_decref(body);
    am_worldbridge_client_free(&c);
    am_test_http_stop(srv);
}

/* A dry run writes no token either, even where a name holds it. */
static void test_a_dry_run_writes_no_token(void **state)
{
    (void)state;
    char dir[512], path[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_worldbridge_options opt;
    am_worldbridge_options_init(&opt);
    opt.base_url = "http://127.0.0.1:9/wb";
    opt.token = TOKEN;
    opt.dry_run_dir = dir;
    am_worldbridge_client c;
    am_error err;
    assert_int_equal(am_worldbridge_client_init(&c, &opt, &err), AM_OK);
    uint8_t anim[256];
    size_t an = am_test_tiny_anim(anim, sizeof anim, "mPelvis", 1.0f);
    json_t *body = am_worldbridge_store_anim_body("my " TOKEN " wave", anim, an, &err);
    assert_non_null(body);
    am_worldbridge_result r;
    assert_int_equal(am_worldbridge_call(&c, "store_anim", body, &r, &err), AM_OK);
    assert_int_equal(am_worldbridge_client_finish(&c, &err), AM_OK);
    am_worldbridge_client_free(&c);
    const char *files[] = {"01-store_anim.json", "01-store_anim.http"};
    for (int i = 0; i < 2; i++) {
        uint8_t *data;
        size_t size;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        assert_int_equal(am_read_file(path, &data, &size, &err), AM_OK);
        assert_no_part_of("VKQWZ5", (const char *)data, files[i]);
        free(data);
    }
    json_decref(body);
    am_test_rmtree(dir);
}

/* ---- RemoteAdmin: the fault string, the error member, an HTTP error body ---- */

static void xml_inside(const char *secret, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = secret; *p && o + 7 < size; p++) {
        const char *rep = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : NULL;
        if (rep) {
            memcpy(out + o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            out[o++] = *p;
        }
    }
    out[o] = '\0';
}

static void ra_handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    (void)rq;
    const echo *e = user;
    char pad[512], esc[128];
    memset(pad, 'x', e->offset);
    pad[e->offset] = '\0';
    xml_inside(PASSWORD, esc, sizeof esc);
    snprintf(resp->content_type, sizeof resp->content_type, "text/xml");
    if (e->ra_mode == 0)
        snprintf(resp->body, sizeof resp->body,
                 "<?xml version=\"1.0\"?><methodResponse><fault><value><struct><member><name>faultString</name>"
                 "<value><string>%s%s rejected</string></value></member></struct></value></fault></methodResponse>",
                 pad, esc);
    else if (e->ra_mode == 1)
        snprintf(resp->body, sizeof resp->body,
                 "<?xml version=\"1.0\"?><methodResponse><params><param><value><struct>"
                 "<member><name>loaded</name><value><boolean>0</boolean></value></member>"
                 "<member><name>error</name><value><string>%s%s</string></value></member>"
                 "</struct></value></param></params></methodResponse>",
                 pad, esc);
    else {
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "%s%s", pad, esc);
    }
}

static void test_remoteadmin_never_shows_the_password_the_region_echoes(void **state)
{
    (void)state;
    am_test_no_proxy();
    echo e = {0};
    am_test_http_server *srv = am_test_http_start(ra_handler, &e);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_http_port(srv));
    am_remoteadmin_options opt;
    am_remoteadmin_options_init(&opt);
    opt.url = url;
    opt.password = PASSWORD;
    opt.max_attempts = 1;
    am_remoteadmin_load_oar req = {"/srv/creature.oar", "Region", NULL, true, false};
    for (int mode = 0; mode < 3; mode++) {
        /* past the 80-byte snippet and the 255-byte error text */
        for (size_t k = 0; k <= 270; k++) {
            e.ra_mode = mode;
            e.offset = k;
            am_remoteadmin_reply reply;
            am_error err;
            assert_int_not_equal(am_remoteadmin_load_oar_call(&opt, &req, &reply, NULL, &err), AM_OK);
            char text[AM_ERROR_TEXT_MAX], ctx[48];
            am_error_format(&err, text, sizeof text);
            snprintf(ctx, sizeof ctx, "mode %d offset %zu", mode, k);
            assert_no_part_of(PASSWORD, text, ctx);
            assert_no_part_of(PASSWORD, am_str(&reply.error), ctx);
            am_remoteadmin_reply_free(&reply);
            assert_no_part_of("9&quot;VKQWZ5", text, ctx);
        }
    }
    am_test_http_stop(srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snippet_masks_the_secret_at_every_offset_before_the_cut),
        cmocka_unit_test(test_escaped_spellings_and_a_cut_tail_are_masked),
        cmocka_unit_test(test_url_and_character_reference_spellings_are_masked),
        cmocka_unit_test(test_base64_spellings_are_masked),
        cmocka_unit_test(test_line_split_spellings_are_masked),
        cmocka_unit_test(test_a_line_ending_in_part_of_the_secret_is_masked),
        cmocka_unit_test(test_worldbridge_never_shows_the_token_the_bridge_echoes),
        cmocka_unit_test(test_a_dry_run_writes_no_token),
        cmocka_unit_test(test_remoteadmin_never_shows_the_password_the_region_echoes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
