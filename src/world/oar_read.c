/* Unpacking an archive completely (gzip with zlib, tar with libarchive) and parsing its
 * archive.xml and scene objects (libxml2). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "core/bytes.h"
#include "core/io.h"
#include "core/xml_doc.h"
#include "world/archive_lib.h"
#include "world/oar_check.h"
#include "world/oar_tarnames.h"

/* ---- gzip, streamed into libarchive ------------------------------------------------- */

/* The whole stream is inflated even where only some entries are kept (a region's save can be
 * large): this bounds the time spent on a gzip bomb; memory is bounded by what is kept. */
#define AM_OAR_MAX_STREAM ((uint64_t)8 << 30)

typedef enum gz_state {
    GZ_RUNNING, GZ_COMPLETE, GZ_TRUNCATED, GZ_CORRUPT, GZ_TRAILING, GZ_TOO_LARGE, GZ_NOMEM
} gz_state;

typedef struct gz_reader {
    const uint8_t *in;
    size_t in_size, fed;
    z_stream z;
    gz_state state;
    size_t at;          /* the byte of the file where it broke (CORRUPT), trailing bytes (TRAILING) */
    char why[96];       /* zlib's words */
    uint64_t total;     /* bytes inflated */
    uint8_t tail[1024]; /* the last bytes inflated: a tar's end marker */
    size_t tail_n;
    am_tar_names opensim; /* the entries as OpenSim's TarArchiveReader reads the same bytes */
    uint8_t out[65536];
} gz_reader;

static void keep_tail(gz_reader *r, const uint8_t *p, size_t n)
{
    if (n >= sizeof r->tail) {
        memcpy(r->tail, p + n - sizeof r->tail, sizeof r->tail);
        r->tail_n = sizeof r->tail;
        return;
    }
    size_t keep = r->tail_n + n > sizeof r->tail ? sizeof r->tail - n : r->tail_n;
    memmove(r->tail, r->tail + r->tail_n - keep, keep);
    memcpy(r->tail + keep, p, n);
    r->tail_n = keep + n;
}

/* libarchive's read callback: the next inflated bytes, 0 at the end of the stream or where it
 * broke (r->state says which). */
static la_ssize_t gz_read(struct archive *a, void *user, const void **buf)
{
    (void)a;
    gz_reader *r = user;
    while (r->state == GZ_RUNNING) {
        if (r->z.avail_in == 0 && r->fed < r->in_size) {
            size_t chunk = r->in_size - r->fed < (size_t)1 << 30 ? r->in_size - r->fed : (size_t)1 << 30;
            r->z.next_in = (Bytef *)(r->in + r->fed);
            r->z.avail_in = (uInt)chunk;
            r->fed += chunk;
        }
        r->z.next_out = r->out;
        r->z.avail_out = sizeof r->out;
        int rc = inflate(&r->z, Z_NO_FLUSH);
        size_t got = sizeof r->out - r->z.avail_out;
        if (rc == Z_STREAM_END) {
            size_t left = (r->in_size - r->fed) + r->z.avail_in;
            r->state = left ? GZ_TRAILING : GZ_COMPLETE;
            r->at = left;
        } else if (rc == Z_BUF_ERROR && r->z.avail_in == 0 && r->fed == r->in_size) {
            r->state = GZ_TRUNCATED;
        } else if (rc == Z_MEM_ERROR) {
            r->state = GZ_NOMEM;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            r->state = GZ_CORRUPT;
            r->at = (size_t)r->z.total_in;
            snprintf(r->why, sizeof r->why, "%s", r->z.msg ? r->z.msg : "invalid data");
        }
        if (got) {
            r->total += got;
            if (r->total > AM_OAR_MAX_STREAM) {
                r->state = GZ_TOO_LARGE;
                return 0;
            }
            keep_tail(r, r->out, got);
            am_oar_tar_names_feed(&r->opensim, r->out, got);
            *buf = r->out;
            return (la_ssize_t)got;
        }
    }
    return 0;
}

/* ---- tar ----------------------------------------------------------------------------- */

typedef enum tar_state { TAR_END, TAR_CUT_IN_ENTRY, TAR_CUT_IN_HEADER, TAR_DAMAGED } tar_state;

typedef struct tar_result {
    tar_state state;
    char entry[256];  /* the entry cut short, or the last whole one ("" = none) */
    size_t want;
    char why[160];
} tar_result;

static am_status add_entry(am_oar_contents *c, const char *path, uint8_t *data, size_t size, am_error *err)
{
    am_oar_entry *e = realloc(c->entries, (c->entry_count + 1) * sizeof *e);
    char *p = am_strdup(path);
    if (!e || !p) {
        if (e)
            c->entries = e;
        free(p);
        free(data);
        return am_fail_nomem(err, "OAR entries");
    }
    c->entries = e;
    e[c->entry_count++] = (am_oar_entry){p, data, size};
    return AM_OK;
}

static bool safe_path(const char *p)
{
    if (!p[0] || p[0] == '/' || strlen(p) > 1024)
        return false;
    for (const char *s = p; *s; s++)
        if ((unsigned char)*s < 0x20)
            return false;
    return strcmp(p, "..") != 0 && strncmp(p, "../", 3) != 0 && !strstr(p, "/../") &&
           !(strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0);
}

/* Walk the tar the reader inflates: every regular file the filter keeps (all of them when keep
 * is NULL; archive.xml always) becomes an entry of c. */
static am_status untar(gz_reader *gz, am_oar_keep_fn keep, void *user, am_oar_contents *c, tar_result *res,
                       am_tar_names *names, am_error *err)
{
    memset(res, 0, sizeof *res);
    am_archive_api ar;
    am_status loaded = am_archive_open(&ar, err);
    if (loaded)
        return loaded;
    struct archive *a = ar.read_new();
    if (!a)
        return am_fail_nomem(err, "libarchive");
    am_status s = AM_OK;
    size_t kept = 0;
    if (ar.read_support_format_tar(a) != ARCHIVE_OK ||
        ar.read_open(a, gz, NULL, gz_read, NULL) != ARCHIVE_OK) {
        res->state = gz->total ? TAR_DAMAGED : TAR_CUT_IN_HEADER;
        snprintf(res->why, sizeof res->why, "not a tar archive (%s)", ar.error_string(a));
        ar.read_free(a);
        return AM_OK;
    }
    for (;;) {
        struct archive_entry *ae;
        int r = ar.read_next_header(a, &ae);
        if (r == ARCHIVE_EOF) {
            res->state = TAR_END;
            break;
        }
        if (r != ARCHIVE_OK) {
            const char *why = ar.error_string(a);
            res->state = why && strstr(why, "runcated") ? TAR_CUT_IN_HEADER : TAR_DAMAGED;
            snprintf(res->why, sizeof res->why, "%s", why ? why : "unreadable header");
            break;
        }
        const char *path = ar.entry_pathname(ae);
        if (!path || !safe_path(path)) {
            res->state = TAR_DAMAGED;
            snprintf(res->why, sizeof res->why, "an entry path that is empty, absolute or climbs out (\"%s\")",
                     path ? path : "");
            break;
        }
        bool folder = ar.entry_filetype(ae) == AE_IFDIR;
        if (!am_oar_tar_names_add(names, path, strlen(path), ar.entry_size(ae), folder ? '5' : '0')) {
            s = am_fail_nomem(err, "tar entry names");
            break;
        }
        if (folder)
            continue;
        if (ar.entry_filetype(ae) != AE_IFREG) {
            res->state = TAR_DAMAGED;
            snprintf(res->entry, sizeof res->entry, "%s", path);
            snprintf(res->why, sizeof res->why, "%s is not a regular file (tar type %o)", path,
                     (unsigned)ar.entry_filetype(ae) >> 12);
            break;
        }
        la_int64_t want = ar.entry_size(ae);
        if (want < 0 || (uint64_t)want > AM_OAR_MAX_UNPACKED) {
            res->state = TAR_DAMAGED;
            snprintf(res->why, sizeof res->why, "%s declares %lld bytes", path, (long long)want);
            break;
        }
        uint8_t *data = malloc((size_t)want + 1);
        if (!data) {
            s = am_fail_nomem(err, path);
            break;
        }
        size_t have = 0;
        while (have < (size_t)want) {
            la_ssize_t got = ar.read_data(a, data + have, (size_t)want - have);
            if (got <= 0)
                break;
            have += (size_t)got;
        }
        snprintf(res->entry, sizeof res->entry, "%s", path);
        if (have < (size_t)want) {
            free(data);
            res->state = TAR_CUT_IN_ENTRY;
            res->want = (size_t)want;
            break;
        }
        data[have] = 0;
        if (c->entry_count > 0 && keep && !keep(path, data, have, user)) {
            free(data);
            continue;
        }
        if ((kept += have) > AM_OAR_MAX_UNPACKED) {
            free(data);
            gz->state = GZ_TOO_LARGE;
            break;
        }
        if ((s = add_entry(c, path, data, have, err)))
            break;
    }
    ar.read_free(a);
    /* The gzip trailer (CRC-32, length) is checked only at the stream's end: drain it. */
    const void *ignored;
    while (!s && gz->state == GZ_RUNNING && gz_read(NULL, gz, &ignored) > 0) {
    }
    if (!s && gz->state == GZ_NOMEM)
        s = am_fail_nomem(err, "zlib");
    return s;
}

/* A complete tar ends with two zero blocks (OpenSim's writer and ours both write them). */
static bool has_end_marker(const gz_reader *r)
{
    if (r->tail_n < 1024 || r->total % 512)
        return false;
    for (size_t i = 0; i < r->tail_n; i++)
        if (r->tail[i])
            return false;
    return true;
}

/* The failure of an archive that did not unpack, in words, naming the entry. A gzip stream
 * that stops early explains whatever the tar walk then met, so it is told first. */
static am_status unpack_failure(const gz_reader *gz, const tar_result *tr, size_t file_size, am_error *err)
{
    const char *last = tr->state == TAR_CUT_IN_ENTRY ? "" : tr->entry;
    if (gz->state == GZ_TOO_LARGE)
        return am_fail(err, AM_ERR_INVALID, "too large to check: over %zu MiB of entries or %llu GiB inflated",
                       AM_OAR_MAX_UNPACKED >> 20, (unsigned long long)(AM_OAR_MAX_STREAM >> 30));
    if (gz->state == GZ_TRAILING)
        return am_fail(err, AM_ERR_INVALID, "%zu bytes follow the end of the gzip stream", gz->at);
    if (gz->state == GZ_COMPLETE && tr->state == TAR_DAMAGED)
        return am_fail(err, AM_ERR_INVALID, "damaged tar: %s%s%s", tr->why, last[0] ? " after entry " : "", last);
    char cause[200];
    if (gz->state == GZ_CORRUPT)
        snprintf(cause, sizeof cause, "the gzip stream is damaged at byte %zu of %zu (zlib: %s)", gz->at, file_size,
                 gz->why);
    else if (gz->state == GZ_TRUNCATED)
        snprintf(cause, sizeof cause, "the file is cut short (%zu bytes; its gzip stream ends early)", file_size);
    else
        snprintf(cause, sizeof cause, "the tar inside is cut short");
    if (tr->state == TAR_CUT_IN_ENTRY) {
        /* libarchive hands out none of a cut-short entry, so only its declared size is known */
        am_status s = am_fail(err, AM_ERR_INVALID, "%s: the data ends inside this entry, which declares %zu bytes",
                              cause, tr->want);
        am_error_where(err, "%s", tr->entry);
        return s;
    }
    if (gz->state == GZ_COMPLETE)
        return am_fail(err, AM_ERR_INVALID, "the tar has no end marker%s%s: it was cut short before it was compressed",
                       last[0] ? " after entry " : "", last);
    return am_fail(err, AM_ERR_INVALID, "%s%s%s", cause, last[0] ? "; last whole entry " : " before one whole entry",
                   last);
}

/* ---- XML ------------------------------------------------------------------------------ */

static xmlDoc *parse_xml(const am_oar_entry *e)
{
    /* OpenSim declares encoding="utf-16" on ASCII bytes: the declaration is ignored. No DTD
     * or entity is read, and the nesting (collect_parts recurses) is at most 255 levels. */
    const am_xml_rules rules = {
        .max_depth = 255, .budget_bytes = (size_t)256 << 20, .encoding = "UTF-8", .extra_options = XML_PARSE_IGNORE_ENC};
    xmlDoc *doc;
    return am_xml_read(e->data, e->size, e->path, &rules, &doc, NULL) ? NULL : doc;
}

static xmlNode *child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
            return c;
    return NULL;
}

/* Trimmed text content (malloc'd; "" when the node is NULL); NULL only when out of memory. */
static char *text_of(xmlNode *n)
{
    xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
    const char *s = t ? (const char *)t : "";
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' || s[len - 1] == '\n'))
        len--;
    char *r = malloc(len + 1);
    if (r) {
        memcpy(r, s, len);
        r[len] = 0;
    }
    xmlFree(t);
    return r;
}

static int number_of(xmlNode *n, double *v)
{
    char *t = text_of(n);
    if (!t)
        return -1;
    char *end;
    *v = strtod(t, &end);
    int ok = t[0] && !*end && isfinite(*v);
    free(t);
    return ok ? 1 : 0;
}

typedef struct px { /* parse context of one part */
    am_error *err;
    const char *path;
    size_t index;
} px;

static am_status bad(const px *p, const char *field, const char *what)
{
    am_status s = am_fail(p->err, AM_ERR_INVALID, "%s %s", field, what);
    am_error_where(p->err, "%s: part %zu", p->path, p->index);
    return s;
}

static am_status get_uuid(const px *p, xmlNode *n, const char *field, am_uuid *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return AM_OK;
    char *t = text_of(n);
    if (!t)
        return am_fail_nomem(p->err, field);
    int ok = am_uuid_parse(t, out);
    free(t);
    return ok ? AM_OK : bad(p, field, "is not a UUID");
}

static am_status get_vec3(const px *p, xmlNode *n, const char *field, double out[3])
{
    static const char *axis[3] = {"X", "Y", "Z"};
    for (int i = 0; i < 3; i++) {
        out[i] = 0;
        if (!n)
            continue;
        int r = number_of(child(n, axis[i]), &out[i]);
        if (r < 0)
            return am_fail_nomem(p->err, field);
        if (r == 0)
            return bad(p, field, "is not three numbers X, Y, Z");
    }
    return AM_OK;
}

static am_status get_int(const px *p, xmlNode *n, const char *field, int *out)
{
    double v = 0;
    *out = 0;
    if (!n)
        return AM_OK;
    int r = number_of(n, &v);
    if (r < 0)
        return am_fail_nomem(p->err, field);
    if (r == 0 || v != floor(v) || fabs(v) > 2147483647.0)
        return bad(p, field, "is not an integer");
    *out = (int)v;
    return AM_OK;
}

static am_status get_base64(const px *p, xmlNode *n, const char *field, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (!n)
        return AM_OK;
    char *t = text_of(n);
    if (!t)
        return am_fail_nomem(p->err, field);
    am_status s = am_base64_decode(t, out, size, NULL);
    free(t);
    return s == AM_ERR_NOMEM ? am_fail_nomem(p->err, field) : s ? bad(p, field, "is not base64") : AM_OK;
}

am_status am_oar_parse_extra_params(const uint8_t *blob, size_t size, am_oar_part *part, am_error *err)
{
    part->has_sculpt = part->has_mesh_flags = false;
    if (size == 0)
        return AM_OK;
    size_t off = 1;
    for (unsigned i = 0; i < blob[0]; i++) {
        if (size - off < 6)
            return am_fail_at(err, AM_ERR_INVALID, off, "ExtraParams entry %u of %u: header past the end (%zu bytes)",
                              i + 1, blob[0], size);
        unsigned type = am_le_u16(blob + off);
        uint32_t len = am_le_u32(blob + off + 2);
        off += 6;
        if (len > size - off)
            return am_fail_at(err, AM_ERR_INVALID, off, "ExtraParams entry 0x%02x: %u bytes past the end", type, len);
        if (type == AM_OAR_EP_SCULPT && len >= 17) {
            part->has_sculpt = true;
            memcpy(part->sculpt.b, blob + off, 16);
            part->sculpt_type = blob[off + 16];
        } else if (type == AM_OAR_EP_MESH_FLAGS && len >= 4) {
            part->has_mesh_flags = true;
            part->mesh_flags = am_le_u32(blob + off);
        }
        off += len;
    }
    return AM_OK;
}

/* SOPAnims (SceneObjectPart.SerializeAnimations): LE u16 count, then per animation its
 * 16 UUID bytes, one length byte and the UTF-8 name; a lone 0 byte means none. */
static am_status parse_sop_anims(const px *p, const uint8_t *b, size_t n, am_oar_part *part)
{
    if (n < 2)
        return AM_OK;
    unsigned count = am_le_u16(b);
    part->playing = calloc(count ? count : 1, sizeof *part->playing);
    if (!part->playing)
        return am_fail_nomem(p->err, "SOPAnims");
    size_t off = 2;
    for (unsigned i = 0; i < count; i++) {
        if (n - off < 17 || b[off + 16] > n - off - 17)
            return bad(p, "SOPAnims", "runs past its end");
        am_oar_playing *pl = &part->playing[part->playing_count++];
        memcpy(pl->anim.b, b + off, 16);
        size_t len = b[off + 16];
        memcpy(pl->name, b + off + 17, len);
        pl->name[len] = 0;
        off += 17 + len;
    }
    return AM_OK;
}

static am_status parse_items(const px *p, xmlNode *inv, am_oar_part *part)
{
    size_t n = 0;
    for (xmlNode *c = inv ? inv->children : NULL; c; c = c->next)
        n += c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "TaskInventoryItem") == 0;
    if (!n)
        return AM_OK;
    part->items = calloc(n, sizeof *part->items);
    if (!part->items)
        return am_fail_nomem(p->err, "TaskInventory");
    am_status s = AM_OK;
    for (xmlNode *c = inv->children; c && !s; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "TaskInventoryItem") != 0)
            continue;
        am_oar_item *it = &part->items[part->item_count++];
        if (!(it->name = text_of(child(c, "Name"))))
            return am_fail_nomem(p->err, "TaskInventoryItem");
        s = get_uuid(p, child(c, "AssetID"), "TaskInventoryItem AssetID", &it->asset);
        if (!s)
            s = get_int(p, child(c, "Type"), "TaskInventoryItem Type", &it->type);
        if (!s)
            s = get_int(p, child(c, "InvType"), "TaskInventoryItem InvType", &it->inv_type);
    }
    return s;
}

static am_status parse_part(const px *p, xmlNode *n, am_oar_part *part)
{
    if (!(part->name = text_of(child(n, "Name"))))
        return am_fail_nomem(p->err, "part name");
    am_status s = get_uuid(p, child(n, "UUID"), "UUID", &part->uuid);
    if (!s)
        s = get_vec3(p, child(n, "GroupPosition"), "GroupPosition", part->group_position);
    if (!s)
        s = get_vec3(p, child(n, "OffsetPosition"), "OffsetPosition", part->offset_position);
    if (!s)
        s = get_int(p, child(n, "LinkNum"), "LinkNum", &part->link_num);
    xmlNode *shape = child(n, "Shape");
    if (!s)
        s = get_base64(p, child(shape, "ExtraParams"), "ExtraParams", &part->extra_params, &part->extra_params_size);
    xmlNode *sculpt_texture = child(shape, "SculptTexture");
    part->has_sculpt_texture = sculpt_texture != NULL;
    if (!s && sculpt_texture)
        s = get_uuid(p, sculpt_texture, "SculptTexture", &part->sculpt_texture);
    if (!s && am_oar_parse_extra_params(part->extra_params, part->extra_params_size, part, p->err)) {
        am_error_where(p->err, "%s: part %zu", p->path, p->index);
        return AM_ERR_INVALID;
    }
    uint8_t *blob = NULL;
    size_t size = 0;
    if (!s)
        s = get_base64(p, child(shape, "TextureEntry"), "TextureEntry", &blob, &size);
    if (!s && size >= 16) {
        part->has_texture = true;
        memcpy(part->texture.b, blob, 16);
    }
    free(blob);
    blob = NULL;
    if (!s)
        s = parse_items(p, child(n, "TaskInventory"), part);
    if (!s)
        s = get_base64(p, child(n, "SOPAnims"), "SOPAnims", &blob, &size);
    if (!s)
        s = parse_sop_anims(p, blob, size, part);
    free(blob);
    return s;
}

/* Every SceneObjectPart under n, in document order (TaskInventory holds none): counted when
 * out is NULL, else stored at out[*k...]. */
static void collect_parts(xmlNode *n, xmlNode **out, size_t *k)
{
    for (xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (strcmp((const char *)c->name, "SceneObjectPart") == 0) {
            if (out)
                out[*k] = c;
            (*k)++;
        } else {
            collect_parts(c, out, k);
        }
    }
}

static am_status parse_object(const am_oar_entry *e, am_oar_object *obj, am_error *err)
{
    xmlDoc *doc = parse_xml(e);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    am_status s = AM_OK;
    if (!(obj->path = am_strdup(e->path))) {
        s = am_fail_nomem(err, e->path);
    } else if (!root || strcmp((const char *)root->name, "SceneObjectGroup") != 0) {
        s = am_fail(err, AM_ERR_INVALID, "not a SceneObjectGroup (XML that does not parse, or another root)");
        am_error_where(err, "%s", e->path);
    } else {
        size_t n = 0, filled = 0;
        collect_parts(root, NULL, &n);
        xmlNode **nodes = n ? calloc(n, sizeof *nodes) : NULL;
        obj->parts = n ? calloc(n, sizeof *obj->parts) : NULL;
        if (!n) {
            s = am_fail(err, AM_ERR_INVALID, "no SceneObjectPart");
            am_error_where(err, "%s", e->path);
        } else if (!nodes || !obj->parts) {
            s = am_fail_nomem(err, e->path);
        } else {
            collect_parts(root, nodes, &filled);
            for (size_t i = 0; i < n && !s; i++) {
                px p = {err, e->path, i};
                obj->part_count++;
                s = parse_part(&p, nodes[i], &obj->parts[i]);
            }
        }
        free(nodes);
    }
    xmlFreeDoc(doc);
    return s;
}

static am_status parse_control(const am_oar_entry *e, am_oar_contents *c, am_error *err)
{
    xmlDoc *doc = parse_xml(e);
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;
    am_status s = AM_OK;
    if (!root || strcmp((const char *)root->name, "archive") != 0) {
        s = am_fail(err, AM_ERR_INVALID, "not an <archive> control file");
    } else {
        xmlChar *maj = xmlGetProp(root, (const xmlChar *)"major_version");
        xmlChar *min = xmlGetProp(root, (const xmlChar *)"minor_version");
        char *end1 = NULL, *end2 = NULL;
        long a = maj ? strtol((const char *)maj, &end1, 10) : -1;
        long b = min ? strtol((const char *)min, &end2, 10) : -1;
        if (!maj || !min || *end1 || *end2 || a < 0 || b < 0)
            s = am_fail(err, AM_ERR_INVALID, "major_version and minor_version must be numbers");
        else if (a > 1)
            s = am_fail(err, AM_ERR_INVALID, "version %ld.%ld: OpenSim loads major versions up to 1", a, b);
        c->major_version = (int)a;
        c->minor_version = (int)b;
        xmlFree(maj);
        xmlFree(min);
        xmlNode *am = child(root, "animesh");
        xmlChar *salt = am ? xmlGetProp(am, (const xmlChar *)"uuid_salt") : NULL;
        if (!s && salt && am_oar_check_salt((const char *)salt, err) == AM_OK)
            snprintf(c->salt, sizeof c->salt, "%s", (const char *)salt);
        else if (!s && salt)
            s = AM_ERR_INVALID;
        xmlFree(salt);
    }
    if (s)
        am_error_where(err, "archive.xml");
    xmlFreeDoc(doc);
    return s;
}

/* ---- the whole ------------------------------------------------------------------------ */

static bool is_object_entry(const char *p)
{
    size_t n = strlen(p);
    return strncmp(p, "objects/", 8) == 0 && n > 12 && strcmp(p + n - 4, ".xml") == 0;
}

am_status am_oar_read_filtered(const uint8_t *data, size_t size, am_oar_keep_fn keep, void *user,
                               am_oar_contents *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (size == 0)
        return am_fail(err, AM_ERR_INVALID, "empty file: not an OpenSim archive");
    if (size < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8)
        return am_fail(err, AM_ERR_INVALID, "not gzip-compressed (an OAR is a .tar.gz, starting 1F 8B 08; %zu bytes)",
                       size);
    gz_reader *gz = calloc(1, sizeof *gz);
    if (!gz)
        return am_fail_nomem(err, "gzip reader");
    gz->in = data;
    gz->in_size = size;
    am_status s = inflateInit2(&gz->z, 16 + MAX_WBITS) == Z_OK ? AM_OK : am_fail_nomem(err, "zlib");
    tar_result tr;
    am_tar_names names = {0}; /* libarchive's reading, to hold against OpenSim's */
    if (!s) {
        s = untar(gz, keep, user, out, &tr, &names, err);
        inflateEnd(&gz->z);
    }
    if (!s && gz->state == GZ_COMPLETE && gz->total == 0)
        s = am_fail(err, AM_ERR_INVALID, "the gzip stream holds nothing: no archive inside");
    else if (!s && (gz->state != GZ_COMPLETE || tr.state != TAR_END || !has_end_marker(gz)))
        s = unpack_failure(gz, &tr, size, err);
    if (!s) /* the region must read the same entries as this check */
        s = am_oar_tar_names_compare(&gz->opensim, &names, err);
    am_oar_tar_names_free(&gz->opensim);
    am_oar_tar_names_free(&names);
    free(gz);
    if (!s && (out->entry_count == 0 || strcmp(out->entries[0].path, "archive.xml") != 0))
        s = am_fail(err, AM_ERR_INVALID,
                    "the first entry is %s%s%s, not archive.xml (OpenSim reads the control file first)",
                    out->entry_count ? "\"" : "nothing", out->entry_count ? out->entries[0].path : "",
                    out->entry_count ? "\"" : "");
    if (!s)
        s = parse_control(&out->entries[0], out, err);
    size_t objects = 0;
    for (size_t i = 0; !s && i < out->entry_count; i++)
        objects += is_object_entry(out->entries[i].path);
    if (!s && objects && !(out->objects = calloc(objects, sizeof *out->objects)))
        s = am_fail_nomem(err, "OAR objects");
    for (size_t i = 0; !s && i < out->entry_count; i++)
        if (is_object_entry(out->entries[i].path))
            s = parse_object(&out->entries[i], &out->objects[out->object_count++], err);
    if (s)
        am_oar_contents_free(out);
    return s;
}

static am_status sniff_oar(const uint8_t *h, size_t n, am_error *err)
{
    if (n >= 2 && h[0] == 0x1F && h[1] == 0x8B)
        return AM_OK;
    if (n == 0) /* the reader's own words for it */
        return am_fail(err, AM_ERR_INVALID, "empty file: not an OpenSim archive");
    return am_fail_at(err, AM_ERR_INVALID, 0,
                      "not gzip-compressed (an OAR is a .tar.gz, starting 1F 8B 08): the file is %s",
                      am_sniff_kind(h, n));
}

const am_file_format am_oar_file_format = {"an OpenSim archive", AM_OAR_MAX_FILE_BYTES, sniff_oar};

am_status am_oar_read(const uint8_t *data, size_t size, am_oar_contents *out, am_error *err)
{
    return am_oar_read_filtered(data, size, NULL, NULL, out, err);
}

static void part_free(am_oar_part *p)
{
    free(p->name);
    free(p->extra_params);
    for (size_t i = 0; i < p->item_count; i++)
        free(p->items[i].name);
    free(p->items);
    free(p->playing);
}

void am_oar_contents_free(am_oar_contents *c)
{
    for (size_t i = 0; i < c->entry_count; i++) {
        free(c->entries[i].path);
        free(c->entries[i].data);
    }
    free(c->entries);
    for (size_t i = 0; i < c->object_count; i++) {
        for (size_t k = 0; k < c->objects[i].part_count; k++)
            part_free(&c->objects[i].parts[k]);
        free(c->objects[i].parts);
        free(c->objects[i].path);
    }
    free(c->objects);
    memset(c, 0, sizeof *c);
}

const am_oar_entry *am_oar_find_entry(const am_oar_contents *c, const char *path)
{
    for (size_t i = 0; i < c->entry_count; i++)
        if (strcmp(c->entries[i].path, path) == 0)
            return &c->entries[i];
    return NULL;
}
