/* The COLLADA reader and the other libxml2 readers against hostile documents (issue 19,
 * items 1-3 and the <Name_array> budget of 5), each written here in its smallest form: a
 * billion-laughs DTD and an internal entity in UTF-8, UTF-16LE and UTF-16BE (the encodings a
 * byte scan for "<!DOCTYPE" misses), a <vcount> entry out of range (once a use-after-free),
 * 1,000,000 nested elements, and a skin naming 5,000,000 joints, run as a whole `import`
 * under a memory cap. Every one is refused naming the file; nothing is written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io.h"
#include "readers/collada/collada.h"
#include "scene/scene.h"
#include "support/memcap.h"
#include "skeleton/skeleton.h"
#include "support/test_support.h"
#include "world/remoteadmin.h"

#define HEAD_NS "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">"
#define SCENE                                                                                                         \
    "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\" name=\"pelvis\" type=\"JOINT\"/>"                 \
    "</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#vs\"/></scene>"

/* The billion laughs: lol9 is 10^9 "lol"s (3 GB) from a 1 KB DTD. */
static void billion_laughs(am_buf *b, const char *encoding)
{
    assert_int_equal(am_buf_printf(b, NULL, "<?xml version=\"1.0\" encoding=\"%s\"?>\n<!DOCTYPE COLLADA [\n"
                                            " <!ENTITY lol \"lol\">\n", encoding),
                     AM_OK);
    for (int i = 1; i <= 9; i++) {
        assert_int_equal(am_buf_printf(b, NULL, " <!ENTITY lol%d \"", i), AM_OK);
        for (int k = 0; k < 10; k++)
            assert_int_equal(i == 1 ? am_buf_printf(b, NULL, "&lol;") : am_buf_printf(b, NULL, "&lol%d;", i - 1),
                             AM_OK);
        assert_int_equal(am_buf_printf(b, NULL, "\">\n"), AM_OK);
    }
    assert_int_equal(am_buf_printf(b, NULL, "]>\n" HEAD_NS "<asset><contributor><author>&lol9;</author>"
                                            "</contributor></asset>" SCENE "</COLLADA>\n"),
                     AM_OK);
}

/* ASCII text as UTF-16 with its byte order mark (little or big endian). */
static uint8_t *utf16(const am_buf *ascii, bool big_endian, size_t *size)
{
    *size = 2 + 2 * ascii->size;
    uint8_t *o = malloc(*size);
    assert_non_null(o);
    o[0] = big_endian ? 0xFE : 0xFF;
    o[1] = big_endian ? 0xFF : 0xFE;
    for (size_t i = 0; i < ascii->size; i++) {
        o[2 + 2 * i + (big_endian ? 1 : 0)] = ascii->data[i];
        o[2 + 2 * i + (big_endian ? 0 : 1)] = 0;
    }
    return o;
}

static bool contains(const uint8_t *data, size_t size, const char *text)
{
    size_t k = strlen(text);
    for (size_t i = 0; i + k <= size; i++)
        if (memcmp(data + i, text, k) == 0)
            return true;
    return false;
}

static am_status read_bytes(const uint8_t *data, size_t size, am_scene *s, am_error *err)
{
    memset(s, 0, sizeof *s);
    s->source = am_strdup("t.dae");
    s->base_dir = am_strdup(".");
    s->format = AM_SCENE_FORMAT_COLLADA;
    am_error_clear(err);
    am_status st = am_collada_read(data, size, s->source, s->base_dir, s, err);
    if (!st)
        st = am_scene_finish(s, err);
    return st;
}

/* Refused (AM_ERR_INVALID) with a message naming t.dae and holding frag. */
static void must_refuse(const uint8_t *data, size_t size, const char *frag)
{
    am_scene s;
    am_error err;
    char buf[700];
    assert_int_equal(read_bytes(data, size, &s, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "t.dae") || !strstr(buf, frag))
        fail_msg("error \"%s\" lacks t.dae or '%s'", buf, frag);
    am_scene_free(&s);
}

static void test_a_dtd_is_refused_in_every_encoding(void **state)
{
    (void)state;
    am_buf b = {0};
    billion_laughs(&b, "UTF-8");
    must_refuse(b.data, b.size, "<!DOCTYPE> (line 2) is not accepted");
    am_buf_free(&b);
    /* the same bomb in UTF-16: no "<!DOCTYPE" byte sequence exists in the file */
    for (int be = 0; be < 2; be++) {
        am_buf a = {0};
        billion_laughs(&a, "UTF-16");
        size_t n;
        uint8_t *u = utf16(&a, be, &n);
        assert_false(contains(u, n, "<!DOCTYPE"));
        must_refuse(u, n, "<!DOCTYPE> (line 2) is not accepted");
        free(u);
        am_buf_free(&a);
    }
    /* an internal entity whose text would become a node name; and an external one */
    const char *internal = "<?xml version=\"1.0\"?><!DOCTYPE COLLADA [<!ENTITY who \"injected\">]>" HEAD_NS
                           "<library_visual_scenes><visual_scene id=\"vs\"><node id=\"n\" name=\"&who;\"/>"
                           "</visual_scene></library_visual_scenes></COLLADA>";
    must_refuse((const uint8_t *)internal, strlen(internal), "no DTD and no entities");
    const char *external = "<?xml version=\"1.0\"?>\n\n<!DOCTYPE COLLADA SYSTEM \"/etc/passwd\">" HEAD_NS SCENE
                           "</COLLADA>";
    must_refuse((const uint8_t *)external, strlen(external), "<!DOCTYPE> (line 3)");
    /* an undeclared entity is not XML at all */
    const char *undeclared = HEAD_NS "<asset><contributor><author>&x;</author></contributor></asset>" SCENE
                             "</COLLADA>";
    must_refuse((const uint8_t *)undeclared, strlen(undeclared), "not XML");
}

/* UTF-16 itself is fine: the same scene reads as from UTF-8. */
static void test_a_utf16_document_without_dtd_reads(void **state)
{
    (void)state;
    am_buf a = {0};
    assert_int_equal(am_buf_printf(&a, NULL, "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n" HEAD_NS SCENE
                                             "</COLLADA>\n"),
                     AM_OK);
    size_t n;
    uint8_t *u = utf16(&a, false, &n);
    am_scene s;
    am_error err;
    char buf[600];
    if (read_bytes(u, n, &s, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(s.node_count, 1);
    assert_string_equal(s.nodes[0].name, "pelvis");
    am_scene_free(&s);
    free(u);
    am_buf_free(&a);
}

#define GEOMETRY                                                                                                      \
    "<library_geometries><geometry id=\"g\"><mesh><source id=\"g-pos\"><float_array id=\"g-pos-a\" count=\"12\">"    \
    "0 0 0 1 0 0 1 1 0 0 1 0</float_array><technique_common><accessor source=\"#g-pos-a\" count=\"4\" stride=\"3\"/>" \
    "</technique_common></source><vertices id=\"g-v\"><input semantic=\"POSITION\" source=\"#g-pos\"/></vertices>"

/* Each bad entry is named with its value (read before the list is freed: ASan saw the
 * message read freed memory here). */
static void test_a_bad_vcount_entry_is_named(void **state)
{
    (void)state;
    const char *entries[] = {"3 -1", "3 1000001", "-9223372036854775807"};
    const char *said[] = {"entry 1 (-1) is not a vertex count", "entry 1 (1000001) is not a vertex count",
                          "entry 0 (-9223372036854775807) is not a vertex count"};
    for (size_t i = 0; i < 3; i++) {
        char x[2048];
        snprintf(x, sizeof x,
                 HEAD_NS GEOMETRY "<polylist count=\"2\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
                                  "<vcount>%s</vcount><p>0 1 2 0 2 3</p></polylist></mesh></geometry>"
                                  "</library_geometries></COLLADA>",
                 entries[i]);
        must_refuse((const uint8_t *)x, strlen(x), said[i]);
    }
}

/* A long list (read in pieces side by side past 1 MiB) names its first bad token by its
 * index in the whole list, wherever the pieces are cut. */
static void test_a_bad_token_in_a_long_list_is_named_by_its_index(void **state)
{
    (void)state;
    const size_t n = 600000; /* 0 1 2 0 1 2 ...: 2.4 MB of <p> */
    const size_t bad[][2] = {{599998, SIZE_MAX}, {10, 500000}, {300001, 300002}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        am_buf x = {0};
        assert_int_equal(am_buf_printf(&x, NULL, HEAD_NS GEOMETRY "<triangles count=\"%zu\"><input semantic=\"VERTEX\" "
                                                 "source=\"#g-v\" offset=\"0\"/><p>",
                                       n / 3),
                         AM_OK);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(am_buf_printf(&x, NULL, i == bad[b][0] || i == bad[b][1] ? "7x " : "%zu ", i % 3), AM_OK);
        assert_int_equal(am_buf_printf(&x, NULL, "</p></triangles></mesh></geometry></library_geometries></COLLADA>"),
                         AM_OK);
        char said[64];
        snprintf(said, sizeof said, "'7x' (value %zu) is not an integer", bad[b][0]);
        must_refuse(x.data, x.size, said);
        am_buf_free(&x);
    }
}

/* "<COLLADA>" then depth x "<e>" ... "</e>" (optionally inside <asset><extra>). */
static char *nested(size_t depth, const char *tail)
{
    size_t n = strlen(HEAD_NS) + 7 * depth + strlen(tail) + 32;
    char *x = malloc(n);
    assert_non_null(x);
    char *p = x + sprintf(x, HEAD_NS);
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "<e>");
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "</e>");
    sprintf(p, "%s</COLLADA>", tail);
    return x;
}

static void test_deep_nesting_is_bounded(void **state)
{
    (void)state;
    /* 1,000,000 levels: refused while parsing, at the first level past the limit */
    char *x = nested(1000000, "");
    must_refuse((const uint8_t *)x, strlen(x), "elements nested deeper than 528 levels (line 1)");
    free(x);
    /* 520 levels before the scene: every walk over them (ids, <visual_scene>) is iterative */
    x = nested(520, SCENE);
    am_scene s;
    am_error err;
    char buf[600];
    if (read_bytes((const uint8_t *)x, strlen(x), &s, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(s.node_count, 1);
    am_scene_free(&s);
    free(x);
    /* the same for the skeleton file: 300 nested bones */
    am_buf b = {0};
    assert_int_equal(am_buf_printf(&b, NULL, "<linden_skeleton num_bones=\"300\" num_collision_volumes=\"0\">"), AM_OK);
    for (int i = 0; i < 300; i++)
        assert_int_equal(am_buf_printf(&b, NULL, "<bone name=\"b%d\" pos=\"0 0 0\" rot=\"0 0 0\" scale=\"1 1 1\" "
                                                 "pivot=\"0 0 0\">", i),
                         AM_OK);
    for (int i = 0; i < 300; i++)
        assert_int_equal(am_buf_printf(&b, NULL, "</bone>"), AM_OK);
    assert_int_equal(am_buf_printf(&b, NULL, "</linden_skeleton>"), AM_OK);
    am_skeleton sk;
    assert_int_equal(am_skeleton_parse((const char *)b.data, b.size, "deep.xml", &sk, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "deep.xml") || !strstr(buf, "nested"))
        fail_msg("skeleton: %s", buf);
    am_buf_free(&b);
}

/* The skeleton file and a RemoteAdmin reply refuse a DTD as the COLLADA reader does. */
static void test_other_xml_readers_refuse_a_dtd(void **state)
{
    (void)state;
    am_buf a = {0};
    assert_int_equal(am_buf_printf(&a, NULL, "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<!DOCTYPE x [<!ENTITY n "
                                             "\"mPelvis\">]><linden_skeleton num_bones=\"1\" "
                                             "num_collision_volumes=\"0\"><bone name=\"&n;\"/></linden_skeleton>"),
                     AM_OK);
    size_t n;
    uint8_t *u = utf16(&a, false, &n);
    am_skeleton sk;
    am_error err;
    char buf[600];
    assert_int_equal(am_skeleton_parse((const char *)u, n, "skel.xml", &sk, &err), AM_ERR_INVALID);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "skel.xml") || !strstr(buf, "<!DOCTYPE> (line 2) is not accepted"))
        fail_msg("skeleton: %s", buf);
    am_skeleton_free(&sk);
    free(u);
    am_buf_free(&a);
    /* the skeleton's tree budget (16 MiB: 65,536 elements and attributes), in a 0.5 MB file */
    am_buf big = {0};
    assert_int_equal(am_buf_printf(&big, NULL, "<linden_skeleton num_bones=\"1\" num_collision_volumes=\"0\">"), AM_OK);
    for (int i = 0; i < 70000; i++)
        assert_int_equal(am_buf_printf(&big, NULL, "<b/>"), AM_OK);
    assert_int_equal(am_buf_printf(&big, NULL, "</linden_skeleton>"), AM_OK);
    assert_int_equal(am_skeleton_parse((const char *)big.data, big.size, "wide.xml", &sk, &err), AM_ERR_INVALID);
    am_buf_free(&big);
    am_error_format(&err, buf, sizeof buf);
    if (!strstr(buf, "wide.xml") ||
        !strstr(buf, "memory budget of 16 MiB exceeded while reading the XML tree (over 65536 elements and attributes"))
        fail_msg("skeleton: %s", buf);
    const char *reply = "<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY t \"true\">]><methodResponse><params><param>"
                        "<value><struct><member><name>success</name><value><boolean>&t;</boolean></value></member>"
                        "</struct></value></param></params></methodResponse>";
    am_remoteadmin_reply r;
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)reply, strlen(reply), &r, &err), AM_ERR_INVALID);
    am_remoteadmin_reply_free(&r);
    if (!strstr(err.msg, "not an XML-RPC methodResponse") || !strstr(err.msg, "<!DOCTYPE>"))
        fail_msg("reply: %s", err.msg);
}

/* The whole command: `import` of the UTF-16 bomb, and of a skin naming 5,000,000 joints
 * (a 10 MB <Name_array>: before the count, storing the names took 85 times the file),
 * each under a 1 GiB cap: exit 1 naming the file, a small peak, nothing written. */
static void test_import_of_the_bombs_fails_cleanly_under_a_cap(void **state)
{
    (void)state;
    char dir[512], path[700], out_dir[700], skel[1024], msg[8192];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    am_buf a = {0};
    billion_laughs(&a, "UTF-16");
    size_t n;
    uint8_t *u = utf16(&a, false, &n);
    am_buf_free(&a);
    snprintf(path, sizeof path, "%s/laughs.dae", dir);
    assert_int_equal(am_write_file_atomic(path, u, n, NULL), AM_OK);
    free(u);
    const char *args[] = {"import", path, "--out", out_dir, "--skeleton", skel, NULL};
    size_t peak;
    int rc = am_test_run_cli_capped(1024, &peak, msg, sizeof msg, args);
    if (rc != 1 || !strstr(msg, "laughs.dae") || !strstr(msg, "<!DOCTYPE> (line 2) is not accepted"))
        fail_msg("import laughs.dae: exit %d: %s", rc, msg);
    assert_lt(peak, 200);
    /* the joint list */
    am_buf b = {0};
    assert_int_equal(am_buf_printf(&b, NULL, HEAD_NS GEOMETRY "<triangles count=\"1\"><input semantic=\"VERTEX\" "
                                             "source=\"#g-v\" offset=\"0\"/><p>0 1 2</p></triangles></mesh>"
                                             "</geometry></library_geometries><library_controllers><controller "
                                             "id=\"c\"><skin source=\"#g\"><source id=\"c-j\"><Name_array>"),
                     AM_OK);
    assert_int_equal(am_buf_reserve(&b, 10000000 + 4096, NULL), AM_OK);
    for (size_t i = 0; i < 5000000; i++)
        b.data[b.size++] = 'a', b.data[b.size++] = ' ';
    assert_int_equal(am_buf_printf(&b, NULL, "</Name_array></source><source id=\"c-w\"><float_array id=\"c-w-a\" "
                                             "count=\"1\">1</float_array></source><joints><input "
                                             "semantic=\"JOINT\" source=\"#c-j\"/></joints><vertex_weights "
                                             "count=\"4\"><input semantic=\"JOINT\" source=\"#c-j\" "
                                             "offset=\"0\"/><input semantic=\"WEIGHT\" source=\"#c-w\" "
                                             "offset=\"1\"/><vcount>1 1 1 1</vcount><v>0 0 0 0 0 0 0 0</v>"
                                             "</vertex_weights></skin></controller></library_controllers>"
                                             SCENE "</COLLADA>"),
                     AM_OK);
    snprintf(path, sizeof path, "%s/joints.dae", dir);
    assert_int_equal(am_write_file_atomic(path, b.data, b.size, NULL), AM_OK);
    am_buf_free(&b);
    rc = am_test_run_cli_capped(1024, &peak, msg, sizeof msg, args);
    if (rc != 1 || !strstr(msg, "joints.dae") || !strstr(msg, "5000000 joint names, over the limit of 65536"))
        fail_msg("import joints.dae: exit %d: %s", rc, msg);
    if (peak > 300)
        fail_msg("import joints.dae peaked at %zu MiB", peak);
    struct stat st;
    assert_int_not_equal(stat(out_dir, &st), 0);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_dtd_is_refused_in_every_encoding),
        cmocka_unit_test(test_a_utf16_document_without_dtd_reads),
        cmocka_unit_test(test_a_bad_vcount_entry_is_named),
        cmocka_unit_test(test_a_bad_token_in_a_long_list_is_named_by_its_index),
        cmocka_unit_test(test_deep_nesting_is_bounded),
        cmocka_unit_test(test_other_xml_readers_refuse_a_dtd),
        cmocka_unit_test(test_import_of_the_bombs_fails_cleanly_under_a_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
