/* OAR writer: read the archive back with libarchive and check every entry and element
 * against docs/reference/opensim-oar.md (layout, object XML, ExtraParams bytes, inventory, script),
 * and that the same input gives the same bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <uuid/uuid.h>
#include <zlib.h>

#include "support/test_support.h"
#include "core/io.h"
#include "world/archive_lib.h"
#include "world/oar.h"
#include "world/oar_files.h"
#include "support/world_fixtures.h"

#define MAX_ENTRIES 16

typedef struct entry {
    char path[512];
    uint8_t *data;
    size_t size;
    int64_t mtime;
    int uid, gid, mode;
} entry;

typedef struct unpacked {
    entry e[MAX_ENTRIES];
    size_t n;
} unpacked;

static void unpack(const am_buf *oar, unpacked *u)
{
    memset(u, 0, sizeof *u);
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, oar->data, oar->size), ARCHIVE_OK);
    struct archive_entry *ae;
    while (archive_read_next_header(a, &ae) == ARCHIVE_OK) {
        assert_lt(u->n, MAX_ENTRIES);
        entry *e = &u->e[u->n++];
        snprintf(e->path, sizeof e->path, "%s", archive_entry_pathname(ae));
        e->size = (size_t)archive_entry_size(ae);
        e->mtime = archive_entry_mtime(ae);
        e->uid = (int)archive_entry_uid(ae);
        e->gid = (int)archive_entry_gid(ae);
        e->mode = (int)archive_entry_mode(ae);
        e->data = malloc(e->size + 1);
        assert_non_null(e->data);
        assert_int_equal(archive_read_data(a, e->data, e->size), (la_ssize_t)e->size);
        e->data[e->size] = 0;
    }
    archive_read_free(a);
}

static void unpacked_free(unpacked *u)
{
    for (size_t i = 0; i < u->n; i++)
        free(u->e[i].data);
}

static const entry *find(const unpacked *u, const char *path)
{
    for (size_t i = 0; i < u->n; i++)
        if (strcmp(u->e[i].path, path) == 0)
            return &u->e[i];
    return NULL;
}

static int xp_count(xmlDoc *doc, const char *expr)
{
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return n;
}

static void expect_xp(xmlDoc *doc, const char *expr, const char *want)
{
    char *got = am_test_xpath_text(doc, expr);
    if (strcmp(got, want) != 0)
        fail_msg("%s = '%s', wanted '%s'", expr, got, want);
    free(got);
}

static size_t b64_decode(const char *b64, uint8_t *out, size_t cap)
{
    size_t len = strlen(b64);
    assert_le(len / 4 * 3, cap);
    int n = EVP_DecodeBlock(out, (const unsigned char *)b64, (int)len);
    assert_ge(n, 0);
    if (len && b64[len - 1] == '=')
        n--;
    if (len > 1 && b64[len - 2] == '=')
        n--;
    return (size_t)n;
}

/* The v5 derivation of docs/reference/opensim-oar.md#content-uuids, recomputed here with libuuid and
 * OpenSSL directly. */
static void expected_uuid(const char *kind, const void *data, size_t n, char out[37])
{
    unsigned char h[32];
    SHA256(data, n, h);
    char name[128];
    int k = snprintf(name, sizeof name, "%s:", kind);
    for (int i = 0; i < 32; i++)
        k += snprintf(name + k, sizeof name - (size_t)k, "%02x", h[i]);
    uuid_t ns, u;
    uuid_parse("8fe70114-ca16-4444-9d08-e92ae3b78847", ns);
    uuid_generate_sha1(u, ns, name, strlen(name));
    uuid_unparse_lower(u, out);
}

typedef struct inputs {
    uint8_t mesh[64];
    uint8_t tex[32];
    uint8_t walk[512], idle[512];
    size_t walk_size, idle_size;
    am_oar_anim anims[2];
    am_oar_input in;
} inputs;

static void make_inputs(inputs *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < sizeof t->mesh; i++)
        t->mesh[i] = (uint8_t)(i * 7 + 1);
    static const uint8_t soc_siz[4] = {0xff, 0x4f, 0xff, 0x51};
    memcpy(t->tex, soc_siz, 4);
    for (size_t i = 4; i < sizeof t->tex; i++)
        t->tex[i] = (uint8_t)i;
    t->walk_size = am_test_tiny_anim(t->walk, sizeof t->walk, "mPelvis", 2.0f);
    t->idle_size = am_test_tiny_anim(t->idle, sizeof t->idle, "mTorso", 1.0f);
    t->anims[0] = (am_oar_anim){"walk", t->walk, t->walk_size};
    t->anims[1] = (am_oar_anim){"idle & rest", t->idle, t->idle_size};
    t->in.mesh = t->mesh;
    t->in.mesh_size = sizeof t->mesh;
    t->in.texture = t->tex;
    t->in.texture_size = sizeof t->tex;
    t->in.anims = t->anims;
    t->in.anim_count = 2;
    t->in.play = "walk";
    t->in.position[0] = 128;
    t->in.position[1] = 64.4;
    t->in.position[2] = 22.6;
    t->in.object_name = "Bendy <1>";
    t->in.creation_time = 1700000000;
}

static void test_archive_layout_and_entries(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    /* gzip: magic, deflate, and no timestamp in the header (bytes 4..7). */
    assert_gt(oar.size, 18);
    assert_int_equal(oar.data[0], 0x1f);
    assert_int_equal(oar.data[1], 0x8b);
    assert_int_equal(oar.data[2], 8);
    assert_int_equal(oar.data[4] | oar.data[5] | oar.data[6] | oar.data[7], 0);

    unpacked u;
    unpack(&oar, &u);
    char mesh[37], tex[37], walk[37], idle[37];
    expected_uuid("mesh", t.mesh, sizeof t.mesh, mesh);
    expected_uuid("texture", t.tex, sizeof t.tex, tex);
    expected_uuid("animation", t.walk, t.walk_size, walk);
    expected_uuid("animation", t.idle, t.idle_size, idle);
    assert_int_equal(mesh[14], '5'); /* version-5 (name-based, SHA-1) UUIDs */

    assert_int_equal(u.n, 7); /* archive.xml, object, mesh, texture, 2 anims, script */
    assert_string_equal(u.e[0].path, "archive.xml");
    assert_int_equal(strncmp(u.e[1].path, "objects/Bendy__1__128-064-023__", 31), 0);
    for (size_t i = 0; i < u.n; i++) {
        assert_int_equal(u.e[i].mtime, 1700000000);
        assert_int_equal(u.e[i].uid, 0);
        assert_int_equal(u.e[i].gid, 0);
        assert_int_equal(u.e[i].mode & 0777, 0644);
    }
    for (size_t i = 3; i < u.n; i++) /* assets in ascending UUID order */
        assert_lt(strcmp(u.e[i - 1].path, u.e[i].path), 0);

    char path[256];
    snprintf(path, sizeof path, "assets/%s_mesh.llmesh", mesh);
    const entry *e = find(&u, path);
    assert_non_null(e);
    assert_int_equal(e->size, sizeof t.mesh);
    assert_memory_equal(e->data, t.mesh, sizeof t.mesh);
    snprintf(path, sizeof path, "assets/%s_texture.jp2", tex);
    assert_non_null(e = find(&u, path));
    assert_memory_equal(e->data, t.tex, sizeof t.tex);
    snprintf(path, sizeof path, "assets/%s_animation.bvh", walk);
    assert_non_null(e = find(&u, path));
    assert_int_equal(e->size, t.walk_size);
    assert_memory_equal(e->data, t.walk, t.walk_size);
    snprintf(path, sizeof path, "assets/%s_animation.bvh", idle);
    assert_non_null(find(&u, path));

    /* archive.xml */
    xmlDoc *doc = xmlReadMemory((const char *)u.e[0].data, (int)u.e[0].size, "archive.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    expect_xp(doc, "/archive/@major_version", "0");
    expect_xp(doc, "/archive/@minor_version", "8");
    expect_xp(doc, "/archive/creation_info/datetime", "1700000000");
    expect_xp(doc, "/archive/assets_included", "True");
    char *id = am_test_xpath_text(doc, "/archive/creation_info/id");
    uuid_t parsed;
    assert_int_equal(uuid_parse(id, parsed), 0);
    free(id);
    xmlFreeDoc(doc);
    unpacked_free(&u);
    am_buf_free(&oar);
}

static void test_object_xml_carries_the_animesh_prim(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    unpacked u;
    unpack(&oar, &u);
    char mesh[37], tex[37], walk[37], idle[37];
    expected_uuid("mesh", t.mesh, sizeof t.mesh, mesh);
    expected_uuid("texture", t.tex, sizeof t.tex, tex);
    expected_uuid("animation", t.walk, t.walk_size, walk);
    expected_uuid("animation", t.idle, t.idle_size, idle);

    xmlDoc *doc = xmlReadMemory((const char *)u.e[1].data, (int)u.e[1].size, "object.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    const char *P = "/SceneObjectGroup/RootPart/SceneObjectPart";
    char q[512];
#define X(rel, want)                                  \
    do {                                              \
        snprintf(q, sizeof q, "%s/%s", P, rel);       \
        expect_xp(doc, q, want);                      \
    } while (0)
    assert_int_equal(xp_count(doc, "/SceneObjectGroup/OtherParts/*"), 0);
    assert_int_equal(xp_count(doc, "/SceneObjectGroup/OtherParts"), 1);
    snprintf(q, sizeof q, "%s/UUID/Guid", P);
    char *part = am_test_xpath_text(doc, q);
    /* The file name ends with the root part's UUID. */
    char tail[64];
    snprintf(tail, sizeof tail, "__%s.xml", part);
    assert_string_equal(u.e[1].path + strlen(u.e[1].path) - strlen(tail), tail);
    X("Name", "Bendy <1>");
    X("GroupPosition/X", "128");
    X("GroupPosition/Y", "64.4");
    X("GroupPosition/Z", "22.6");
    X("RotationOffset/W", "1");
    X("Scale/X", "1");
    X("CreationDate", "1700000000");
    X("Shape/PCode", "9");
    X("Shape/ProfileCurve", "1");
    X("Shape/PathCurve", "16");
    X("Shape/SculptType", "5");
    X("Shape/SculptEntry", "true");
    X("Shape/SculptTexture/Guid", mesh);

    /* ExtraParams: the reference's bytes with this mesh's UUID. */
    uint8_t want[34] = {0x02, 0x30, 0x00, 0x11, 0x00, 0x00, 0x00};
    uuid_t mu;
    uuid_parse(mesh, mu);
    memcpy(want + 7, mu, 16);
    const uint8_t rest[] = {0x05, 0x70, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
    memcpy(want + 23, rest, sizeof rest);
    snprintf(q, sizeof q, "%s/Shape/ExtraParams", P);
    char *ep64 = am_test_xpath_text(doc, q);
    uint8_t ep[64];
    assert_int_equal(b64_decode(ep64, ep, sizeof ep), 34);
    assert_memory_equal(ep, want, 34);
    free(ep64);

    /* TextureEntry: default face = the texture, white, repeats 1. */
    snprintf(q, sizeof q, "%s/Shape/TextureEntry", P);
    char *te64 = am_test_xpath_text(doc, q);
    uint8_t te[128];
    assert_int_equal(b64_decode(te64, te, sizeof te), 63);
    uuid_t tu;
    uuid_parse(tex, tu);
    assert_memory_equal(te, tu, 16);
    assert_int_equal(te[16], 0); /* no per-face exceptions */
    const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3f};
    assert_memory_equal(te + 22, one, 4);
    assert_memory_equal(te + 27, one, 4);
    free(te64);

    /* Task inventory: the two animations (20/19) and the script (10/10). */
    snprintf(q, sizeof q, "%s/TaskInventory/TaskInventoryItem", P);
    assert_int_equal(xp_count(doc, q), 3);
    X("InventorySerial", "3");
    const char *names[2] = {"walk", "idle & rest"};
    const char *assets[2] = {walk, idle};
    for (int i = 0; i < 2; i++) {
        char item[256];
        /* XPath compares the unescaped text ("idle & rest" is written "idle &amp; rest"). */
        snprintf(item, sizeof item, "TaskInventory/TaskInventoryItem[Name=\"%s\"]", names[i]);
        char r[512];
        snprintf(r, sizeof r, "%s/Type", item);
        X(r, "20");
        snprintf(r, sizeof r, "%s/InvType", item);
        X(r, "19");
        snprintf(r, sizeof r, "%s/AssetID/Guid", item);
        X(r, assets[i]);
        snprintf(r, sizeof r, "%s/ParentPartID/Guid", item);
        X(r, part);
        snprintf(r, sizeof r, "%s/BasePermissions", item);
        X(r, "2147483647");
    }
    X("TaskInventory/TaskInventoryItem[Name='animesh start']/Type", "10");
    X("TaskInventory/TaskInventoryItem[Name='animesh start']/InvType", "10");
    snprintf(q, sizeof q, "%s/TaskInventory/TaskInventoryItem[Name='animesh start']/AssetID/Guid", P);
    char *script_id = am_test_xpath_text(doc, q);
    char path[256];
    snprintf(path, sizeof path, "assets/%s_script.lsl", script_id);
    const entry *s = find(&u, path);
    assert_non_null(s);
    const char *lsl = (const char *)s->data;
    assert_non_null(strstr(lsl, "string ANIMATION = \"walk\";"));
    const char *se = strstr(lsl, "state_entry()");
    const char *orz = strstr(lsl, "on_rez(integer start_param)");
    assert_non_null(se);
    assert_non_null(orz);
    const char *call1 = strstr(se, "llStartObjectAnimation(ANIMATION);");
    assert_non_null(call1);
    assert_lt(call1, orz);
    assert_non_null(strstr(orz, "llStartObjectAnimation(ANIMATION);"));
    /* Item IDs are distinct. */
    snprintf(q, sizeof q, "%s/TaskInventory/TaskInventoryItem/ItemID/Guid", P);
    assert_int_equal(xp_count(doc, q), 3);
    free(script_id);
    free(part);
#undef X
    xmlFreeDoc(doc);
    unpacked_free(&u);
    am_buf_free(&oar);
}

static void test_same_input_same_bytes_and_content_changes_ids(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    am_buf a = {0}, b = {0}, c = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &a, &err), AM_OK);
    assert_int_equal(am_oar_write(&t.in, &b, &err), AM_OK);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);

    am_oar_plan p1, p2;
    assert_int_equal(am_oar_plan_make(&t.in, &p1, &err), AM_OK);
    t.walk[t.walk_size - 12] ^= 1; /* one bit of the walk's key data */
    assert_int_equal(am_oar_plan_make(&t.in, &p2, &err), AM_OK);
    assert_memory_not_equal(p1.anim_assets[0].b, p2.anim_assets[0].b, 16);
    assert_memory_equal(p1.anim_assets[1].b, p2.anim_assets[1].b, 16);
    assert_memory_equal(p1.mesh.b, p2.mesh.b, 16);
    assert_memory_not_equal(p1.part.b, p2.part.b, 16); /* a new object, not an overwrite */
    assert_int_equal(am_oar_write(&t.in, &c, &err), AM_OK);
    assert_true(c.size != a.size || memcmp(c.data, a.data, a.size) != 0);
    am_oar_plan_free(&p1);
    am_oar_plan_free(&p2);
    am_buf_free(&a);
    am_buf_free(&b);
    am_buf_free(&c);
}

static void test_shared_anim_bytes_are_one_asset_two_items(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    t.anims[1].data = t.walk;
    t.anims[1].size = t.walk_size;
    t.in.play = NULL;
    t.in.texture = NULL;
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    unpacked u;
    unpack(&oar, &u);
    assert_int_equal(u.n, 4); /* archive.xml, object, mesh, one animation; no script, no texture */
    xmlDoc *doc = xmlReadMemory((const char *)u.e[1].data, (int)u.e[1].size, "o.xml", NULL, XML_PARSE_NONET);
    assert_int_equal(xp_count(doc, "//TaskInventoryItem[Type='20']"), 2);
    assert_int_equal(xp_count(doc, "//TaskInventoryItem[Type='10']"), 0);
    /* No texture: the default face gets the stock plywood texture. */
    char *te64 = am_test_xpath_text(doc, "//Shape/TextureEntry");
    uint8_t te[128];
    b64_decode(te64, te, sizeof te);
    uuid_t ply;
    uuid_parse("89556747-24cb-43ed-920b-47caed15465f", ply);
    assert_memory_equal(te, ply, 16);
    free(te64);
    xmlFreeDoc(doc);
    unpacked_free(&u);
    am_buf_free(&oar);
}

static void test_bad_inputs_are_refused_with_a_reason(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    am_buf oar = {0};
    am_error err;
    t.tex[0] = 0;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "JPEG-2000 code stream"));
    make_inputs(&t);
    t.in.play = "run";
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the play option run"));
    make_inputs(&t);
    t.anims[1].name = "walk";
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "two animations are named \"walk\""));
    make_inputs(&t);
    t.anims[1].name = "a|b";
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    make_inputs(&t);
    t.anims[1].name = "0123456789012345678901234567890123456789012345678901234567890123"; /* 64 bytes */
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "1..63 bytes"));
    make_inputs(&t);
    t.in.mesh_size = 0;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
    assert_int_equal(oar.size, 0);
}

static void test_extra_params_and_script_escaping(void **state)
{
    (void)state;
    am_uuid u;
    assert_true(am_uuid_parse("01234567-89ab-cdef-0123-456789abcdef", &u));
    uint8_t ep[AM_OAR_EXTRA_PARAMS_SIZE];
    am_oar_extra_params(&u, ep);
    const uint8_t want[34] = {0x02, 0x30, 0x00, 0x11, 0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
                              0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x05, 0x70, 0x00,
                              0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
    assert_memory_equal(ep, want, 34);
    /* The default face's colour is stored inverted (255 - c): white is 00 00 00 00, and the
     * rig colour (0.55, 0.4, 0.25) is 255-140, 255-102, 255-64, alpha 00 (opaque). */
    uint8_t te[AM_OAR_TEXTURE_ENTRY_SIZE];
    am_oar_texture_entry(&u, NULL, te);
    const uint8_t white[5] = {0x00, 0x00, 0x00, 0x00, 0x00};
    assert_memory_equal(te + 17, white, 4);
    const double rgb[3] = {0.55, 0.4, 0.25};
    am_oar_texture_entry(&u, rgb, te);
    const uint8_t tinted[4] = {0x73, 0x99, 0xbf, 0x00};
    assert_memory_equal(te + 17, tinted, 4);
    assert_memory_equal(te, u.b, 16);
    char *lsl = NULL;
    am_error err;
    assert_int_equal(am_oar_lsl_script("say \"hi\" \\o/", &lsl, &err), AM_OK);
    assert_non_null(strstr(lsl, "string ANIMATION = \"say \\\"hi\\\" \\\\o/\";"));
    free(lsl);
}

/* OpenSim's tar reader reads only the 100-byte name field of each 512-byte header: check the
 * raw headers (gunzip with zlib, walk the blocks) for a long object name. */
static void test_raw_tar_headers_hold_whole_paths(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    t.in.object_name = "A very long creature name that goes on and on, past 50 bytes"; /* 60 */
    t.in.position[0] = 2047.6; /* a var region: four digits */
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    size_t cap = 1 << 20;
    uint8_t *tar = malloc(cap);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = oar.data;
    z.avail_in = (uInt)oar.size;
    z.next_out = tar;
    z.avail_out = (uInt)cap;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    inflateEnd(&z);
    size_t off = 0, entries = 0;
    while (off + 512 <= n && tar[off] != 0) {
        const uint8_t *h = tar + off;
        char name[101];
        memcpy(name, h, 100);
        name[100] = 0;
        assert_le(strlen(name), 99);
        assert_int_equal(h[345], 0); /* ustar prefix field unused */
        assert_true(h[156] == '0');  /* regular file: no pax 'x' or GNU 'L' headers */
        assert_memory_equal(h + 257, "ustar", 5);
        if (entries == 1) {
            assert_int_equal(strncmp(name, "objects/A_very_long_creature_name", 33), 0);
            assert_non_null(strstr(name, "_2048-064-023__"));
            assert_int_equal(strcmp(name + strlen(name) - 4, ".xml"), 0);
        }
        char size_oct[13];
        memcpy(size_oct, h + 124, 12);
        size_oct[12] = 0;
        size_t sz = (size_t)strtoul(size_oct, NULL, 8);
        off += 512 + (sz + 511) / 512 * 512;
        entries++;
    }
    assert_int_equal(entries, 7);
    free(tar);
    am_buf_free(&oar);
    /* A position outside any region is refused (and would not fit a header). */
    t.in.position[2] = 1e9;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_ERR_INVALID);
}

/* A linkset (the import's several rigged meshes): the root prim carries the animesh flag
 * and the inventory; each other mesh is a child prim in OtherParts (OpenSim's
 * SceneObjectSerializer: <OtherParts><Part><SceneObjectPart>), LinkNum 2, 3, its own mesh
 * asset, sculpt entry only (no 0x70 flag), no inventory, at the group's position. */
static void test_linkset_children_are_other_parts(void **state)
{
    (void)state;
    inputs t;
    make_inputs(&t);
    uint8_t m2[48], m3[40];
    for (size_t i = 0; i < sizeof m2; i++)
        m2[i] = (uint8_t)(i * 3 + 2);
    for (size_t i = 0; i < sizeof m3; i++)
        m3[i] = (uint8_t)(i * 5 + 9);
    am_oar_child kids[2];
    memset(kids, 0, sizeof kids);
    kids[0].mesh = m2;
    kids[0].mesh_size = sizeof m2;
    kids[0].name = "head";
    kids[0].has_color = true;
    kids[0].color[0] = 1;
    kids[1].mesh = m3;
    kids[1].mesh_size = sizeof m3;
    kids[1].texture = t.tex;
    kids[1].texture_size = sizeof t.tex;
    t.in.children = kids;
    t.in.child_count = 2;
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    unpacked u;
    unpack(&oar, &u);
    char mesh[37], c2[37], c3[37], tex[37], path[512];
    expected_uuid("mesh", t.mesh, sizeof t.mesh, mesh);
    expected_uuid("mesh", m2, sizeof m2, c2);
    expected_uuid("mesh", m3, sizeof m3, c3);
    expected_uuid("texture", t.tex, sizeof t.tex, tex);
    /* every mesh asset, exactly; the shared texture once */
    const char *ids[3] = {mesh, c2, c3};
    const uint8_t *bytes[3] = {t.mesh, m2, m3};
    size_t sizes[3] = {sizeof t.mesh, sizeof m2, sizeof m3};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "assets/%s_mesh.llmesh", ids[i]);
        const entry *e = find(&u, path);
        assert_non_null(e);
        assert_int_equal(e->size, sizes[i]);
        assert_memory_equal(e->data, bytes[i], sizes[i]);
    }
    size_t textures = 0;
    for (size_t i = 0; i < u.n; i++)
        textures += strstr(u.e[i].path, "_texture.jp2") != NULL;
    assert_int_equal(textures, 1);

    xmlDoc *doc = xmlReadMemory((const char *)u.e[1].data, (int)u.e[1].size, "object.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    assert_int_equal(xp_count(doc, "/SceneObjectGroup/OtherParts/Part/SceneObjectPart"), 2);
    expect_xp(doc, "/SceneObjectGroup/RootPart/SceneObjectPart/LinkNum", "1");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[1]/SceneObjectPart/LinkNum", "2");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/LinkNum", "3");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[1]/SceneObjectPart/Name", "head");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/Name", "Bendy <1>");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[1]/SceneObjectPart/Shape/SculptTexture/Guid", c2);
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/Shape/SculptTexture/Guid", c3);
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/GroupPosition/Y", "64.4");
    expect_xp(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/OffsetPosition/X", "0");
    assert_int_equal(xp_count(doc, "/SceneObjectGroup/OtherParts//TaskInventoryItem"), 0);
    assert_int_equal(xp_count(doc, "/SceneObjectGroup/RootPart//TaskInventoryItem"), 3);
    /* the root keeps the animesh flag; a child carries only its sculpt entry */
    char *ep64 = am_test_xpath_text(doc, "/SceneObjectGroup/RootPart/SceneObjectPart/Shape/ExtraParams");
    uint8_t ep[64];
    assert_int_equal(b64_decode(ep64, ep, sizeof ep), 34);
    assert_int_equal(ep[24], 0x70); /* after the sculpt entry (1 + 6 + 17 bytes) */
    free(ep64);
    ep64 = am_test_xpath_text(doc, "/SceneObjectGroup/OtherParts/Part[1]/SceneObjectPart/Shape/ExtraParams");
    assert_int_equal(b64_decode(ep64, ep, sizeof ep), 24);
    uint8_t want[24] = {0x01, 0x30, 0x00, 0x11, 0x00, 0x00, 0x00};
    uuid_t cu;
    uuid_parse(c2, cu);
    memcpy(want + 7, cu, 16);
    want[23] = 5;
    assert_memory_equal(ep, want, 24);
    free(ep64);
    /* the child's texture and tint */
    char *te64 = am_test_xpath_text(doc, "/SceneObjectGroup/OtherParts/Part[2]/SceneObjectPart/Shape/TextureEntry");
    uint8_t te[128];
    assert_int_equal(b64_decode(te64, te, sizeof te), 63);
    uuid_t tu;
    uuid_parse(tex, tu);
    assert_memory_equal(te, tu, 16);
    free(te64);
    te64 = am_test_xpath_text(doc, "/SceneObjectGroup/OtherParts/Part[1]/SceneObjectPart/Shape/TextureEntry");
    assert_int_equal(b64_decode(te64, te, sizeof te), 63);
    assert_int_equal(te[17], 0);   /* red stays (stored inverted) */
    assert_int_equal(te[18], 255); /* green and blue off */
    free(te64);
    xmlFreeDoc(doc);
    unpacked_free(&u);
    am_buf_free(&oar);
}

/* world/oar_files.h: the archive from files is the archive of the same bytes in memory
 * (same plan, same bytes); a broken .anim is refused naming its path, and nothing is written. */
static void test_an_archive_from_files_is_the_archive_of_their_bytes(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf expected = {0};
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_oar_write(&t.in, &expected, &err), AM_OK);
    char dir[256], mesh[512], tex[512], anim[512], out[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(mesh, sizeof mesh, "%s/cube.llmesh", dir);
    snprintf(tex, sizeof tex, "%s/cube.j2c", dir);
    snprintf(anim, sizeof anim, "%s/yes.anim", dir);
    snprintf(out, sizeof out, "%s/cube.oar", dir);
    assert_int_equal(am_write_file_atomic(mesh, t.mesh, t.mesh_size, &err), AM_OK);
    assert_int_equal(am_write_file_atomic(tex, t.texture.data, t.texture.size, &err), AM_OK);
    assert_int_equal(am_write_file_atomic(anim, t.anim, t.anim_size, &err), AM_OK);
    const char *names[] = {"yes_head"}, *paths[] = {anim};
    am_oar_files f = {.mesh_path = mesh, .texture_path = tex, .anim_names = names, .anim_paths = paths,
                      .anim_count = 1};
    am_oar_input in = t.in; /* its bytes are ignored: the files are read */
    in.mesh = NULL;
    in.anims = NULL;
    am_oar_files_report rep;
    assert_int_equal(am_oar_write_files(&f, &in, out, &rep, &err), AM_OK);
    size_t size;
    uint8_t *written = am_test_slurp(out, &size);
    assert_int_equal(size, expected.size);
    assert_memory_equal(written, expected.data, size);
    assert_int_equal(rep.check.meshes, 1);
    assert_int_equal(rep.check.animations, 1);
    assert_int_equal(rep.check.textures, 1);
    assert_int_equal(rep.check.scripts, 1);
    assert_non_null(strstr(am_str(&rep.object_path), "objects/cube_100-100-030__")); /* OpenSim pads each to 3 */
    assert_int_equal(rep.object_path.length, strlen(am_str(&rep.object_path)));
    free(written);
    am_oar_files_report_free(&rep);
    /* a .anim cut short: refused, naming the file; the archive already there is untouched */
    assert_int_equal(am_write_file_atomic(anim, t.anim, t.anim_size / 2, &err), AM_OK);
    snprintf(out, sizeof out, "%s/second.oar", dir);
    assert_int_not_equal(am_oar_write_files(&f, &in, out, &rep, &err), AM_OK);
    assert_string_equal(err.where, anim);
    am_oar_files_report_free(&rep);
    assert_int_equal(am_test_count_entries(dir), 4); /* the three inputs and cube.oar */
    am_test_rmtree(dir);
    am_buf_free(&expected);
    am_test_oar_inputs_free(&t);
}

/* world/oar_files.h: the animations are the caller's list, with no cap of their own: 70 (the
 * old fixed array held 64) reach the object's inventory in order, the last one plays, and the
 * report's object path is the archive's own. */
static void test_an_archive_from_files_holds_every_animation_given(void **state)
{
    (void)state;
    enum { N = 70 };
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_error err;
    am_error_clear(&err);
    char dir[256], mesh[512], anim[512], out[512];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(mesh, sizeof mesh, "%s/cube.llmesh", dir);
    snprintf(anim, sizeof anim, "%s/yes.anim", dir);
    snprintf(out, sizeof out, "%s/many.oar", dir);
    assert_int_equal(am_write_file_atomic(mesh, t.mesh, t.mesh_size, &err), AM_OK);
    assert_int_equal(am_write_file_atomic(anim, t.anim, t.anim_size, &err), AM_OK);
    char name_text[N][16];
    const char *names[N], *paths[N];
    for (int i = 0; i < N; i++) {
        snprintf(name_text[i], sizeof name_text[i], "yes_%02d", i);
        names[i] = name_text[i];
        paths[i] = anim;
    }
    am_oar_files f = {.mesh_path = mesh, .anim_names = names, .anim_paths = paths, .anim_count = N};
    am_oar_input in = t.in;
    in.mesh = NULL;
    in.texture = NULL;
    in.anims = NULL;
    in.play = names[N - 1];
    am_oar_files_report rep;
    assert_int_equal(am_oar_write_files(&f, &in, out, &rep, &err), AM_OK);
    assert_non_null(rep.unknown_joints);
    assert_int_equal(rep.unknown_joints[N - 1], 0);
    size_t size;
    uint8_t *written = am_test_slurp(out, &size);
    am_oar_contents c;
    assert_int_equal(am_oar_read(written, size, &c, &err), AM_OK);
    assert_int_equal(c.object_count, 1);
    assert_string_equal(c.objects[0].path, am_str(&rep.object_path));
    const am_oar_part *root = &c.objects[0].parts[0];
    size_t animations = 0;
    for (size_t i = 0; i < root->item_count; i++)
        if (root->items[i].type == 20)
            assert_string_equal(root->items[i].name, names[animations++]);
    assert_int_equal(animations, N);
    am_oar_contents_free(&c);
    free(written);
    am_oar_files_report_free(&rep);
    am_oar_files_report_free(&rep); /* freed twice: the first zeroed it */
    assert_null(rep.object_path.data);
    am_test_rmtree(dir);
    am_test_oar_inputs_free(&t);
}

/* world/archive_lib.h: the table holds libarchive's own calls (this test links libarchive,
 * so the library loaded is the one already in the process and every call its address). */
static void test_libarchive_is_loaded_with_every_call(void **state)
{
    (void)state;
    am_archive_api ar;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_archive_open(&ar, &err), AM_OK);
    assert_true(ar.error_string == archive_error_string);
    assert_true(ar.set_error == archive_set_error);
    assert_true(ar.write_new == archive_write_new);
    assert_true(ar.write_set_format_ustar == archive_write_set_format_ustar);
    assert_true(ar.write_add_filter_gzip == archive_write_add_filter_gzip);
    assert_true(ar.write_set_filter_option == archive_write_set_filter_option);
    assert_true(ar.write_set_bytes_in_last_block == archive_write_set_bytes_in_last_block);
    assert_true(ar.write_open2 == archive_write_open2);
    assert_true(ar.write_header == archive_write_header);
    assert_true(ar.write_data == archive_write_data);
    assert_true(ar.write_close == archive_write_close);
    assert_true(ar.write_free == archive_write_free);
    assert_true(ar.read_new == archive_read_new);
    assert_true(ar.read_support_format_tar == archive_read_support_format_tar);
    assert_true(ar.read_open == archive_read_open);
    assert_true(ar.read_next_header == archive_read_next_header);
    assert_true(ar.read_data == archive_read_data);
    assert_true(ar.read_free == archive_read_free);
    assert_true(ar.entry_new == archive_entry_new);
    assert_true(ar.entry_free == archive_entry_free);
    assert_true(ar.entry_set_pathname == archive_entry_set_pathname);
    assert_true(ar.entry_set_size == archive_entry_set_size);
    assert_true(ar.entry_set_filetype == archive_entry_set_filetype);
    assert_true(ar.entry_set_perm == archive_entry_set_perm);
    assert_true(ar.entry_set_mtime == archive_entry_set_mtime);
    assert_true(ar.entry_set_uid == archive_entry_set_uid);
    assert_true(ar.entry_set_gid == archive_entry_set_gid);
    assert_true(ar.entry_pathname == archive_entry_pathname);
    assert_true(ar.entry_size == archive_entry_size);
    assert_true(ar.entry_filetype == archive_entry_filetype);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linkset_children_are_other_parts),
        cmocka_unit_test(test_archive_layout_and_entries),
        cmocka_unit_test(test_object_xml_carries_the_animesh_prim),
        cmocka_unit_test(test_same_input_same_bytes_and_content_changes_ids),
        cmocka_unit_test(test_shared_anim_bytes_are_one_asset_two_items),
        cmocka_unit_test(test_bad_inputs_are_refused_with_a_reason),
        cmocka_unit_test(test_extra_params_and_script_escaping),
        cmocka_unit_test(test_raw_tar_headers_hold_whole_paths),
        cmocka_unit_test(test_an_archive_from_files_is_the_archive_of_their_bytes),
        cmocka_unit_test(test_an_archive_from_files_holds_every_animation_given),
        cmocka_unit_test(test_libarchive_is_loaded_with_every_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
