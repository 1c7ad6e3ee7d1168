/* The .dae we write, read back with libxml2 and turned into a skin block by following the
 * viewer's uploader as collada-upload.md describes it (an independent re-implementation
 * of its rules, not our writer's code), must equal the skin block we write directly:
 * joint names, inverse binds, alternate inverse binds (joint positions) and the bind
 * shape (after the uploader's own unit-cube normalisation), to 1e-6. Lessons rule 8. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "test_support.h"

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

/* [collada-dom] SID lookup: breadth-first over the subtree, starting with the node itself. */
static const xmlNode *bfs_sid(const xmlNode *start, const am_skeleton *skel, int want_joint, const char *want_sid)
{
    const xmlNode *queue[4096];
    size_t head = 0, tail = 0;
    queue[tail++] = start;
    while (head < tail) {
        const xmlNode *n = queue[head++];
        char *sid = n->type == XML_ELEMENT_NODE ? prop(n, "sid") : NULL;
        bool hit = false;
        if (sid) {
            if (want_sid)
                hit = strcmp(sid, want_sid) == 0;
            else /* any legal-map key that maps to the wanted joint */
                hit = is(n, "node") && am_skeleton_find(skel, sid) == want_joint;
            xmlFree(sid);
        }
        if (hit)
            return n;
        for (const xmlNode *c = n->children; c && tail < 4096; c = c->next)
            if (c->type == XML_ELEMENT_NODE)
                queue[tail++] = c;
    }
    return NULL;
}

/* The uploader's skin from a .dae (collada-upload.md 2, 4, 5.1, 5.3, 6). */
typedef struct upload {
    size_t joints;
    char names[AM_MAX_JOINTS_PER_MESH][64];
    am_mat4 ibm[AM_MAX_JOINTS_PER_MESH];
    am_mat4 alt[AM_MAX_JOINTS_PER_MESH];
    am_mat4 bsm;
    size_t vertices;
    uint16_t codes[512][4];
    int cjoint[512][4];
    int ccount[512];
} upload;

static am_mat4 ll_from_collada(const double *dom)
{
    am_mat4 m;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            m.m[4 * i + j] = dom[i + 4 * j]; /* LLDAELoader: m[i][j] = dom[i + 4j] */
    return m;
}

static void emulate_uploader(const char *xml, size_t size, const am_skeleton *skel, upload *up)
{
    memset(up, 0, sizeof *up);
    xmlDoc *doc = xmlReadMemory(xml, (int)size, "x.dae", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    const xmlNode *root = xmlDocGetRootElement(doc);
    /* 2: unit and up axis (applied only to the instance transform, never to the skin) */
    const xmlNode *unit = find(root, "unit", NULL, NULL);
    char *meter = prop(unit, "meter");
    assert_string_equal(meter, "1");
    xmlFree(meter);
    xmlChar *up_axis = xmlNodeGetContent(find(root, "up_axis", NULL, NULL));
    assert_string_equal((const char *)up_axis, "Z_UP");
    xmlFree(up_axis);

    const xmlNode *skin = find(root, "skin", NULL, NULL);
    char *src = prop(skin, "source");
    const xmlNode *geom = find(root, "geometry", "id", src + 1);
    xmlFree(src);
    assert_non_null(geom);
    const xmlNode *mesh = child(geom, "mesh");
    const xmlNode *verts = child(mesh, "vertices");
    const xmlNode *pos_src = source_of(root, input_sem(verts, "POSITION"));
    size_t npos;
    double *pos = numbers(child(pos_src, "float_array"), &npos);
    npos /= 3;
    up->vertices = npos;

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

    /* 4.2 bind shape, then the model's normalisation over the vertices its faces use (F32) */
    size_t n16;
    double *bs = numbers(child(skin, "bind_shape_matrix"), &n16);
    assert_int_equal(n16, 16);
    am_mat4 bsm = ll_from_collada(bs);
    float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (const xmlNode *t = mesh->children; t; t = t->next) {
        if (!is(t, "triangles"))
            continue;
        size_t stride = 0, voff = 0;
        for (const xmlNode *c = t->children; c; c = c->next)
            if (is(c, "input")) {
                char *o = prop(c, "offset"), *s = prop(c, "semantic");
                size_t off = strtoul(o, NULL, 10);
                stride = off + 1 > stride ? off + 1 : stride;
                if (strcmp(s, "VERTEX") == 0)
                    voff = off;
                xmlFree(o);
                xmlFree(s);
            }
        size_t np;
        double *p = numbers(child(t, "p"), &np);
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
    am_mat4 nt = am_mat4_identity();
    for (int k = 0; k < 3; k++) {
        float sz = mx[k] - mn[k];
        if (fabsf(sz) < 0.00001f)
            sz = 1.0f;
        float scale = 1.0f / sz;
        nt.m[5 * k] = (double)(1.0f / scale);
        nt.m[12 + k] = (double)-((mn[k] + mx[k]) * -0.5f);
    }
    up->bsm = am_mat4_mul(&nt, &bsm); /* BSM_asset = NT * BSM (LL layout) */

    /* 4.3 joint names through the legal-joint map; 4.4 inverse binds transposed */
    const xmlNode *joints = child(skin, "joints");
    const xmlNode *jsrc = source_of(root, input_sem(joints, "JOINT"));
    xmlChar *names = xmlNodeGetContent(child(jsrc, "Name_array"));
    char *save = NULL;
    int jnum[AM_MAX_JOINTS_PER_MESH];
    for (char *tok = strtok_r((char *)names, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
        assert_true(up->joints < AM_MAX_JOINTS_PER_MESH);
        int j = am_skeleton_find(skel, tok);
        assert_true(j >= 0); /* a legal name, else "unknown joint" disables skinning */
        jnum[up->joints] = j;
        snprintf(up->names[up->joints++], 64, "%s", skel->joints[j].name);
    }
    xmlFree(names);
    const xmlNode *isrc = source_of(root, input_sem(joints, "INV_BIND_MATRIX"));
    size_t nm;
    double *ibm = numbers(child(isrc, "float_array"), &nm);
    assert_int_equal(nm, 16 * up->joints);
    for (size_t j = 0; j < up->joints; j++)
        up->ibm[j] = ll_from_collada(&ibm[16 * j]);

    /* 5.1 <skeleton> path: every joint found by SID under the skeleton root; 5.3 its own
     * translate (SID ./translate, breadth-first); 6: alt = IBM with that translation. */
    const xmlNode *sk = find(root, "skeleton", NULL, NULL);
    assert_non_null(sk);
    xmlChar *uri = xmlNodeGetContent(sk);
    const xmlNode *skroot = find(root, "node", "id", (const char *)uri + 1);
    xmlFree(uri);
    assert_non_null(skroot);
    for (size_t j = 0; j < up->joints; j++) {
        const xmlNode *node = bfs_sid(skroot, skel, jnum[j], NULL);
        assert_non_null(node);
        const xmlNode *tr = bfs_sid(node, skel, -1, "translate");
        assert_non_null(tr);
        assert_true(is(tr, "translate"));
        size_t n3;
        double *t = numbers(tr, &n3);
        assert_int_equal(n3, 3);
        up->alt[j] = up->ibm[j];
        am_mat4_set_translation(&up->alt[j], am_v3(t[0], t[1], t[2]));
        free(t);
        /* nesting mirrors the viewer: the enclosing <node> is the viewer parent */
        const xmlNode *par = node->parent;
        int vp = skel->joints[jnum[j]].parent;
        if (vp < 0) {
            assert_true(is(par, "visual_scene"));
        } else {
            assert_true(is(par, "node"));
            char *pname = prop(par, "name");
            assert_int_equal(am_skeleton_find(skel, pname), vp);
            xmlFree(pname);
        }
    }

    /* 4.5 weights: sort by decreasing weight, keep 4 > 0, renormalise, trunc(w * 65535) */
    const xmlNode *wsrc = source_of(root, input_sem(vw, "WEIGHT"));
    size_t nw;
    double *w = numbers(child(wsrc, "float_array"), &nw);
    size_t at = 0;
    for (size_t i = 0; i < npos && i < 512; i++) {
        int jj[8];
        double ww[8];
        int n = (int)vc[i];
        assert_true(n <= 8);
        for (int k = 0; k < n; k++, at += 2) {
            jj[k] = (int)v[at];
            ww[k] = w[(size_t)v[at + 1]];
        }
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                if (ww[b] > ww[a] || (ww[b] == ww[a] && jj[b] > jj[a])) {
                    double tw = ww[a];
                    int tj = jj[a];
                    ww[a] = ww[b], jj[a] = jj[b], ww[b] = tw, jj[b] = tj;
                }
        int keep = 0;
        float sum = 0;
        for (int k = 0; k < n && keep < 4; k++)
            if (ww[k] > 0) {
                sum += (float)ww[k];
                keep++;
            }
        up->ccount[i] = keep;
        for (int k = 0; k < keep; k++) {
            float f = sum == 1.0f ? (float)ww[k] : (float)ww[k] / sum;
            up->codes[i][k] = (uint16_t)(f * 65535.0f);
            up->cjoint[i][k] = jj[k];
        }
    }
    free(pos);
    free(vc);
    free(v);
    free(bs);
    free(ibm);
    free(w);
    xmlFreeDoc(doc);
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
    am_buf dae = {0};
    assert_int_equal(am_write_collada(&res, &dae, &err), AM_OK);
    /* streamed into a file (what the export writes), the same bytes */
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(am_write_collada_file(&res, f, "t.dae", &err), AM_OK);
    assert_int_equal((size_t)ftell(f), dae.size);
    rewind(f);
    char *back = malloc(dae.size + 1);
    assert_int_equal(fread(back, 1, dae.size + 1, f), dae.size);
    assert_memory_equal(back, dae.data, dae.size);
    free(back);
    fclose(f);
    upload *up = malloc(sizeof *up);
    emulate_uploader((const char *)dae.data, dae.size, &skel, up);

    const am_skin_info *s = &res.asset.skin;
    assert_int_equal(up->joints, s->joint_count);
    for (size_t j = 0; j < s->joint_count; j++) {
        assert_string_equal(up->names[j], s->joint_names[j]);
        assert_near(am_mat4_max_abs_diff(&up->ibm[j], &s->inverse_bind[j]), 0, 1e-6);
        assert_near(am_mat4_max_abs_diff(&up->alt[j], &s->alt_inverse_bind[j]), 0, 1e-6);
    }
    assert_near(am_mat4_max_abs_diff(&up->bsm, &s->bind_shape), 0, 1e-6);
    /* weights: the uploader's codes are ours or one unit below (it truncates without
     * handing the residual to the largest), on the same joints */
    assert_int_equal(up->vertices, res.vertex_count);
    for (size_t v = 0; v < res.vertex_count && v < 512; v++) {
        assert_int_equal(up->ccount[v], res.weight_count[v]);
        for (int k = 0; k < up->ccount[v]; k++) {
            assert_int_equal(up->cjoint[v][k], res.weight_joint[4 * v + k]);
            assert_true(abs((int)up->codes[v][k] - (int)res.weight_code[4 * v + k]) <= 1);
        }
    }
    free(up);
    am_buf_free(&dae);
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
    am_skin_options_default(&opts);
    opts.texture_image = "tex_atlas.png";
    am_skin_result res;
    assert_int_equal(am_skin_build(&rig, &skel, &opts, &res, &err), AM_OK);
    am_buf dae = {0};
    assert_int_equal(am_write_collada(&res, &dae, &err), AM_OK);
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
    assert_int_equal(am_write_collada(&res, &dae, &err), AM_OK);
    assert_null(strstr((const char *)dae.data, "<library_images>"));
    assert_non_null(strstr((const char *)dae.data, "<color sid=\"diffuse\">1 0.5 0 1</color>"));
    am_buf_free(&dae);
    am_skin_result_free(&res);
    am_skeleton_free(&skel);
    am_rig_free(&rig);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uploader_computes_our_skin_block_from_our_dae_quadruped),
        cmocka_unit_test(test_uploader_round_trip_with_attachment_points_and_volumes),
        cmocka_unit_test(test_uploader_round_trip_of_an_odd_rig),
        cmocka_unit_test(test_textured_rig_material_references_the_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
