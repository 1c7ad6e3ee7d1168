/* The streaming JSON reader (core/jsonlex.h) against jansson, an independent parser: on
 * documents with tricky strings and numbers, and on thousands of one-byte mutations of
 * them, both accept exactly the same documents and read the same values (strings byte for
 * byte, integers exactly, reals to the bit). Then a big rig reads the same from its file as
 * from memory. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/jsonlex.h"
#include "skin/rig.h"
#include "bench/perf/support/test_creature.h"
#include "support/test_support.h"

typedef struct canon {
    char *s;
    size_t n, cap;
} canon;

static void put(canon *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(canon *c, const char *fmt, ...)
{
    char b[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    if (c->n + (size_t)k + 1 > c->cap) {
        c->cap = (c->n + (size_t)k + 1) * 2;
        c->s = realloc(c->s, c->cap);
    }
    memcpy(c->s + c->n, b, (size_t)k + 1);
    c->n += (size_t)k;
}

static void put_bytes(canon *c, const char *s, size_t n)
{
    put(c, "\"");
    for (size_t i = 0; i < n; i++)
        put(c, "%02x", (unsigned char)s[i]);
    put(c, "\"");
}

static void put_real(canon *c, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put(c, "r%016llx", (unsigned long long)u);
}

static void from_jansson(canon *c, const json_t *v)
{
    if (json_is_object(v)) {
        put(c, "{");
        /* in document order: jansson keeps insertion order */
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            put_bytes(c, k, strlen(k));
            put(c, ":");
            from_jansson(c, x);
            put(c, ",");
        }
        put(c, "}");
    } else if (json_is_array(v)) {
        put(c, "[");
        for (size_t i = 0; i < json_array_size(v); i++) {
            from_jansson(c, json_array_get(v, i));
            put(c, ",");
        }
        put(c, "]");
    } else if (json_is_string(v))
        put_bytes(c, json_string_value(v), json_string_length(v));
    else if (json_is_integer(v))
        put(c, "i%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        put_real(c, json_real_value(v));
    else
        put(c, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
}

static am_status from_lex(canon *c, am_jlex *l)
{
    int ch = am_jlex_peek(l);
    am_status st = AM_OK;
    if (ch == '{' || ch == '[') {
        l->p++;
        put(c, ch == '{' ? "{" : "[");
        for (size_t i = 0; am_jlex_more(l, ch == '{' ? '}' : ']', i, &st); i++) {
            if (ch == '{') {
                if ((st = am_jlex_key(l)))
                    return st;
                put_bytes(c, l->str, l->str_len);
                put(c, ":");
            }
            if ((st = from_lex(c, l)))
                return st;
            put(c, ",");
        }
        put(c, ch == '{' ? "}" : "]");
        return st;
    }
    if (ch == '"') {
        if (!(st = am_jlex_string(l)))
            put_bytes(c, l->str, l->str_len);
        return st;
    }
    if (ch == 't' || ch == 'f' || ch == 'n') {
        bool b, z;
        if (!(st = am_jlex_literal(l, &b, &z)))
            put(c, "%s", z ? "null" : b ? "true" : "false");
        return st;
    }
    am_jnum n;
    if (!(st = am_jlex_number(l, &n))) {
        if (n.is_int)
            put(c, "i%lld", n.i);
        else
            put_real(c, n.d);
    }
    return st;
}

/* Both parsers on one document: same verdict, and the same values when accepted. Objects
 * with duplicate keys are compared by verdict only (the reader leaves them to its users). */
static int compare(const char *doc, size_t n, int *accepted)
{
    json_error_t je;
    json_t *root = json_loadb(doc, n, JSON_REJECT_DUPLICATES, &je);
    am_jlex l;
    am_error err;
    am_error_clear(&err);
    am_jlex_from_mem(&l, doc, n, "doc", &err);
    canon a = {0}, b = {0};
    int c0 = am_jlex_peek(&l);
    am_status st = c0 == '{' || c0 == '[' ? from_lex(&b, &l) : am_jlex_fail(&l, "'[' or '{' expected");
    if (!st)
        st = am_jlex_end(&l);
    am_jlex_free(&l);
    int ok = 1;
    if (!root != (st != AM_OK)) {
        /* duplicate keys: this walker does not look for them (the rig reader does) */
        if (!(root == NULL && strstr(je.text, "duplicate")))
            ok = 0;
    } else if (root) {
        from_jansson(&a, root);
        ok = strcmp(a.s, b.s) == 0;
        *accepted += 1;
    } else if (!strstr(err.msg, "not valid JSON") && !strstr(err.msg, "empty: expected JSON"))
        ok = 0;
    if (!ok)
        print_message("disagree on: %.*s\n  jansson: %s  reader: %s\n", (int)(n < 200 ? n : 200), doc,
                      root ? "accepts" : je.text, st ? err.msg : "accepts");
    json_decref(root);
    free(a.s);
    free(b.s);
    return ok;
}

static const char *const docs[] = {
    "{\"name\": \"bendbox\", \"joints\": [{\"name\": \"mHipLeft\", \"world\": [0.034, 0.127, 1.026]}],"
    " \"vertices\": [[0.1, 0.2, 1.0, 0, 0, 1, 0.25, 0.75], [-2.5e-3, 1E2, 1e+1, -0, 0.0, 1, 1, 0]],"
    " \"triangles\": [[0, 1, 2]], \"weights\": [[[0, 1.0]], [[0, 0.5], [1, 0.5]]],"
    " \"material\": {\"rgb\": [0.8, 0.5, 0.2], \"textured\": true, \"x\": null}}",
    "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\\ud83d\\ude00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", "
    "\"\", [], {}, [[[]]], {\"k\": {\"k\": [true, false, null]}}]",
    "[0, -0, 1, -1, 9223372036854775807, -9223372036854775808, 0.1, 0.30000000000000004, 1e22, 1e23, 5e-324, "
    "2.2250738585072011e-308, 1.7976931348623157e308, 9007199254740993.0, 123456789012345678901234567890.5, "
    "0.000000000000000000000000000001, 3.14159265358979323846264338327950288, 1e-400, 4.9e-324, 100e-2]",
};

static void test_agrees_with_jansson_on_tricky_documents(void **state)
{
    (void)state;
    int accepted = 0;
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++)
        assert_true(compare(docs[d], strlen(docs[d]), &accepted));
    assert_int_equal(accepted, 3);
    /* refused by both */
    static const char *const bad[] = {"", "  ", "1", "\"x\"", "{", "[1,]", "[,1]", "{\"a\" 1}", "{\"a\":1,}",
                                      "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[1e999]", "[9223372036854775808]",
                                      "[\"\\u0000\"]", "[\"\\ud800\"]", "[\"\\udc00x\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]",
                                      "[\"\xed\xa0\x80\"]", "[\"a\nb\"]", "[\"\\x\"]", "[tru]", "[nul]", "[1] [2]",
                                      "{\"a\":1,\"a\":2}", "[\xef\xbb\xbf]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_true(compare(bad[i], strlen(bad[i]), &accepted));
    assert_int_equal(accepted, 3);
}

static void test_agrees_with_jansson_on_every_one_byte_mutation(void **state)
{
    (void)state;
    static const char repl[] = " {}[],:\"\\0123456789.eE+-tfnu\x01\xc3\xff";
    int accepted = 0, tried = 0, ok = 1;
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        size_t n = strlen(docs[d]);
        char *m = malloc(n + 2);
        for (size_t i = 0; i < n; i++)
            for (size_t r = 0; r <= sizeof repl - 1; r++) {
                size_t len = n;
                memcpy(m, docs[d], n);
                if (r == sizeof repl - 1) { /* deletion */
                    memmove(m + i, m + i + 1, n - i - 1);
                    len = n - 1;
                } else
                    m[i] = repl[r];
                tried++;
                ok &= compare(m, len, &accepted);
            }
        free(m);
    }
    print_message("%d mutations, %d accepted by both\n", tried, accepted);
    assert_true(ok);
    assert_gt(accepted, 1000);
}

/* The 50k creature as rig JSON (~4 MB) reads the same from its file as from memory, and as
 * the rig it was written from. */
static void test_a_big_rig_reads_the_same_from_a_file(void **state)
{
    (void)state;
    char dir[4096], path[4096], tmp[256];
    am_error err;
    am_error_clear(&err);
    am_rig big, a, b;
    if (am_test_creature_load(am_test_shared_path(dir, sizeof dir, "data/creature"), "creature_50k", &big, &err))
        fail_msg("%s", err.msg);
    am_buf json = {0};
    assert_int_equal(am_rig_to_json(&big, &json, &err), AM_OK);
    am_test_tmpdir(tmp, sizeof tmp);
    snprintf(path, sizeof path, "%s/big.json", tmp);
    assert_int_equal(am_write_file_atomic(path, json.data, json.size, &err), AM_OK);
    assert_int_equal(am_rig_load(path, &a, &err), AM_OK);
    assert_int_equal(am_rig_parse_json((const char *)json.data, json.size, "mem", &b, &err), AM_OK);
    assert_int_equal(a.vertex_count, 50080);
    assert_int_equal(a.vertex_count, b.vertex_count);
    assert_int_equal(a.triangle_count, b.triangle_count);
    assert_memory_equal(a.positions, b.positions, 3 * a.vertex_count * sizeof(float));
    assert_memory_equal(a.positions, big.positions, 3 * a.vertex_count * sizeof(float)); /* the writer round trip */
    assert_memory_equal(a.normals, b.normals, 3 * a.vertex_count * sizeof(float));
    assert_memory_equal(a.triangles, big.triangles, 3 * a.triangle_count * sizeof(uint32_t));
    assert_memory_equal(a.weight_start, b.weight_start, (a.vertex_count + 1) * sizeof(size_t));
    for (size_t i = 0; i < a.weight_start[a.vertex_count]; i++) {
        assert_int_equal(a.influences[i].joint, big.influences[i].joint);
        assert_true(a.influences[i].weight == big.influences[i].weight);
    }
    am_test_rmtree(tmp);
    am_buf_free(&json);
    am_rig_free(&a);
    am_rig_free(&b);
    am_rig_free(&big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agrees_with_jansson_on_tricky_documents),
        cmocka_unit_test(test_agrees_with_jansson_on_every_one_byte_mutation),
        cmocka_unit_test(test_a_big_rig_reads_the_same_from_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
