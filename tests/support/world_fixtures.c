#include "world_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>
#include <libxml/xpath.h>

#include <openssl/sha.h>
#include <uuid/uuid.h>
#include <zlib.h>

#include "http_server.h"
#include "test_support.h"
#include "texture/texture.h"
#include "world/digest.h"

typedef struct wr {
    uint8_t *p;
    size_t n, cap;
} wr;

static void bytes(wr *w, const void *d, size_t n)
{
    assert_true(w->n + n <= w->cap);
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void u16(wr *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bytes(w, b, 2);
}

static void u32(wr *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bytes(w, b, 4);
}

static void f32(wr *w, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    u32(w, v);
}

size_t am_test_tiny_anim(uint8_t *out, size_t cap, const char *joint, float duration)
{
    wr w = {out, 0, cap};
    u16(&w, 1);          /* version */
    u16(&w, 0);          /* sub_version */
    u32(&w, 4);          /* base priority */
    f32(&w, duration);   /* duration */
    bytes(&w, "", 1);    /* emote name: empty */
    f32(&w, 0.0f);       /* loop in */
    f32(&w, duration);   /* loop out */
    u32(&w, 1);          /* loop */
    f32(&w, 0.3f);       /* ease in */
    f32(&w, 0.3f);       /* ease out */
    u32(&w, 1);          /* hand pose */
    u32(&w, 1);          /* joints */
    bytes(&w, joint, strlen(joint) + 1);
    u32(&w, (uint32_t)-1); /* joint priority: use the base */
    u32(&w, 2);          /* rotation keys */
    for (int k = 0; k < 2; k++) {
        u16(&w, k ? 65535 : 0); /* time */
        u16(&w, 32767);         /* x, y, z = 0 -> identity */
        u16(&w, 32767);
        u16(&w, 32767);
    }
    u32(&w, 0); /* position keys */
    u32(&w, 0); /* constraints */
    return w.n;
}

const char *am_test_tri_meshdata_path(char *buf, size_t size)
{
    snprintf(buf, size, "%s/assets/world/tri.meshdata.json", AM_SOURCE_DIR);
    return buf;
}

void am_test_no_proxy(void)
{
    static const char *vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
}

char *am_test_xpath_text(xmlDoc *doc, const char *expr)
{
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    if (!o || !o->nodesetval || o->nodesetval->nodeNr != 1)
        fail_msg("XPath %s: %d nodes", expr, o && o->nodesetval ? o->nodesetval->nodeNr : -1);
    xmlChar *t = xmlNodeGetContent(o->nodesetval->nodeTab[0]);
    char *r = strdup((const char *)t);
    xmlFree(t);
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return r;
}

/* ---- real archive inputs ------------------------------------------------------------- */

static uint8_t *read_shared(const char *rel, size_t *size)
{
    char path[4096];
    return am_test_slurp(am_test_shared_path(path, sizeof path, rel), size);
}

void am_test_oar_inputs_make(am_test_oar_inputs *t)
{
    memset(t, 0, sizeof *t);
    t->mesh = read_shared("data/mesh/hippolyzer-testslm.slm", &t->mesh_size);
    t->anim = read_shared("data/anim/opensim-default-set/15dd911d-be82-2856-26db-27659b142875.dat", &t->anim_size);
    am_tex_image img;
    am_error err;
    assert_int_equal(am_tex_image_alloc(&img, 4, 4, 3, &err), AM_OK);
    for (size_t i = 0; i < 4 * 4 * 3; i++)
        img.pixels[i] = (uint8_t)(i * 17);
    am_j2c_options jo = {true};
    assert_int_equal(am_j2c_encode(&img, &jo, &t->texture, &err), AM_OK);
    am_tex_image_free(&img);
    t->anims[0] = (am_oar_anim){"yes_head", t->anim, t->anim_size};
    t->in.mesh = t->mesh;
    t->in.mesh_size = t->mesh_size;
    t->in.texture = t->texture.data;
    t->in.texture_size = t->texture.size;
    t->in.anims = t->anims;
    t->in.anim_count = 1;
    t->in.play = "yes_head";
    t->in.position[0] = 100;
    t->in.position[1] = 100;
    t->in.position[2] = 30;
    t->in.object_name = "cube";
}

void am_test_oar_inputs_free(am_test_oar_inputs *t)
{
    free(t->mesh);
    free(t->anim);
    am_buf_free(&t->texture);
    memset(t, 0, sizeof *t);
}

/* ---- archives by hand ----------------------------------------------------------------- */

size_t am_test_untar(const am_buf *oar, am_test_tar_entry *entries, size_t cap)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    assert_int_equal(archive_read_open_memory(a, oar->data, oar->size), ARCHIVE_OK);
    struct archive_entry *e;
    size_t n = 0;
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        assert_true(n < cap);
        am_test_tar_entry *f = &entries[n++];
        snprintf(f->path, sizeof f->path, "%s", archive_entry_pathname(e));
        f->size = (size_t)archive_entry_size(e);
        f->data = malloc(f->size + 1);
        assert_non_null(f->data);
        assert_int_equal(archive_read_data(a, f->data, f->size), (la_ssize_t)f->size);
        f->data[f->size] = 0;
    }
    archive_read_free(a);
    return n;
}

void am_test_tar_free(am_test_tar_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(entries[i].data);
}

static la_ssize_t to_buf(struct archive *a, void *user, const void *buf, size_t n)
{
    (void)a;
    am_error err;
    assert_int_equal(am_buf_append(user, buf, n, &err), AM_OK);
    return (la_ssize_t)n;
}

void am_test_pack_tgz(const am_test_tar_entry *const *entries, size_t n, am_buf *out)
{
    struct archive *w = archive_write_new();
    assert_int_equal(archive_write_set_format_ustar(w), ARCHIVE_OK);
    assert_int_equal(archive_write_add_filter_gzip(w), ARCHIVE_OK);
    assert_int_equal(archive_write_set_bytes_in_last_block(w, 1), ARCHIVE_OK);
    assert_int_equal(archive_write_open2(w, out, NULL, to_buf, NULL, NULL), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, entries[i]->path);
        archive_entry_set_size(e, (la_int64_t)entries[i]->size);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
        if (entries[i]->size)
            assert_int_equal(archive_write_data(w, entries[i]->data, entries[i]->size), (la_ssize_t)entries[i]->size);
        archive_entry_free(e);
    }
    assert_int_equal(archive_write_close(w), ARCHIVE_OK);
    archive_write_free(w);
}

void am_test_entry_at_cut(const am_buf *oar, size_t cut, char *out, size_t size)
{
    out[0] = 0;
    /* Sized to the archive and grown as it inflates: called once per byte of an archive, a
     * fixed 16 MiB buffer made each call an mmap under ASan (93% of test_oar_check). */
    size_t cap = 4 * oar->size + 4096;
    uint8_t *tar = malloc(cap);
    assert_non_null(tar);
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = oar->data;
    z.avail_in = (uInt)cut;
    for (;;) {
        z.next_out = tar + z.total_out;
        z.avail_out = (uInt)(cap - z.total_out);
        int zr = inflate(&z, Z_SYNC_FLUSH);
        if (z.avail_out > 0 || (zr != Z_OK && zr != Z_BUF_ERROR))
            break;
        uint8_t *grown = realloc(tar, 2 * cap);
        assert_non_null(grown);
        tar = grown;
        cap *= 2;
    }
    size_t n = z.total_out;
    inflateEnd(&z);
    for (size_t off = 0; off + 512 <= n && tar[off];) {
        char sz[13];
        memcpy(sz, tar + off + 124, 12);
        sz[12] = 0;
        size_t len = (size_t)strtoul(sz, NULL, 8);
        if (off + 512 + len > n) { /* the cut falls in this entry's data */
            snprintf(out, size, "%.100s", (const char *)tar + off);
            break;
        }
        off += 512 + (len + 511) / 512 * 512;
    }
    free(tar);
}

void am_test_content_uuid(const char *kind, const char *salt, const void *data, size_t n, char out[37])
{
    unsigned char h[32];
    SHA256(data, n, h);
    char name[256];
    int k = snprintf(name, sizeof name, "%s:", kind);
    for (int i = 0; i < 32; i++)
        k += snprintf(name + k, sizeof name - (size_t)k, "%02x", h[i]);
    if (salt)
        snprintf(name + k, sizeof name - (size_t)k, ":%s", salt);
    uuid_t ns, u;
    uuid_parse("8fe70114-ca16-4444-9d08-e92ae3b78847", ns);
    uuid_generate_sha1(u, ns, name, strlen(name));
    uuid_unparse_lower(u, out);
}

bool am_test_region_save(const am_test_http_request *rq, const am_buf *save, am_test_http_response *resp,
                         char *saved_to, size_t size)
{
    const char *key = "<name>filename</name><value><string>";
    const char *fn = strstr(rq->body, key);
    if (!strstr(rq->body, "<methodName>admin_save_oar</methodName>") || !fn)
        return false;
    fn += strlen(key);
    snprintf(saved_to, size, "%.*s", (int)strcspn(fn, "<"), fn);
    if (save) {
        FILE *fp = fopen(saved_to, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(save->data, 1, save->size, fp), save->size);
        fclose(fp);
    }
    snprintf(resp->content_type, sizeof resp->content_type, "text/xml");
    snprintf(resp->body, sizeof resp->body,
             "<?xml version=\"1.0\"?><methodResponse><params><param><value><struct>"
             "<member><name>saved</name><value><boolean>1</boolean></value></member>"
             "</struct></value></param></params></methodResponse>");
    return true;
}

/* ---- a hand-built linkset ------------------------------------------------------------ */

/* s with [from, to) replaced by `with` (malloc'd). */
static char *splice(const char *s, const char *from, const char *to, const char *with)
{
    size_t head = (size_t)(from - s), wl = strlen(with), tl = strlen(to);
    char *r = malloc(head + wl + tl + 1);
    assert_non_null(r);
    memcpy(r, s, head);
    memcpy(r + head, with, wl);
    memcpy(r + head + wl, to, tl + 1);
    return r;
}

/* Replace the content of the first <name>...</name> in *xml. */
static void set_element(char **xml, const char *name, const char *value)
{
    char open[64], close[64], with[512];
    snprintf(open, sizeof open, "<%s>", name);
    snprintf(close, sizeof close, "</%s>", name);
    char *a = strstr(*xml, open), *b = a ? strstr(a, close) : NULL;
    assert_non_null(b);
    snprintf(with, sizeof with, "%s%s", open, value);
    char *r = splice(*xml, a, b, with);
    free(*xml);
    *xml = r;
}

static void xyz(char *out, size_t size, const double v[3])
{
    snprintf(out, size, "<X>%.9g</X><Y>%.9g</Y><Z>%.9g</Z>", v[0], v[1], v[2]);
}

void am_test_linkset_oar(const am_oar_input *root, const am_oar_input *child, const double offset[3], am_buf *out)
{
    am_buf ra = {0}, rb = {0};
    am_error err;
    assert_int_equal(am_oar_write(root, &ra, &err), AM_OK);
    assert_int_equal(am_oar_write(child, &rb, &err), AM_OK);
    am_test_tar_entry fa[16], fb[16];
    size_t na = am_test_untar(&ra, fa, 16), nb = am_test_untar(&rb, fb, 16);
    /* The child's prim: its SceneObjectPart, re-linked. */
    char *text = (char *)fb[1].data;
    char *part_start = strstr(text, "<SceneObjectPart");
    char *part_end = strstr(text, "</SceneObjectPart>");
    assert_non_null(part_start);
    assert_non_null(part_end);
    part_end += strlen("</SceneObjectPart>");
    char *part = malloc((size_t)(part_end - part_start) + 1);
    assert_non_null(part);
    memcpy(part, part_start, (size_t)(part_end - part_start));
    part[part_end - part_start] = 0;
    am_oar_plan plan;
    assert_int_equal(am_oar_plan_make(child, &plan, &err), AM_OK);
    uint8_t ep[AM_OAR_EXTRA_PARAMS_SIZE];
    am_oar_extra_params(&plan.mesh, ep);
    ep[0] = 1; /* only the sculpt entry (its first 24 bytes): no animesh flag on a child */
    char *b64 = NULL;
    assert_int_equal(am_base64_encode(ep, 24, &b64, &err), AM_OK);
    set_element(&part, "ExtraParams", b64);
    free(b64);
    am_oar_plan_free(&plan);
    set_element(&part, "LinkNum", "2");
    char v[160];
    xyz(v, sizeof v, offset);
    set_element(&part, "OffsetPosition", v);
    xyz(v, sizeof v, root->position);
    set_element(&part, "GroupPosition", v);
    char *wrapped = malloc(strlen(part) + 64);
    assert_non_null(wrapped);
    sprintf(wrapped, "<OtherParts>\n    <Part>\n    %s\n    </Part>\n  </OtherParts>", part);
    free(part);
    text = (char *)fa[1].data;
    char *other = strstr(text, "<OtherParts />");
    assert_non_null(other);
    am_test_tar_entry object;
    snprintf(object.path, sizeof object.path, "%s", fa[1].path);
    object.data = (uint8_t *)splice(text, other, other + strlen("<OtherParts />"), wrapped);
    object.size = strlen((char *)object.data);
    free(wrapped);

    const am_test_tar_entry *order[32];
    size_t n = 0;
    order[n++] = &fa[0];
    order[n++] = &object;
    for (size_t i = 2; i < na; i++)
        order[n++] = &fa[i];
    for (size_t i = 2; i < nb; i++) {
        bool dup = false;
        for (size_t j = 2; j < na; j++)
            dup |= strcmp(fb[i].path, fa[j].path) == 0;
        if (!dup)
            order[n++] = &fb[i];
    }
    am_test_pack_tgz(order, n, out);
    free(object.data);
    am_test_tar_free(fa, na);
    am_test_tar_free(fb, nb);
    am_buf_free(&ra);
    am_buf_free(&rb);
}
