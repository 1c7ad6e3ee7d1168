/* Reading archives back (oar_check.h): what am_oar_read and am_oar_check accept and refuse, on
 * archives built from real inputs (a viewer-made mesh, a stock .anim, a texture from our
 * encoder), cut at every byte, damaged entry by entry, salted, linked; and am_oar_compare
 * against saves written the way OpenSim 0.9.2.2 writes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "mesh/mesh_asset.h"
#include "support/test_support.h"
#include "world/digest.h"
#include "world/oar_check.h"
#include "support/world_fixtures.h"

#define MAX_ENTRIES 16

static void write_oar(const am_oar_input *in, am_buf *out)
{
    am_error err;
    if (am_oar_write(in, out, &err))
        fail_msg("am_oar_write: %s", err.msg);
}

static void expect_refused(const am_buf *oar, const char *where, const char *msg_part)
{
    am_error err;
    am_error_clear(&err);
    am_oar_check_report rep;
    am_status s = am_oar_check_bytes(oar->data, oar->size, &rep, &err);
    if (s == AM_OK)
        fail_msg("accepted; wanted a refusal (%s)", where ? where : msg_part);
    assert_int_equal(s, AM_ERR_INVALID);
    if (where && strncmp(err.where, where, strlen(where)) != 0) /* a decoder may add its own place */
        fail_msg("where = '%s' (%s), wanted '%s'", err.where, err.msg, where);
    if (msg_part && !strstr(err.msg, msg_part))
        fail_msg("message '%s' lacks '%s'", err.msg, msg_part);
}

static void test_written_archive_reads_back_and_passes(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    am_oar_contents c;
    am_error err;
    assert_int_equal(am_oar_read(oar.data, oar.size, &c, &err), AM_OK);
    assert_int_equal(c.entry_count, 6);
    assert_string_equal(c.entries[0].path, "archive.xml");
    assert_int_equal(c.major_version, 0);
    assert_int_equal(c.minor_version, 8);
    assert_string_equal(c.salt, "");
    assert_int_equal(c.object_count, 1);
    assert_int_equal(c.objects[0].part_count, 1);
    const am_oar_part *p = &c.objects[0].parts[0];
    char mesh[37], tex[37], anim[37], u[37];
    am_test_content_uuid("mesh", NULL, t.mesh, t.mesh_size, mesh);
    am_test_content_uuid("texture", NULL, t.texture.data, t.texture.size, tex);
    am_test_content_uuid("animation", NULL, t.anim, t.anim_size, anim);
    assert_string_equal(p->name, "cube");
    assert_true(p->has_sculpt);
    assert_int_equal(p->sculpt_type, 5);
    am_uuid_format(&p->sculpt, u);
    assert_string_equal(u, mesh);
    assert_true(p->has_mesh_flags);
    assert_int_equal(p->mesh_flags, 1);
    assert_true(p->has_texture);
    am_uuid_format(&p->texture, u);
    assert_string_equal(u, tex);
    assert_near(p->group_position[2], 30, 1e-9);
    assert_int_equal(p->item_count, 2);
    assert_string_equal(p->items[0].name, "yes_head");
    am_uuid_format(&p->items[0].asset, u);
    assert_string_equal(u, anim);
    assert_int_equal(p->items[0].type, 20);
    assert_int_equal(p->items[0].inv_type, 19);
    assert_int_equal(p->items[1].type, 10);
    assert_int_equal(p->playing_count, 0);
    am_oar_check_report rep;
    assert_int_equal(am_oar_check(&c, &rep, &err), AM_OK);
    assert_int_equal(rep.objects, 1);
    assert_int_equal(rep.parts, 1);
    assert_int_equal(rep.meshes, 1);
    assert_int_equal(rep.animations, 1);
    assert_int_equal(rep.textures, 1);
    assert_int_equal(rep.scripts, 1);
    am_oar_contents_free(&c);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

static void test_every_cut_is_refused_naming_the_entry(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    size_t named = 0;
    for (size_t cut = 0; cut < oar.size; cut++) {
        am_oar_contents c;
        am_error err;
        am_error_clear(&err);
        am_status s = am_oar_read(oar.data, cut, &c, &err);
        if (s != AM_ERR_INVALID)
            fail_msg("a cut at %zu of %zu bytes gave %d", cut, oar.size, s);
        char want[128];
        am_test_entry_at_cut(&oar, cut, want, sizeof want);
        if (cut >= 18 && want[0]) {
            if (strcmp(err.where, want) != 0)
                fail_msg("cut at %zu: where '%s' (%s), the cut falls in %s", cut, err.where, err.msg, want);
            assert_non_null(strstr(err.msg, "the file is cut short"));
            named++;
        }
    }
    assert_gt(named, oar.size / 2); /* most cuts fall inside some entry's data */
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

/* The archive's entries with entry i replaced (data NULL: dropped), packed again. */
static void repack(const am_buf *oar, size_t i, const void *data, size_t size, const char *path, am_buf *out)
{
    am_test_tar_entry e[MAX_ENTRIES];
    size_t n = am_test_untar(oar, e, MAX_ENTRIES);
    const am_test_tar_entry *order[MAX_ENTRIES];
    am_test_tar_entry repl;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (j != i) {
            order[k++] = &e[j];
        } else if (data) {
            snprintf(repl.path, sizeof repl.path, "%s", path ? path : e[j].path);
            repl.data = (uint8_t *)data;
            repl.size = size;
            order[k++] = &repl;
        }
    }
    am_test_pack_tgz(order, k, out);
    am_test_tar_free(e, n);
}

static void test_damaged_entries_are_refused_by_name(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    am_test_tar_entry e[MAX_ENTRIES];
    size_t n = am_test_untar(&oar, e, MAX_ENTRIES);
    assert_int_equal(n, 6);
    /* Repacked untouched by another writer (libarchive): still fine. */
    am_buf b = {0};
    repack(&oar, SIZE_MAX, NULL, 0, NULL, &b);
    am_error err;
    assert_int_equal(am_oar_check_bytes(b.data, b.size, NULL, &err), AM_OK);
    am_buf_free(&b);
    /* One byte changed in each asset: it no longer matches its UUID (or no longer decodes). */
    for (size_t i = 2; i < n; i++) {
        uint8_t *d = malloc(e[i].size);
        memcpy(d, e[i].data, e[i].size);
        d[e[i].size / 2] ^= 0x01;
        repack(&oar, i, d, e[i].size, NULL, &b);
        expect_refused(&b, e[i].path, NULL);
        am_buf_free(&b);
        /* and one byte shorter (a whole tar around it): the same */
        repack(&oar, i, e[i].data, e[i].size - 1, NULL, &b);
        expect_refused(&b, e[i].path, NULL);
        am_buf_free(&b);
        free(d);
    }
    /* An asset of a kind we do not decode, and one filed under another name. */
    repack(&oar, 2, e[2].data, e[2].size, "assets/0b8f1ae2-3b1c-4a57-9d05-2c5e07b4f0a1_notecard.txt", &b);
    expect_refused(&b, "assets/0b8f1ae2-3b1c-4a57-9d05-2c5e07b4f0a1_notecard.txt", "does not write or decode");
    am_buf_free(&b);
    repack(&oar, 2, e[2].data, e[2].size, "extra/readme.txt", &b);
    expect_refused(&b, "extra/readme.txt", "unexpected entry");
    am_buf_free(&b);
    /* A referenced asset left out: the object names what is missing. */
    char tex[37], path[128];
    am_test_content_uuid("texture", NULL, t.texture.data, t.texture.size, tex);
    snprintf(path, sizeof path, "assets/%s_texture.jp2", tex);
    size_t ti = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].path, path) == 0)
            ti = i;
    assert_ge(ti, 2);
    repack(&oar, ti, NULL, 0, NULL, &b);
    expect_refused(&b, NULL, "the default face's texture");
    am_buf_free(&b);
    /* archive.xml must come first; a major version above 1 is refused as OpenSim refuses it. */
    {
        const am_test_tar_entry *order[MAX_ENTRIES];
        for (size_t i = 0; i < n; i++)
            order[i] = &e[(i + 1) % n];
        am_test_pack_tgz(order, n, &b);
        expect_refused(&b, NULL, "not archive.xml");
        am_buf_free(&b);
    }
    const char *v2 = "<?xml version=\"1.0\"?><archive major_version=\"2\" minor_version=\"0\"></archive>";
    repack(&oar, 0, v2, strlen(v2), NULL, &b);
    expect_refused(&b, "archive.xml", "major versions up to 1");
    am_buf_free(&b);
    /* No object at all. */
    repack(&oar, 1, NULL, 0, NULL, &b);
    expect_refused(&b, NULL, "no object");
    am_buf_free(&b);
    /* A byte after the gzip stream; an empty file; 100 bytes. */
    am_buf x = {0};
    assert_int_equal(am_buf_append(&x, oar.data, oar.size, &err), AM_OK);
    assert_int_equal(am_buf_append(&x, "\0", 1, &err), AM_OK);
    expect_refused(&x, NULL, "1 bytes follow the end of the gzip stream");
    x.size = 0;
    expect_refused(&x, NULL, "empty file");
    x.size = 100;
    memcpy(x.data, oar.data, 100);
    expect_refused(&x, NULL, "cut short");
    am_buf_free(&x);
    am_test_tar_free(e, n);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

static void test_tar_without_end_marker_or_with_a_bad_checksum(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    /* Inflate, damage, deflate again with zlib (gzip wrapper). */
    uint8_t *tar = malloc(1 << 20);
    uLongf n = 1 << 20;
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = oar.data;
    z.avail_in = (uInt)oar.size;
    z.next_out = tar;
    z.avail_out = (uInt)n;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    n = z.total_out;
    inflateEnd(&z);
    char sz[13];
    memcpy(sz, tar + 124, 12);
    sz[12] = 0;
    size_t second = 512 + (strtoul(sz, NULL, 8) + 511) / 512 * 512; /* the object's header */
    for (int variant = 0; variant < 2; variant++) {
        size_t len = n;
        uint8_t saved = tar[second + 148];
        if (variant == 0)
            len = n - 1024; /* the two zero blocks gone */
        else
            tar[second + 148] ^= 0x01; /* the object header's checksum field */
        am_buf gz = {0};
        am_error err;
        assert_int_equal(am_buf_reserve(&gz, len + 1024, &err), AM_OK);
        z_stream d;
        memset(&d, 0, sizeof d);
        assert_int_equal(deflateInit2(&d, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
        d.next_in = tar;
        d.avail_in = (uInt)len;
        d.next_out = gz.data;
        d.avail_out = (uInt)(len + 1024);
        assert_int_equal(deflate(&d, Z_FINISH), Z_STREAM_END);
        gz.size = d.total_out;
        deflateEnd(&d);
        expect_refused(&gz, NULL, variant == 0 ? "no end marker" : "damaged tar");
        am_buf_free(&gz);
        tar[second + 148] = saved;
    }
    free(tar);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

static void test_salt_changes_every_uuid_and_is_recorded(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf plain = {0}, salted = {0};
    write_oar(&t.in, &plain);
    t.in.uuid_salt = "2024-06-01.b";
    write_oar(&t.in, &salted);
    am_oar_contents a, b;
    am_error err;
    assert_int_equal(am_oar_read(plain.data, plain.size, &a, &err), AM_OK);
    assert_int_equal(am_oar_read(salted.data, salted.size, &b, &err), AM_OK);
    assert_string_equal(b.salt, "2024-06-01.b");
    assert_int_equal(am_oar_check(&b, NULL, &err), AM_OK);
    char mesh[37], u[37];
    am_test_content_uuid("mesh", "2024-06-01.b", t.mesh, t.mesh_size, mesh);
    am_uuid_format(&b.objects[0].parts[0].sculpt, u);
    assert_string_equal(u, mesh);
    for (size_t i = 2; i < a.entry_count; i++) /* no asset path in common */
        assert_null(am_oar_find_entry(&b, a.entries[i].path));
    assert_memory_not_equal(a.objects[0].parts[0].uuid.b, b.objects[0].parts[0].uuid.b, 16);
    /* The salt removed from archive.xml: the assets no longer match their names. */
    const char *bare = "<?xml version=\"1.0\"?><archive major_version=\"0\" minor_version=\"8\">"
                       "<assets_included>True</assets_included></archive>";
    am_buf c = {0};
    repack(&salted, 0, bare, strlen(bare), NULL, &c);
    expect_refused(&c, NULL, "(no salt in archive.xml)");
    am_buf_free(&c);
    assert_int_equal(am_oar_check_salt("a b", &err), AM_ERR_INVALID);
    assert_int_equal(am_oar_check_salt("", &err), AM_ERR_INVALID);
    assert_int_equal(am_oar_check_salt("0123456789012345678901234567890123456789012345678901234567890123x", &err),
                     AM_ERR_INVALID);
    assert_int_equal(am_oar_check_salt("0123456789012345678901234567890123456789012345678901234567890123", &err), AM_OK);
    t.in.uuid_salt = "no/slash";
    assert_int_equal(am_oar_write(&t.in, &c, &err), AM_ERR_INVALID);
    am_oar_contents_free(&a);
    am_oar_contents_free(&b);
    am_buf_free(&plain);
    am_buf_free(&salted);
    am_test_oar_inputs_free(&t);
}

/* A second mesh asset: the cube with one position code moved, encoded again. */
static void other_mesh(const am_test_oar_inputs *t, am_buf *out)
{
    am_mesh_asset m;
    am_error err;
    assert_int_equal(am_mesh_asset_decode(t->mesh, t->mesh_size, &m, &err), AM_OK);
    am_mesh_face *f = &m.lods[AM_LOD_HIGH].faces[0];
    assert_non_null(f->position_codes);
    f->position_codes[0] ^= 0x100;
    assert_int_equal(am_mesh_asset_encode(&m, out, &err), AM_OK);
    am_mesh_asset_free(&m);
}

static void test_two_part_linkset_reads_checks_and_compares(void **state)
{
    (void)state;
    am_test_oar_inputs t, u;
    am_test_oar_inputs_make(&t);
    am_test_oar_inputs_make(&u);
    am_buf mesh2 = {0}, oar = {0};
    other_mesh(&t, &mesh2);
    u.in.mesh = mesh2.data;
    u.in.mesh_size = mesh2.size;
    u.in.object_name = "tail";
    u.in.play = NULL;
    const double offset[3] = {-0.5, 0, 0.25};
    am_test_linkset_oar(&t.in, &u.in, offset, &oar);
    am_oar_contents c;
    am_error err;
    assert_int_equal(am_oar_read(oar.data, oar.size, &c, &err), AM_OK);
    assert_int_equal(c.object_count, 1);
    assert_int_equal(c.objects[0].part_count, 2);
    const am_oar_part *root = &c.objects[0].parts[0], *child = &c.objects[0].parts[1];
    assert_string_equal(root->name, "cube");
    assert_string_equal(child->name, "tail");
    assert_true(root->has_mesh_flags && root->mesh_flags == 1);
    assert_false(child->has_mesh_flags);
    assert_true(child->has_sculpt);
    char m2[37], s[37];
    am_test_content_uuid("mesh", NULL, mesh2.data, mesh2.size, m2);
    am_uuid_format(&child->sculpt, s);
    assert_string_equal(s, m2);
    assert_int_equal(child->link_num, 2);
    assert_near(child->offset_position[0], -0.5, 1e-9);
    assert_int_equal(child->item_count, 1); /* its animation; no script (no play) */
    am_oar_check_report rep;
    assert_int_equal(am_oar_check(&c, &rep, &err), AM_OK);
    assert_int_equal(rep.parts, 2);
    assert_int_equal(rep.meshes, 2);
    assert_int_equal(rep.animations, 1); /* the same .anim in both: filed once */
    /* Compared with itself: nothing differs; two parts counted. */
    am_oar_diff d;
    assert_int_equal(am_oar_compare(&c, &c, &d, &err), AM_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(d.parts, 2);
    assert_int_equal(d.copies, 1);
    am_oar_diff_free(&d);
    /* A save that lost the child part. */
    am_oar_contents lost;
    assert_int_equal(am_oar_read(oar.data, oar.size, &lost, &err), AM_OK);
    lost.objects[0].part_count = 1; /* the child stays allocated; freed through `c`'s twin below */
    assert_int_equal(am_oar_compare(&c, &lost, &d, &err), AM_OK);
    lost.objects[0].part_count = 2;
    assert_int_equal(d.count, 2);
    assert_non_null(strstr(d.lines[0], "1 parts in the region, 2 in the archive"));
    assert_non_null(strstr(d.lines[1], "part 1 (\"tail\"): missing in the region"));
    am_oar_diff_free(&d);
    am_oar_contents_free(&lost);
    am_oar_contents_free(&c);
    am_buf_free(&oar);
    am_buf_free(&mesh2);
    am_test_oar_inputs_free(&t);
    am_test_oar_inputs_free(&u);
}

/* ---- a region's save, written the way OpenSim 0.9.2.2 writes one ------------------- */

typedef struct save_spec {
    bool animesh_flag;  /* keep the 0x70 entry */
    bool drop_item;     /* leave the animation out of the inventory */
    int copies;         /* objects carrying our mesh */
    size_t cut_asset;   /* truncate this asset entry (index into ours) to half; 0: none */
} save_spec;

/* An object in OpenSim's Xml2 form (SOGToXml2): no RootPart wrapper, UUIDs as <UUID><UUID>,
 * new part and item UUIDs, the estate owner as creator, a 64-byte TextureEntry and SOPAnims. */
static char *opensim_object(const am_oar_part *p, int copy, const save_spec *sp)
{
    am_buf x = {0};
    am_error err;
    char mesh[37], tex[37], anim[37], script[37];
    am_uuid_format(&p->sculpt, mesh);
    am_uuid_format(&p->texture, tex);
    am_uuid_format(&p->items[0].asset, anim);
    am_uuid_format(&p->items[1].asset, script);
    uint8_t ep[34];
    memcpy(ep, p->extra_params, 34);
    size_t ep_size = 34;
    if (!sp->animesh_flag) {
        ep[0] = 1;
        ep_size = 24;
    }
    uint8_t te[64] = {0};
    memcpy(te, p->texture.b, 16);
    uint8_t anims[2 + 16 + 1 + 8] = {1, 0};
    memcpy(anims + 2, p->items[0].asset.b, 16);
    anims[18] = 8;
    memcpy(anims + 19, "yes_head", 8);
    char *ep64, *te64, *an64;
    assert_int_equal(am_base64_encode(ep, ep_size, &ep64, &err), AM_OK);
    assert_int_equal(am_base64_encode(te, sizeof te, &te64, &err), AM_OK);
    assert_int_equal(am_base64_encode(anims, sizeof anims, &an64, &err), AM_OK);
    const char *owner = "5a1e3c2b-6d4f-4e8a-9b7c-1d2e3f4a5b6c";
    assert_int_equal(
        am_buf_printf(&x, &err,
                      "<SceneObjectGroup><SceneObjectPart xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                      "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\"><AllowedDrop>false</AllowedDrop>"
                      "<CreatorID><UUID>%s</UUID></CreatorID><FolderID><UUID>a2e2bc65-8235-4a77-97ea-4863f354600%d"
                      "</UUID></FolderID><InventorySerial>6</InventorySerial><TaskInventory>",
                      owner, copy),
        AM_OK);
    if (!sp->drop_item)
        assert_int_equal(am_buf_printf(&x, &err,
                                       "<TaskInventoryItem><AssetID><UUID>%s</UUID></AssetID><CreatorID><UUID>%s</UUID>"
                                       "</CreatorID><InvType>19</InvType><ItemID><UUID>1715606a-97c2-4730-926b-"
                                       "9dcd0e614e5%d</UUID></ItemID><Name>yes_head</Name><Type>20</Type>"
                                       "</TaskInventoryItem>",
                                       anim, owner, copy),
                         AM_OK);
    assert_int_equal(
        am_buf_printf(&x, &err,
                      "<TaskInventoryItem><AssetID><UUID>%s</UUID></AssetID><InvType>10</InvType><ItemID><UUID>"
                      "836f208c-1946-48d9-9e1b-1ed3db8b50b%d</UUID></ItemID><Name>animesh start</Name><Type>10</Type>"
                      "</TaskInventoryItem></TaskInventory><UUID><UUID>a2e2bc65-8235-4a77-97ea-4863f354600%d</UUID>"
                      "</UUID><LocalId>81767282%d</LocalId><Name>%s</Name><Material>3</Material>"
                      "<RegionHandle>1099511628032000</RegionHandle><GroupPosition><X>%g</X><Y>%g</Y><Z>%g</Z>"
                      "</GroupPosition><OffsetPosition><X>0</X><Y>0</Y><Z>0</Z></OffsetPosition><LinkNum>0</LinkNum>"
                      "<Shape><ProfileCurve>1</ProfileCurve><TextureEntry>%s</TextureEntry><ExtraParams>%s"
                      "</ExtraParams><PCode>9</PCode><SculptTexture><UUID>%s</UUID></SculptTexture><SculptType>5"
                      "</SculptType><SculptEntry>true</SculptEntry></Shape><SOPAnims>%s</SOPAnims></SceneObjectPart>"
                      "<OtherParts /></SceneObjectGroup>",
                      script, copy, copy, copy, p->name, p->group_position[0], p->group_position[1],
                      p->group_position[2], te64, ep64, mesh, an64),
        AM_OK);
    free(ep64);
    free(te64);
    free(an64);
    assert_int_equal(am_buf_append(&x, "", 1, &err), AM_OK);
    return (char *)x.data;
}

/* A save of a region holding our object (sp->copies times) and a stranger, with our assets,
 * terrain and settings. */
static void opensim_save(const am_oar_contents *ours, const save_spec *sp, am_buf *out)
{
    am_test_tar_entry e[MAX_ENTRIES];
    const am_test_tar_entry *order[MAX_ENTRIES];
    size_t n = 0;
    const char *control = "<?xml version=\"1.0\" encoding=\"utf-16\"?>\n<archive major_version=\"0\" "
                          "minor_version=\"8\">\n  <creation_info>\n    <datetime>1796112006</datetime>\n    <id>"
                          "7d3e9a3c-1b2f-4c5d-8e6f-0a1b2c3d4e5f</id>\n  </creation_info>\n  <assets_included>True"
                          "</assets_included>\n</archive>";
    e[n] = (am_test_tar_entry){"archive.xml", (uint8_t *)strdup(control), strlen(control)};
    n++;
    for (size_t i = 1; i < ours->entry_count; i++) {
        const am_oar_entry *a = &ours->entries[i];
        if (strncmp(a->path, "assets/", 7) != 0)
            continue;
        e[n].data = malloc(a->size);
        memcpy(e[n].data, a->data, a->size);
        e[n].size = i == sp->cut_asset ? a->size / 2 : a->size;
        snprintf(e[n].path, sizeof e[n].path, "%s", a->path);
        n++;
    }
    for (int k = 0; k < sp->copies; k++) {
        char *xml = opensim_object(&ours->objects[0].parts[0], k, sp);
        snprintf(e[n].path, sizeof e[n].path, "objects/cube_100-100-030__a2e2bc65-8235-4a77-97ea-4863f354600%d.xml", k);
        e[n].data = (uint8_t *)xml;
        e[n].size = strlen(xml);
        n++;
    }
    const char *stranger = "<SceneObjectGroup><SceneObjectPart><UUID><UUID>11111111-2222-3333-4444-555555555555"
                           "</UUID></UUID><Name>Primitive</Name></SceneObjectPart><OtherParts /></SceneObjectGroup>";
    e[n] = (am_test_tar_entry){"objects/Primitive_128-128-022__11111111-2222-3333-4444-555555555555.xml",
                               (uint8_t *)strdup(stranger), strlen(stranger)};
    n++;
    e[n] = (am_test_tar_entry){"terrains/Animesh Test.r32", (uint8_t *)calloc(1, 1024), 1024};
    n++;
    for (size_t i = 0; i < n; i++)
        order[i] = &e[i];
    am_test_pack_tgz(order, n, out);
    am_test_tar_free(e, n);
}

static void compare_with(const am_oar_contents *ours, const save_spec *sp, am_oar_diff *d)
{
    am_buf save = {0};
    opensim_save(ours, sp, &save);
    am_oar_contents saved;
    am_error err;
    if (am_oar_read(save.data, save.size, &saved, &err))
        fail_msg("the save does not read: %s: %s", err.where, err.msg);
    assert_int_equal(am_oar_compare(ours, &saved, d, &err), AM_OK);
    am_oar_contents_free(&saved);
    am_buf_free(&save);
}

static void test_compare_with_an_opensim_save(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    am_oar_contents ours;
    am_error err;
    assert_int_equal(am_oar_read(oar.data, oar.size, &ours, &err), AM_OK);
    /* What OpenSim changes on every load is no difference. */
    save_spec good = {true, false, 1, 0};
    am_oar_diff d;
    compare_with(&ours, &good, &d);
    for (size_t i = 0; i < d.count; i++)
        print_message("difference: %s\n", d.lines[i]);
    assert_int_equal(d.count, 0);
    assert_int_equal(d.copies, 1);
    assert_int_equal(d.assets, 4);
    assert_true(d.animesh_flag);
    assert_string_equal(d.playing, "yes_head");
    am_oar_diff_free(&d);
    /* Loaded twice: two copies, still nothing differs. */
    save_spec twice = {true, false, 2, 0};
    compare_with(&ours, &twice, &d);
    assert_int_equal(d.count, 0);
    assert_int_equal(d.copies, 2);
    am_oar_diff_free(&d);
    /* The flag lost. */
    save_spec flagless = {false, false, 1, 0};
    compare_with(&ours, &flagless, &d);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.lines[0], "object \"cube\": the animesh flag (ExtraParams 0x70 bit 0) is not set in the "
                                       "region, set in the archive"));
    assert_false(d.animesh_flag);
    am_oar_diff_free(&d);
    /* An inventory item missing. */
    save_spec no_item = {true, true, 1, 0};
    compare_with(&ours, &no_item, &d);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.lines[0], "inventory item \"yes_head\" is missing in the region"));
    am_oar_diff_free(&d);
    /* A poisoned asset: the region kept a cut-short copy from an earlier load. */
    for (size_t i = 2; i < ours.entry_count; i++) {
        save_spec cut = {true, false, 1, i};
        compare_with(&ours, &cut, &d);
        assert_int_equal(d.count, 1);
        char want[200];
        snprintf(want, sizeof want, "%s: the region holds only the first %zu of the archive's %zu bytes",
                 ours.entries[i].path, ours.entries[i].size / 2, ours.entries[i].size);
        if (!strstr(d.lines[0], want))
            fail_msg("'%s' lacks '%s'", d.lines[0], want);
        assert_non_null(strstr(d.lines[0], "a new salt (the uuid_salt option)"));
        am_oar_diff_free(&d);
    }
    /* Not there at all. */
    save_spec none = {true, false, 0, 0};
    compare_with(&ours, &none, &d);
    assert_ge(d.count, 1);
    assert_non_null(strstr(d.lines[0], "object \"cube\" (root mesh "));
    assert_non_null(strstr(d.lines[0], "not in the region's save"));
    assert_int_equal(d.copies, 0);
    am_oar_diff_free(&d);
    am_oar_contents_free(&ours);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

/* ---- archives OpenSim reads differently (tar built by hand) -------------------------- */

/* One ustar header: the 100-byte name field as given (NULs and all), the prefix field. */
static void tar_header(am_buf *tar, const void *name, size_t name_len, const char *prefix, char type, size_t size)
{
    uint8_t h[512];
    memset(h, 0, sizeof h);
    memcpy(h, name, name_len);
    memcpy(h + 100, "0000644", 8);
    memcpy(h + 108, "0000000", 8);
    memcpy(h + 116, "0000000", 8);
    char num[16];
    snprintf(num, sizeof num, "%011zo", size);
    memcpy(h + 124, num, 12);
    memcpy(h + 136, "00000000000", 12);
    h[156] = (uint8_t)type;
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    if (prefix)
        memcpy(h + 345, prefix, strlen(prefix));
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (size_t i = 0; i < sizeof h; i++)
        sum += h[i];
    snprintf(num, sizeof num, "%06o", sum);
    memcpy(h + 148, num, 7);
    am_error err;
    assert_int_equal(am_buf_append(tar, h, sizeof h, &err), AM_OK);
}

static void tar_data(am_buf *tar, const void *data, size_t size)
{
    static const uint8_t zeros[512];
    am_error err;
    assert_int_equal(am_buf_append(tar, data, size, &err), AM_OK);
    assert_int_equal(am_buf_append(tar, zeros, (512 - size % 512) % 512, &err), AM_OK);
}

static void gzip_into(const am_buf *tar, am_buf *gz)
{
    am_error err;
    assert_int_equal(am_buf_reserve(gz, tar->size + 4096, &err), AM_OK);
    z_stream d;
    memset(&d, 0, sizeof d);
    assert_int_equal(deflateInit2(&d, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    d.next_in = tar->data;
    d.avail_in = (uInt)tar->size;
    d.next_out = gz->data;
    d.avail_out = (uInt)(tar->size + 4096);
    assert_int_equal(deflate(&d, Z_FINISH), Z_STREAM_END);
    gz->size = d.total_out;
    deflateEnd(&d);
}

typedef enum { PLAIN, USTAR_PREFIX, PAX_PATH, NUL_IN_NAME, EMPTY_FIRST_BYTE } tar_trick;

/* The archive's entries as a hand-built tar, the first asset written with `trick`. */
static void build_tricked(const am_buf *oar, tar_trick trick, am_buf *gz)
{
    am_test_tar_entry e[MAX_ENTRIES];
    size_t n = am_test_untar(oar, e, MAX_ENTRIES);
    am_buf tar = {0};
    bool done = false;
    for (size_t i = 0; i < n; i++) {
        const char *p = e[i].path;
        if (done || trick == PLAIN || strncmp(p, "assets/", 7) != 0) {
            tar_header(&tar, p, strlen(p), NULL, '0', e[i].size);
        } else if (trick == USTAR_PREFIX) { /* libarchive: assets/NAME; OpenSim: NAME */
            tar_header(&tar, p + 7, strlen(p + 7), "assets", '0', e[i].size);
        } else if (trick == PAX_PATH) { /* libarchive applies path=; OpenSim sees two files */
            char rec[400];
            size_t body = strlen(" path=\n") + strlen(p), len = body + 2;
            if (len >= 100)
                len++;
            snprintf(rec, sizeof rec, "%zu path=%s\n", len, p);
            assert_int_equal(strlen(rec), len);
            tar_header(&tar, "PaxHeaders/x", 12, NULL, 'x', len);
            tar_data(&tar, rec, len);
            tar_header(&tar, "renamed.bin", 11, NULL, '0', e[i].size);
        } else if (trick == NUL_IN_NAME) { /* libarchive stops at the NUL; OpenSim keeps the rest */
            char field[100] = {0};
            size_t l = strlen(p);
            memcpy(field, p, l);
            memcpy(field + l + 1, "x.png", 5);
            tar_header(&tar, field, l + 6, NULL, '0', e[i].size);
        } else if (trick == EMPTY_FIRST_BYTE) { /* OpenSim's end of archive; libarchive reads on */
            char field[100] = {0};
            memcpy(field + 1, p, strlen(p));
            tar_header(&tar, field, strlen(p) + 1, NULL, '0', e[i].size);
        }
        done = done || strncmp(p, "assets/", 7) == 0;
        tar_data(&tar, e[i].data, e[i].size);
    }
    static const uint8_t end[1024];
    am_error err;
    assert_int_equal(am_buf_append(&tar, end, sizeof end, &err), AM_OK);
    gzip_into(&tar, gz);
    am_buf_free(&tar);
    am_test_tar_free(e, n);
}

/* libarchive applies the ustar prefix and pax path= and cuts a name at a NUL; OpenSim's
 * TarArchiveReader takes the 100-byte name field (NULs trimmed at its ends only) and stops
 * at a header starting with 0. Each such archive is refused, naming the entry and the
 * reason; the same entries plainly written pass. */
static void test_an_archive_opensim_reads_differently_is_refused(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    static const struct {
        tar_trick trick;
        const char *msg;
    } cases[] = {
        {USTAR_PREFIX, "the ustar prefix field or a pax path"},
        {PAX_PATH, "a pax extended header"},
        {NUL_IN_NAME, "a NUL inside the 100-byte name field"},
        /* OpenSim's end of archive: libarchive's path check already refuses the empty name */
        {EMPTY_FIRST_BYTE, "an entry path that is empty"},
    };
    am_buf gz = {0};
    build_tricked(&oar, PLAIN, &gz);
    am_error err;
    am_oar_check_report rep;
    if (am_oar_check_bytes(gz.data, gz.size, &rep, &err))
        fail_msg("the plain hand-built archive: %s", err.msg);
    am_buf_free(&gz);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        build_tricked(&oar, cases[i].trick, &gz);
        am_error_clear(&err);
        am_status s = am_oar_check_bytes(gz.data, gz.size, &rep, &err);
        if (s != AM_ERR_INVALID || !strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: status %d, message '%s' (wanted '%s')", i, s, err.msg, cases[i].msg);
        if (cases[i].trick != EMPTY_FIRST_BYTE)
            assert_non_null(strstr(err.msg, "refused: OpenSim's tar reader"));
        am_buf_free(&gz);
    }
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

/* OpenSim keeps the shape's <SculptTexture>, the viewer draws ExtraParams' mesh: an object
 * whose two name different meshes is refused, naming the object and the part. */
static void test_sculpt_texture_and_extra_params_must_name_one_mesh(void **state)
{
    (void)state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    write_oar(&t.in, &oar);
    am_test_tar_entry e[MAX_ENTRIES];
    size_t n = am_test_untar(&oar, e, MAX_ENTRIES);
    size_t obj = n;
    for (size_t i = 0; i < n; i++)
        if (strncmp(e[i].path, "objects/", 8) == 0)
            obj = i;
    assert_lt(obj, n);
    char *x = (char *)e[obj].data;
    char *st = strstr(x, "<SculptTexture>");
    assert_non_null(st);
    st = strstr(st, "<Guid>");
    assert_non_null(st);
    st += strlen("<Guid>");
    st[0] = st[0] == 'a' ? 'b' : 'a'; /* another UUID, same length */
    am_buf bad = {0};
    repack(&oar, obj, e[obj].data, e[obj].size, NULL, &bad);
    expect_refused(&bad, e[obj].path, "<SculptTexture> names");
    am_buf_free(&bad);
    am_test_tar_free(e, n);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

static void test_extra_params_and_base64_bounds(void **state)
{
    (void)state;
    am_oar_part p;
    memset(&p, 0, sizeof p);
    am_error err;
    am_uuid u;
    assert_true(am_uuid_parse("01234567-89ab-cdef-0123-456789abcdef", &u));
    uint8_t ep[AM_OAR_EXTRA_PARAMS_SIZE];
    am_oar_extra_params(&u, ep);
    assert_int_equal(am_oar_parse_extra_params(ep, sizeof ep, &p, &err), AM_OK);
    assert_true(p.has_sculpt && p.has_mesh_flags);
    assert_memory_equal(p.sculpt.b, u.b, 16);
    assert_int_equal(p.sculpt_type, 5);
    assert_int_equal(p.mesh_flags, 1);
    for (size_t cut = 1; cut < sizeof ep; cut++) { /* every shorter blob: refused with its offset */
        assert_int_equal(am_oar_parse_extra_params(ep, cut, &p, &err), AM_ERR_INVALID);
        assert_le(err.offset, cut);
    }
    uint8_t *d;
    size_t n;
    assert_int_equal(am_base64_decode("Zm9v", &d, &n, &err), AM_OK);
    assert_int_equal(n, 3);
    assert_memory_equal(d, "foo", 3);
    free(d);
    assert_int_equal(am_base64_decode(" Zg=\n=", &d, &n, &err), AM_OK);
    assert_int_equal(n, 1);
    assert_int_equal(d[0], 'f');
    free(d);
    assert_int_equal(am_base64_decode("", &d, &n, &err), AM_OK);
    assert_int_equal(n, 0);
    free(d);
    assert_int_equal(am_base64_decode("Zg=", &d, &n, &err), AM_ERR_INVALID);
    assert_int_equal(am_base64_decode("Z=g=", &d, &n, &err), AM_ERR_INVALID);
    assert_int_equal(am_base64_decode("Zm9v!A==", &d, &n, &err), AM_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_archive_reads_back_and_passes),
        cmocka_unit_test(test_every_cut_is_refused_naming_the_entry),
        cmocka_unit_test(test_damaged_entries_are_refused_by_name),
        cmocka_unit_test(test_tar_without_end_marker_or_with_a_bad_checksum),
        cmocka_unit_test(test_salt_changes_every_uuid_and_is_recorded),
        cmocka_unit_test(test_two_part_linkset_reads_checks_and_compares),
        cmocka_unit_test(test_compare_with_an_opensim_save),
        cmocka_unit_test(test_extra_params_and_base64_bounds),
        cmocka_unit_test(test_an_archive_opensim_reads_differently_is_refused),
        cmocka_unit_test(test_sculpt_texture_and_extra_params_must_name_one_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
