/* The .dae we write, read back with libxml2 and turned into a skin block by following the
 * viewer's uploader as docs/reference/collada-upload.md describes it (an independent re-implementation
 * of its rules, not our writer's code), must equal the skin block we write directly:
 * joint names, inverse binds, alternate inverse binds (joint positions) and the bind
 * shape (after the uploader's own unit-cube normalisation), to 1e-6. Lessons rule 8. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "bendbox/bendbox.h"
#include "readers/collada/collada.h"
#include "import/import.h"
#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "support/test_support.h"

static bool is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

static const xmlNode *child(const xmlNode *n, const char *name)
{
    for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (is(c, name))
            return c;
    return NULL;
}

/* Depth-first search for an element with a given attribute value (or any, when val NULL). */
static const xmlNode *find(const xmlNode *n, const char *name, const char *attr, const char *val)
{
    for (const xmlNode *c = n; c; c = c->next) {
        if (is(c, name)) {
            if (!attr)
                return c;
            xmlChar *a = xmlGetProp(c, (const xmlChar *)attr);
            bool hit = a && (!val || strcmp((const char *)a, val) == 0);
            xmlFree(a);
            if (hit)
                return c;
        }
        const xmlNode *r = find(c->children, name, attr, val);
        if (r)
            return r;
    }
    return NULL;
}

static char *prop(const xmlNode *n, const char *a)
{
    return (char *)xmlGetProp(n, (const xmlChar *)a);
}

/* All numbers of an element's text. */
static double *numbers(const xmlNode *n, size_t *count)
{
    xmlChar *t = xmlNodeGetContent(n);
    size_t cap = 64, k = 0;
    double *v = malloc(cap * sizeof *v);
    char *p = (char *)t, *end;
    for (;;) {
        double d = strtod(p, &end);
        if (end == p)
            break;
        if (k == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[k++] = d;
        p = end;
    }
    xmlFree(t);
    *count = k;
    return v;
}

/* The <source> an input's "#id" points to. */
static const xmlNode *source_of(const xmlNode *root, const xmlNode *input)
{
    char *s = prop(input, "source");
    assert_non_null(s);
    const xmlNode *r = find(root, "source", "id", s + 1);
    if (!r)
        r = find(root, "vertices", "id", s + 1);
    xmlFree(s);
    assert_non_null(r);
    return r;
}

static const xmlNode *input_sem(const xmlNode *parent, const char *sem)
{
    for (const xmlNode *c = parent->children; c; c = c->next)
        if (is(c, "input")) {
            char *s = prop(c, "semantic");
            bool hit = s && strcmp(s, sem) == 0;
            xmlFree(s);
            if (hit)
                return c;
        }
    return NULL;
}

/* [collada-dom] SID lookup: the first element, breadth-first over the subtree of `start`
 * (itself first), whose sid is `sid`. */
static const xmlNode *bfs_sid(const xmlNode *start, const char *sid)
{
    size_t cap = 256, head = 0, tail = 0;
    const xmlNode **queue = malloc(cap * sizeof *queue);
    queue[tail++] = start;
    const xmlNode *hit = NULL;
    while (head < tail && !hit) {
        const xmlNode *n = queue[head++];
        char *s = prop(n, "sid");
        if (s && strcmp(s, sid) == 0)
            hit = n;
        xmlFree(s);
        for (const xmlNode *c = n->children; c; c = c->next)
            if (c->type == XML_ELEMENT_NODE) {
                if (tail == cap)
                    queue = realloc(queue, (cap *= 2) * sizeof *queue);
                queue[tail++] = c;
            }
    }
    free(queue);
    return hit;
}

/* The uploader's skin of one controller (docs/reference/collada-upload.md): names, inverse
 * binds, alternates, bind shape, and per COLLADA position its normalised key and the
 * weights it keeps (4.5: sorted, 4 strongest > 0, renormalised in F32, codes truncated). */
typedef struct upload {
    char mesh[128];
    size_t joints;
    char names[AM_MAX_JOINTS_PER_MESH][64];
    am_mat4 ibm[AM_MAX_JOINTS_PER_MESH];
    am_mat4 alt[AM_MAX_JOINTS_PER_MESH];
    am_mat4 bsm;
    size_t positions;
    float (*key)[3];
    int *count;
    int (*joint)[4];
    uint16_t (*code)[4];
} upload;

static void upload_free(upload *u)
{
    free(u->key);
    free(u->count);
    free(u->joint);
    free(u->code);
}

static am_mat4 ll_from_collada(const double *dom)
{
    am_mat4 m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m.m[4 * i + j] = (float)dom[i + 4 * j]; /* LLDAELoader: m[i][j] = (F32)dom[i + 4j] */
    return m;
}

/* A joint node's translation (5.3): sid translate / location (a <translate>), the first
 * <translate> child, then the matrix with sid transform (skeleton path) or matrix. */
static am_vec3 node_translation(const xmlNode *node, bool skeleton_path)
{
    const xmlNode *t = bfs_sid(node, "translate");
    if (!is(t, "translate"))
        t = bfs_sid(node, "location");
    if (!is(t, "translate"))
        t = child(node, "translate");
    size_t n;
    if (is(t, "translate")) {
        double *v = numbers(t, &n);
        am_vec3 r = am_v3((float)v[0], (float)v[1], (float)v[2]);
        free(v);
        return r;
    }
    const xmlNode *m = bfs_sid(node, skeleton_path ? "transform" : "matrix");
    if (!is(m, "matrix"))
        return am_v3(0, 0, 0);
    double *v = numbers(m, &n);
    am_vec3 r = am_v3((float)v[3], (float)v[7], (float)v[11]);
    free(v);
    return r;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The joint-position table of the whole document (5.1, 5.2): per canonical viewer joint
 * (skeleton path) or per node name as written (no skeleton); found[] marks entries. */
static void joint_table(const xmlNode *root, const am_skeleton *skel, am_vec3 *pos, bool *found)
{
    for (size_t j = 0; j < skel->joint_count; j++)
        found[j] = false;
    /* every <skeleton> of the document that resolves */
    const xmlNode *roots[256];
    size_t nr = 0;
    for (const xmlNode *sk = find(root, "skeleton", NULL, NULL); sk && nr < 256;) {
        xmlChar *u = xmlNodeGetContent(sk);
        char *p = (char *)u;
        while (*p == ' ' || *p == '\n')
            p++;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\n'))
            *--e = '\0';
        const xmlNode *r = find(root, "node", "id", p + 1);
        xmlFree(u);
        if (r)
            roots[nr++] = r;
        /* next <skeleton> in document order */
        const xmlNode *next = NULL;
        for (const xmlNode *n = sk; n && !next; n = n->parent)
            for (const xmlNode *c = n->next; c && !next; c = c->next)
                next = is(c, "skeleton") ? c : find(c->children, "skeleton", NULL, NULL);
        sk = next;
    }
    if (nr) {
        /* every key of the legal-joint map, in std::map (byte) order */
        size_t nk = 0;
        const char **keys = malloc((skel->alias_count + skel->joint_count) * sizeof *keys);
        for (size_t i = 0; i < skel->alias_count; i++)
            keys[nk++] = skel->aliases[i].alias;
        for (size_t i = skel->bone_count; i < skel->joint_count; i++)
            keys[nk++] = skel->joints[i].name;
        qsort(keys, nk, sizeof *keys, cmp_cstr);
        for (size_t r = 0; r < nr; r++)
            for (size_t k = 0; k < nk; k++) {
                if (k && strcmp(keys[k], keys[k - 1]) == 0)
                    continue;
                const xmlNode *n = bfs_sid(roots[r], keys[k]);
                if (!is(n, "node"))
                    continue;
                int j = am_skeleton_find(skel, keys[k]);
                pos[j] = node_translation(n, true);
                found[j] = true;
            }
        free(keys);
        return;
    }
    /* no <skeleton>: nodes by name as written; only canonical names can be looked up later */
    const xmlNode *stack[4096];
    size_t sp = 0;
    const xmlNode *vs = find(root, "visual_scene", NULL, NULL);
    for (const xmlNode *c = vs ? vs->children : NULL; c; c = c->next)
        if (is(c, "node") && sp < 4096)
            stack[sp++] = c;
    while (sp) {
        const xmlNode *n = stack[--sp];
        char *name = prop(n, "name");
        if (!name)
            continue;
        int j = am_skeleton_find_exact(skel, name);
        if (j >= 0) {
            pos[j] = node_translation(n, false);
            found[j] = true;
        }
        xmlFree(name);
        for (const xmlNode *c = n->children; c; c = c->next)
            if (is(c, "node") && sp < 4096)
                stack[sp++] = c;
    }
}

/* The <p> vertex indices of every primitive of a mesh (for the normalisation box). */
static void mesh_box(const xmlNode *mesh, const double *pos, float mn[3], float mx[3])
{
    for (int k = 0; k < 3; k++) {
        mn[k] = INFINITY;
        mx[k] = -INFINITY;
    }
    for (const xmlNode *t = mesh->children; t; t = t->next) {
        if (!is(t, "triangles") && !is(t, "polylist") && !is(t, "polygons"))
            continue;
        size_t stride = 0, voff = 0;
        for (const xmlNode *c = t->children; c; c = c->next)
            if (is(c, "input")) {
                char *o = prop(c, "offset"), *sem = prop(c, "semantic");
                size_t off = o ? strtoul(o, NULL, 10) : 0;
                stride = off + 1 > stride ? off + 1 : stride;
                if (sem && strcmp(sem, "VERTEX") == 0)
                    voff = off;
                xmlFree(o);
                xmlFree(sem);
            }
        size_t used = (size_t)-1;
        if (is(t, "polylist")) {
            size_t nvc;
            double *vc = numbers(child(t, "vcount"), &nvc);
            used = 0;
            for (size_t i = 0; i < nvc; i++)
                used += (size_t)vc[i] * stride;
            free(vc);
        }
        for (const xmlNode *pe = t->children; pe; pe = pe->next) {
            if (!is(pe, "p"))
                continue;
            size_t np;
            double *p = numbers(pe, &np);
            if (used < np)
                np = used;
            for (size_t i = voff; i < np; i += stride) {
                const double *q = &pos[3 * (size_t)p[i]];
                for (int k = 0; k < 3; k++) {
                    float f = (float)q[k];
                    mn[k] = f < mn[k] ? f : mn[k];
                    mx[k] = f > mx[k] ? f : mx[k];
                }
            }
            free(p);
        }
    }
}

/* Every skin of a document: returns how many (at most max). */
static size_t emulate_uploader(const char *xml, size_t size, const am_skeleton *skel, upload *ups, size_t max)
{
    xmlDoc *doc = xmlReadMemory(xml, (int)size, "x.dae", NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
    assert_non_null(doc);
    const xmlNode *root = xmlDocGetRootElement(doc);
    am_vec3 *table = calloc(skel->joint_count, sizeof *table);
    bool *found = calloc(skel->joint_count, sizeof *found);
    joint_table(root, skel, table, found);
    size_t n = 0;
    for (const xmlNode *skin = find(root, "skin", NULL, NULL); skin && n < max;) {
        upload *up = &ups[n++];
        memset(up, 0, sizeof *up);
        char *src = prop(skin, "source");
        const xmlNode *geom = find(root, "geometry", "id", src + 1);
        xmlFree(src);
        assert_non_null(geom);
        char *gname = prop(geom, "name");
        snprintf(up->mesh, sizeof up->mesh, "%s", gname ? gname : "");
        xmlFree(gname);
        const xmlNode *mesh = child(geom, "mesh");
        const xmlNode *pos_src = source_of(root, input_sem(child(mesh, "vertices"), "POSITION"));
        size_t npos;
        double *pos = numbers(child(pos_src, "float_array"), &npos);
        npos /= 3;
        up->positions = npos;

        /* 4.1 verifyController */
        const xmlNode *vw = child(skin, "vertex_weights");
        char *cnt = prop(vw, "count");
        assert_int_equal(strtoul(cnt, NULL, 10), npos);
        xmlFree(cnt);
        size_t nvc, nv;
        double *vc = numbers(child(vw, "vcount"), &nvc);
        double *v = numbers(child(vw, "v"), &nv);
        assert_int_equal(nvc, npos);
        size_t inputs = 0, sumvc = 0;
        for (const xmlNode *c = vw->children; c; c = c->next)
            inputs += is(c, "input");
        for (size_t i = 0; i < nvc; i++)
            sumvc += (size_t)vc[i];
        assert_int_equal(sumvc * inputs, nv);

        /* 4.2 bind shape, then the normalisation over the vertices the faces use (F32) */
        size_t n16;
        double *bs = numbers(child(skin, "bind_shape_matrix"), &n16);
        assert_int_equal(n16, 16);
        am_mat4 bsm = ll_from_collada(bs);
        float mn[3], mx[3], trans[3], scale[3];
        mesh_box(mesh, pos, mn, mx);
        am_mat4 nt = am_mat4_identity();
        for (int k = 0; k < 3; k++) {
            float sz = mx[k] - mn[k];
            if (fabsf(sz) < 0.00001f)
                sz = 1.0f;
            scale[k] = 1.0f / sz;
            trans[k] = (mn[k] + mx[k]) * -0.5f;
            nt.m[5 * k] = (double)(1.0f / scale[k]);
            nt.m[12 + k] = (double)-trans[k];
        }
        up->bsm = am_mat4_mul(&nt, &bsm); /* BSM_asset = NT * BSM (LL layout) */

        /* 4.3 joint names through the legal-joint map; 4.4 inverse binds; 6 alternates */
        const xmlNode *joints = child(skin, "joints");
        const xmlNode *jsrc = source_of(root, input_sem(joints, "JOINT"));
        const xmlNode *arr = child(jsrc, "Name_array");
        xmlChar *names = xmlNodeGetContent(arr ? arr : child(jsrc, "IDREF_array"));
        char *save = NULL;
        int jnum[AM_MAX_JOINTS_PER_MESH];
        for (char *tok = strtok_r((char *)names, " \t\n\r", &save); tok; tok = strtok_r(NULL, " \t\n\r", &save)) {
            assert_lt(up->joints, AM_MAX_JOINTS_PER_MESH);
            int j = am_skeleton_find(skel, tok);
            assert_ge(j, 0); /* a legal name, else "unknown joint" disables skinning */
            jnum[up->joints] = j;
            snprintf(up->names[up->joints++], 64, "%s", skel->joints[j].name);
        }
        xmlFree(names);
        const xmlNode *isrc = source_of(root, input_sem(joints, "INV_BIND_MATRIX"));
        size_t nm;
        double *ibm = numbers(child(isrc, "float_array"), &nm);
        assert_ge(nm, 16 * up->joints);
        for (size_t j = 0; j < up->joints; j++) {
            up->ibm[j] = ll_from_collada(&ibm[16 * j]);
            up->alt[j] = up->ibm[j];
            am_mat4_set_translation(&up->alt[j], found[jnum[j]] ? table[jnum[j]] : am_v3(0, 0, 0));
        }

        /* 4.5 weights per position, keyed by the normalised position */
        const xmlNode *wsrc = source_of(root, input_sem(vw, "WEIGHT"));
        size_t nw;
        double *w = numbers(child(wsrc, "float_array"), &nw);
        up->key = malloc(npos * sizeof *up->key);
        up->count = calloc(npos, sizeof *up->count);
        up->joint = calloc(npos, sizeof *up->joint);
        up->code = calloc(npos, sizeof *up->code);
        size_t at = 0;
        for (size_t i = 0; i < npos; i++) {
            for (int k = 0; k < 3; k++)
                up->key[i][k] = ((float)pos[3 * i + (size_t)k] + trans[k]) * scale[k];
            int jj[16];
            float ww[16];
            int cnt_i = 0;
            for (int k = 0; k < (int)vc[i]; k++, at += 2)
                if ((int)v[at] != -1 && cnt_i < 16) {
                    jj[cnt_i] = (int)v[at];
                    ww[cnt_i++] = (float)w[(size_t)v[at + 1]];
                }
            for (int a = 0; a < cnt_i; a++)
                for (int b = a + 1; b < cnt_i; b++)
                    if (ww[b] > ww[a] || (ww[b] == ww[a] && jj[b] > jj[a])) {
                        float tw = ww[a];
                        int tj = jj[a];
                        ww[a] = ww[b], jj[a] = jj[b], ww[b] = tw, jj[b] = tj;
                    }
            int keep = 0;
            float sum = 0;
            for (int k = 0; k < cnt_i && k < 4; k++)
                if (ww[k] > 0) {
                    sum += ww[k];
                    keep++;
                }
            up->count[i] = keep;
            float sc = keep ? 1.0f / sum : 1.0f; /* the viewer's 1/0 scales nothing */
            for (int k = 0; k < keep; k++) {
                float f = sc != 1.0f ? ww[k] * sc : ww[k];
                up->code[i][k] = (uint16_t)(f * 65535.0f);
                up->joint[i][k] = jj[k];
            }
        }
        free(pos);
        free(vc);
        free(v);
        free(bs);
        free(ibm);
        free(w);
        /* next <skin> in document order */
        const xmlNode *next = NULL;
        for (const xmlNode *nd = skin; nd && !next; nd = nd->parent)
            for (const xmlNode *c = nd->next; c && !next; c = c->next)
                next = is(c, "skin") ? c : find(c->children, "skin", NULL, NULL);
        skin = next;
    }
    free(table);
    free(found);
    xmlFreeDoc(doc);
    return n;
}

/* The emulated skin against a decoded asset: names, inverse binds, alternates, bind shape
 * to `tol`; every high-LOD vertex's weights against the position the uploader would key it
 * by (the nearest key; vertices with two keys within 3e-5 are skipped as ambiguous).
 * Codes: ours sum exactly to 65535 (the residual on the largest, which may so differ by up
 * to one step per influence), the others at most one step apart. */
static void compare_asset(const upload *up, const am_mesh_asset *a, double tol, size_t *checked)
{
    const am_mesh_skin *s = &a->skin;
    assert_int_equal(up->joints, s->joint_count);
    assert_int_equal(s->alt_count, s->joint_count);
    for (size_t j = 0; j < s->joint_count; j++) {
        assert_string_equal(up->names[j], s->joint_names[j]);
        assert_near(am_mat4_max_abs_diff(&up->ibm[j], &s->inverse_bind[j]), 0, tol);
        assert_near(am_mat4_max_abs_diff(&up->alt[j], &s->alt_inverse_bind[j]), 0, tol);
    }
    assert_near(am_mat4_max_abs_diff(&up->bsm, &s->bind_shape), 0, tol);
    const am_mesh_lod *hi = &a->lods[AM_LOD_HIGH];
    size_t skipped = 0;
    for (size_t f = 0; f < hi->face_count; f++) {
        const am_mesh_face *fc = &hi->faces[f];
        for (size_t i = 0; i < fc->vertex_count; i++) {
            const float *p = &fc->positions[3 * i];
            double best = INFINITY, second = INFINITY;
            size_t bi = 0;
            for (size_t k = 0; k < up->positions; k++) {
                double dx = up->key[k][0] - p[0], dy = up->key[k][1] - p[1], dz = up->key[k][2] - p[2];
                double d = dx * dx + dy * dy + dz * dz;
                if (d < best) {
                    second = best;
                    best = d;
                    bi = k;
                } else if (d < second) {
                    second = d;
                }
            }
            assert_lt(sqrt(best), 4e-5); /* one quantisation step of the unit cube, about */
            if (sqrt(second) < 3e-5) {
                skipped++;
                continue;
            }
            if (up->count[bi] == 0) { /* the viewer binds it to joint_names[0]; so do we, fully */
                assert_int_equal(fc->weight_count[i], 1);
                assert_int_equal(fc->weight_joint[4 * i], 0);
                (*checked)++;
                continue;
            }
            /* an influence whose code truncates to 0 is written by the uploader (the viewer
             * reads it as 0.001) and dropped by ours (the exact-sum rule) */
            int n = up->count[bi], kept = 0, ej[4];
            uint16_t ec[4];
            for (int k = 0; k < n; k++)
                if (up->code[bi][k] > 0 || k == 0) {
                    ej[kept] = up->joint[bi][k];
                    ec[kept++] = up->code[bi][k];
                }
            assert_int_equal(fc->weight_count[i], kept);
            int sum = 0;
            for (int k = 0; k < fc->weight_count[i]; k++) {
                assert_int_equal(fc->weight_joint[4 * i + k], ej[k]);
                int d = abs((int)fc->weight_code[4 * i + k] - (int)ec[k]);
                assert_le(d, (k == 0 ? n : 1));
                sum += fc->weight_code[4 * i + k];
            }
            if (fc->weight_count[i])
                assert_int_equal(sum, 65535);
            (*checked)++;
        }
    }
    assert_le(skipped * 100, *checked + skipped); /* at most 1 % ambiguous */
}

static void check_rig(am_rig *rig)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_skin_result res;
    am_error err;
    am_error_clear(&err);
    char buf[512];
    if (am_skin_build(rig, &skel, NULL, &res, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    am_buf dae = {0}, mesh = {0};
    assert_int_equal(am_skin_write_collada(&res, &dae, &err), AM_OK);
    /* streamed into a file (what the export writes), the same bytes */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(am_skin_write_collada_file(&res, f, "t.dae", &err), AM_OK);
    assert_int_equal((size_t)ftell(f), dae.size);
    rewind(f);
    char *back = malloc(dae.size + 1);
    assert_int_equal(fread(back, 1, dae.size + 1, f), dae.size);
    assert_memory_equal(back, dae.data, dae.size);
    free(back);
    fclose(f);
    assert_int_equal(am_skin_encode(&res, &mesh, &err), AM_OK);
    upload *up = malloc(sizeof *up);
    assert_int_equal(emulate_uploader((const char *)dae.data, dae.size, &skel, up, 1), 1);
    am_mesh_asset a;
    assert_int_equal(am_mesh_asset_decode(mesh.data, mesh.size, &a, &err), AM_OK);
    size_t checked = 0;
    compare_asset(up, &a, 1e-6, &checked);
    assert_int_equal(checked, res.vertex_count);
    am_mesh_asset_free(&a);
    upload_free(up);
    free(up);
    am_buf_free(&dae);
    am_buf_free(&mesh);
    am_skin_result_free(&res);
    am_skeleton_free(&skel);
}

static void test_uploader_computes_our_skin_block_from_our_dae_quadruped(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    check_rig(&rig);
    am_rig_free(&rig);
}

/* Attachment points (names with spaces, rotations) and a collision volume (rotation and
 * scale in its rest matrix) through the same round trip. */
static void test_uploader_round_trip_with_attachment_points_and_volumes(void **state)
{
    static const char json[] =
        "{\"name\": \"extras\", \"joints\": ["
        "{\"name\": \"mPelvis\", \"world\": [0, 0, 1.067]},"
        "{\"name\": \"mTorso\", \"world\": [0.02, 0, 1.17]},"
        "{\"name\": \"Left Pec\", \"world\": [0.13, 0.09, 1.40]},"
        "{\"name\": \"Chest\", \"world\": [0.10, 0, 1.25]},"
        "{\"name\": \"BELLY\", \"world\": [0.05, 0, 1.15]}],"
        "\"vertices\": [[0,0,1,0,0,1,0,0],[0.2,0,1.1,0,0,1,1,0],[0,0.2,1.3,0,0,1,0,1],[0.1,0.1,1.4,0,0,1,1,1]],"
        "\"triangles\": [[0,1,2],[1,3,2]],"
        "\"weights\": [[[0,1]],[[1,0.5],[4,0.5]],[[2,0.3],[3,0.3],[4,0.4]],[[3,1]]]}";
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(json, sizeof json - 1, "extras", &rig, &err), AM_OK);
    check_rig(&rig);
    am_rig_free(&rig);
}

/* The odd rig of test_skin_independent_fk.c (hand numbers there): a moved tail link, a link
 * within 0.1 mm of its default, a joint under an appended ancestor, a moved mHindLimbsRoot
 * with a leg under it, a moved collision volume; mPelvis and five ancestors appended. The
 * uploader must compute the same overrides and inverse binds from our .dae. */
static void test_uploader_round_trip_of_an_odd_rig(void **state)
{
    static const char json[] =
        "{\"name\": \"odd\", \"joints\": ["
        "{\"name\": \"mTail1\", \"world\": [-0.116, 0, 1.114]},"
        "{\"name\": \"mTail2\", \"world\": [-0.35, 0, 1.13]},"
        "{\"name\": \"mTail3\", \"world\": [-0.51795, 0, 1.13]},"
        "{\"name\": \"mTail5\", \"world\": [-0.80, 0.02, 1.10]},"
        "{\"name\": \"mHindLimbsRoot\", \"world\": [-0.25, 0, 1.20]},"
        "{\"name\": \"mHindLimb1Left\", \"world\": [-0.45, 0.13, 1.08]},"
        "{\"name\": \"mHindLimb3Left\", \"world\": [-0.47, 0.09, 0.12]},"
        "{\"name\": \"BELLY\", \"world\": [0.05, 0, 1.20]}],"
        "\"vertices\": [[-0.1,0,1.1,0,0,1,0,0],[-0.4,0,1.1,0,0,1,1,0],[-0.5,0,1.2,0,0,1,0,1],[-0.8,0,1.1,0,0,1,1,1],"
        "[-0.25,0,1.2,0,0,1,0,0],[-0.45,0.1,1.0,0,0,1,1,0],[-0.47,0.1,0.2,0,0,1,0,1],[0.05,0,1.2,0,0,1,1,1]],"
        "\"triangles\": [[0,1,2],[1,3,2],[4,5,6],[5,7,6]],"
        "\"weights\": [[[0,1]],[[1,0.6],[0,0.4]],[[2,1]],[[3,1]],[[4,1]],[[5,0.5],[4,0.5]],[[6,1]],[[7,1]]]}";
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(json, sizeof json - 1, "odd", &rig, &err), AM_OK);
    check_rig(&rig);
    am_rig_free(&rig);
}

/* A textured rig with an image: the material samples it through TEXCOORD set 0. */
static void test_textured_rig_material_references_the_image(void **state)
{
    static const char json[] =
        "{\"name\": \"tex\", \"joints\": [{\"name\": \"mPelvis\", \"world\": [0, 0, 1.067]}],"
        "\"vertices\": [[0,0,1,0,0,1,0,0],[0.2,0,1.1,0,0,1,1,0],[0,0.2,1.3,0,0,1,0,1]],"
        "\"triangles\": [[0,1,2]], \"weights\": [[[0,1]],[[0,1]],[[0,1]]],"
        "\"material\": {\"rgb\": [1, 0.5, 0], \"textured\": true}}";
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_parse_json(json, sizeof json - 1, "tex", &rig, &err), AM_OK);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_skin_options opts;
    am_skin_options_init(&opts);
    opts.texture_image = "tex_atlas.png";
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    am_buf dae = {0};
    assert_int_equal(am_skin_write_collada(&res, &dae, &err), AM_OK);
    xmlDoc *doc = xmlReadMemory((const char *)dae.data, (int)dae.size, "t.dae", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    const xmlNode *root = xmlDocGetRootElement(doc);
    const xmlNode *img = find(root, "image", "id", "tex-image");
    assert_non_null(img);
    xmlChar *file = xmlNodeGetContent(child(img, "init_from"));
    assert_string_equal((const char *)file, "tex_atlas.png");
    xmlFree(file);
    const xmlNode *texn = find(root, "texture", "texture", "tex-sampler");
    assert_non_null(texn);
    assert_non_null(find(root, "bind_vertex_input", "input_semantic", "TEXCOORD"));
    xmlFreeDoc(doc);
    am_buf_free(&dae);
    am_skin_result_free(&res);
    /* untextured: a diffuse colour and no image */
    rig.textured = false;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    assert_int_equal(am_skin_write_collada(&res, &dae, &err), AM_OK);
    assert_null(strstr((const char *)dae.data, "<library_images>"));
    assert_non_null(strstr((const char *)dae.data, "<color sid=\"diffuse\">1 0.5 0 1</color>"));
    am_buf_free(&dae);
    am_skin_result_free(&res);
    am_skeleton_free(&skel);
    am_rig_free(&rig);
}

/* The real files: the independent emulation above, run on each file, agrees with what
 * animesh import wrote (decoded from the written .llmesh, one per rigged mesh). */
static void check_file(const char *path, size_t want_skins)
{
    char dir[256], file[1400], buf[600];
    uint8_t *xml;
    size_t size;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_read_file(path, &xml, &size, &err), AM_OK);
    /* the emulation skips the preprocess: none of these files has a quoted name with a space */
    char *copy = malloc(size + 1);
    memcpy(copy, xml, size + 1);
    assert_int_equal(am_collada_preprocess(copy, size), 0);
    free(copy);
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    upload *ups = calloc(8, sizeof *ups);
    size_t n = emulate_uploader((const char *)xml, size, &skel, ups, 8);
    assert_int_equal(n, want_skins);
    am_test_tmpdir(dir, sizeof dir);
    am_import_options opts;
    am_import_options_init(&opts);
    am_import_report rep;
    if (am_import_file(path, &skel, &opts, dir, &rep, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(rep.part_count, n);
    size_t checked = 0;
    for (size_t i = 0; i < rep.part_count; i++) {
        const upload *up = NULL;
        for (size_t k = 0; k < n && !up; k++)
            if (strcmp(ups[k].mesh, am_str(&rep.parts[i].meshes)) == 0)
                up = &ups[k];
        assert_non_null(up);
        snprintf(file, sizeof file, "%s/%s.llmesh", dir, am_str(&rep.parts[i].name));
        am_mesh_asset a;
        assert_int_equal(am_mesh_asset_load(file, &a, &err), AM_OK);
        compare_asset(up, &a, 1e-6, &checked);
        am_mesh_asset_free(&a);
    }
    assert_gt(checked, 0);
    am_import_report_free(&rep);
    for (size_t k = 0; k < n; k++)
        upload_free(&ups[k]);
    free(ups);
    free(xml);
    am_skeleton_free(&skel);
    am_test_rmtree(dir);
}

static void check_real_file(const char *rel, size_t want_skins)
{
    char path[1024];
    am_test_shared_path(path, sizeof path, rel);
    check_file(path, want_skins);
}

/* A position whose only influence weighs 0 (found by fuzz_collada: the kept weights were
 * scaled by 1/0): the uploader binds it to joint_names[0], and so must the import. */
static void test_uploader_agrees_on_a_weightless_position(void **state)
{
    (void)state;
    char path[1024], dir[256], copy[400];
    am_test_shared_path(path, sizeof path, "data/realdata/r2ROOTPRIM_rigged.dae");
    uint8_t *xml;
    size_t size;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_read_file(path, &xml, &size, &err), AM_OK);
    const char *weights = "skin-weights-array\">1 1 1 1 1 1 1 1<";
    char *at = strstr((char *)xml, weights);
    assert_non_null(at);
    at[strlen("skin-weights-array\">")] = '0';
    am_test_tmpdir(dir, sizeof dir);
    snprintf(copy, sizeof copy, "%s/weightless.dae", dir);
    am_test_write_text(copy, (const char *)xml); /* am_read_file ends the bytes with a NUL */
    free(xml);
    check_file(copy, 1);
    am_test_rmtree(dir);
}

static void test_uploader_agrees_with_the_import_little_bear(void **state)
{
    (void)state;
    check_real_file("data/realdata/Little Bear_90.dae", 1);
}

static void test_uploader_agrees_with_the_import_bento_female(void **state)
{
    (void)state;
    check_real_file("data/realdata/female_2016_08_05.dae", 5);
}

static void test_uploader_agrees_with_the_import_ruth2_hands(void **state)
{
    (void)state;
    check_real_file("data/realdata/Ruth2v4Hands.dae", 1);
}

static void test_uploader_agrees_with_the_import_roth2_body(void **state)
{
    (void)state;
    check_real_file("data/realdata/Roth2-v2-Body.dae", 1);
}

static void test_uploader_agrees_with_the_import_r2rootprim(void **state)
{
    (void)state;
    check_real_file("data/realdata/r2ROOTPRIM_rigged.dae", 1);
}

/* Round trip: every .dae our skin builder writes imports back to the skin block of its
 * .llmesh (the inverse binds through F32, as the uploader keeps them). */
static void round_trip(const am_rig *rig)
{
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_error err;
    am_error_clear(&err);
    char dir[256], am_dae_path[400], back[400], buf[600];
    am_test_tmpdir(dir, sizeof dir);
    am_skin_options so;
    am_skin_options_init(&so);
    am_skin_summary *sum = calloc(1, sizeof *sum);
    am_status st = am_skin_export(rig, &skel, &so, dir, sum, &err);
    assert_true(st == AM_OK || sum->face_count > 1);
    snprintf(am_dae_path, sizeof am_dae_path, "%s/%s.dae", dir, rig->name);
    char out[300];
    snprintf(out, sizeof out, "%s/back", dir);
    am_import_options opts;
    am_import_options_init(&opts);
    opts.name = "back";
    am_import_report rep;
    if (am_import_file(am_dae_path, &skel, &opts, out, &rep, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    snprintf(back, sizeof back, "%s/back.llmesh", out);
    am_mesh_asset a, b;
    snprintf(buf, sizeof buf, "%s/%s.llmesh", dir, rig->name);
    assert_int_equal(am_mesh_asset_load(buf, &a, &err), AM_OK);
    assert_int_equal(am_mesh_asset_load(back, &b, &err), AM_OK);
    assert_int_equal(a.skin.joint_count, b.skin.joint_count);
    for (size_t j = 0; j < a.skin.joint_count; j++) {
        assert_string_equal(a.skin.joint_names[j], b.skin.joint_names[j]);
        assert_near(am_mat4_max_abs_diff(&a.skin.inverse_bind[j], &b.skin.inverse_bind[j]), 0, 1e-6);
        assert_near(am_mat4_max_abs_diff(&a.skin.alt_inverse_bind[j], &b.skin.alt_inverse_bind[j]), 0, 1e-6);
    }
    assert_near(am_mat4_max_abs_diff(&a.skin.bind_shape, &b.skin.bind_shape), 0, 1e-6);
    assert_near(rep.parts[0].rest_error_m, 0, 1e-4);
    am_mesh_asset_free(&a);
    am_mesh_asset_free(&b);
    am_import_report_free(&rep);
    am_skin_summary_free(sum);
    free(sum);
    am_skeleton_free(&skel);
    am_test_rmtree(dir);
}

static void test_our_dae_imports_back_to_its_skin_quadruped(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/assets/rigs/quadruped.json", AM_SOURCE_DIR);
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_rig_load(path, &rig, &err), AM_OK);
    round_trip(&rig);
    am_rig_free(&rig);
}

static void test_our_dae_imports_back_to_its_skin_bendbox(void **state)
{
    (void)state;
    am_rig rig;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_bendbox_build_rig(&rig, &err), AM_OK);
    round_trip(&rig);
    am_rig_free(&rig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uploader_computes_our_skin_block_from_our_dae_quadruped),
        cmocka_unit_test(test_uploader_round_trip_with_attachment_points_and_volumes),
        cmocka_unit_test(test_uploader_round_trip_of_an_odd_rig),
        cmocka_unit_test(test_textured_rig_material_references_the_image),
        cmocka_unit_test(test_uploader_agrees_with_the_import_little_bear),
        cmocka_unit_test(test_uploader_agrees_with_the_import_bento_female),
        cmocka_unit_test(test_uploader_agrees_with_the_import_ruth2_hands),
        cmocka_unit_test(test_uploader_agrees_with_the_import_roth2_body),
        cmocka_unit_test(test_uploader_agrees_with_the_import_r2rootprim),
        cmocka_unit_test(test_uploader_agrees_on_a_weightless_position),
        cmocka_unit_test(test_our_dae_imports_back_to_its_skin_quadruped),
        cmocka_unit_test(test_our_dae_imports_back_to_its_skin_bendbox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
