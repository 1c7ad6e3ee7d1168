#include "world/meshdata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "skin/skin_build.h" /* AM_RIG_MAX_COORD_M */
#include "core/json_text.h"

#define AM_MESHDATA_MAX_VERTICES 65536 /* one face's limit (docs/reference/lessons.md#rule-12) */
#define AM_MESHDATA_WEIGHT_SUM_TOL 1e-3

/* An array of exactly n finite numbers. */
static am_status numbers(const json_t *v, size_t n, const char *field, double *out, am_error *err)
{
    if (!json_is_array(v) || json_array_size(v) != n)
        return am_fail_where(err, AM_ERR_INVALID, field, "expected an array of %zu numbers", n);
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(v, i);
        if (!json_is_number(x))
            return am_fail_where(err, AM_ERR_INVALID, field, "element %zu is not a number", i);
        double d = json_number_value(x);
        if (!isfinite(d))
            return am_fail_where(err, AM_ERR_INVALID, field, "element %zu is not finite", i);
        if (out)
            out[i] = d;
    }
    return AM_OK;
}

/* An array of arrays of `width` numbers; returns its length in *count. */
static am_status rows(const json_t *v, size_t width, const char *field, size_t *count, am_error *err)
{
    if (!json_is_array(v))
        return am_fail_where(err, AM_ERR_INVALID, field, "expected an array of [%zu numbers]", width);
    *count = json_array_size(v);
    char f[128];
    for (size_t i = 0; i < *count; i++) {
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        if (numbers(json_array_get(v, i), width, f, NULL, err))
            return AM_ERR_INVALID;
    }
    return AM_OK;
}

static am_status check_submesh(const json_t *sm, size_t k, am_meshdata_summary *sum, size_t *verts_out,
                               am_error *err)
{
    char f[128], g[128];
    snprintf(f, sizeof f, "submeshes[%zu]", k);
    if (!json_is_object(sm))
        return am_fail_where(err, AM_ERR_INVALID, f, "expected an object");
    size_t nv = 0, n = 0;
    snprintf(g, sizeof g, "%s.positions", f);
    const json_t *pos = json_object_get(sm, "positions");
    if (!pos)
        return am_fail_where(err, AM_ERR_INVALID, g, "missing");
    if (rows(pos, 3, g, &nv, err))
        return AM_ERR_INVALID;
    if (nv == 0 || nv > AM_MESHDATA_MAX_VERTICES)
        return am_fail_where(err, AM_ERR_INVALID, g, "%zu vertices (a face holds 1..%d)", nv, AM_MESHDATA_MAX_VERTICES);
    /* the skin builder's rule: beyond it a coordinate is a units mistake, not a creature */
    for (size_t i = 0; i < nv; i++)
        for (size_t c = 0; c < 3; c++) {
            double d = json_number_value(json_array_get(json_array_get(pos, i), c));
            if (fabs(d) > AM_RIG_MAX_COORD_M) {
                snprintf(g, sizeof g, "%s.positions[%zu]", f, i);
                return am_fail_where(err, AM_ERR_INVALID, g,
                                     "coordinate %g m is beyond +-%g m (bind frame, metres: wrong units?)", d,
                                     AM_RIG_MAX_COORD_M);
            }
        }
    static const struct {
        const char *key;
        size_t width;
    } per_vertex[] = {{"normals", 3}, {"uvs", 2}};
    for (size_t i = 0; i < 2; i++) {
        const json_t *a = json_object_get(sm, per_vertex[i].key);
        if (!a)
            continue;
        snprintf(g, sizeof g, "%s.%s", f, per_vertex[i].key);
        if (rows(a, per_vertex[i].width, g, &n, err))
            return AM_ERR_INVALID;
        if (n != nv)
            return am_fail_where(err, AM_ERR_INVALID, g, "%zu entries for %zu positions", n, nv);
    }
    snprintf(g, sizeof g, "%s.triangles", f);
    const json_t *tri = json_object_get(sm, "triangles");
    if (!json_is_array(tri) || json_array_size(tri) == 0)
        return am_fail_where(err, AM_ERR_INVALID, g, "expected a non-empty array of [a, b, c]");
    size_t nt = json_array_size(tri);
    for (size_t t = 0; t < nt; t++) {
        const json_t *abc = json_array_get(tri, t);
        snprintf(g, sizeof g, "%s.triangles[%zu]", f, t);
        if (!json_is_array(abc) || json_array_size(abc) != 3)
            return am_fail_where(err, AM_ERR_INVALID, g, "expected [a, b, c]");
        for (size_t c = 0; c < 3; c++) {
            const json_t *ix = json_array_get(abc, c);
            if (!json_is_integer(ix))
                return am_fail_where(err, AM_ERR_INVALID, g, "index %zu is not an integer", c);
            json_int_t v = json_integer_value(ix);
            if (v < 0 || (size_t)v >= nv)
                return am_fail_where(err, AM_ERR_INVALID, g, "index %lld outside 0..%zu", (long long)v, nv - 1);
        }
    }
    const json_t *rgb = json_object_get(sm, "rgb");
    if (rgb) {
        double c[3];
        snprintf(g, sizeof g, "%s.rgb", f);
        if (numbers(rgb, 3, g, c, err))
            return AM_ERR_INVALID;
        /* Either 0..1 floats or 0..255 integers: the contract does not say which. */
        bool unit = c[0] <= 1 && c[1] <= 1 && c[2] <= 1;
        for (int i = 0; i < 3; i++)
            if (c[i] < 0 || c[i] > (unit ? 1.0 : 255.0))
                return am_fail_where(err, AM_ERR_INVALID, g, "component %d = %g outside 0..1 (or 0..255)", i, c[i]);
    }
    const json_t *tx = json_object_get(sm, "textured");
    if (tx && !json_is_boolean(tx)) {
        snprintf(g, sizeof g, "%s.textured", f);
        return am_fail_where(err, AM_ERR_INVALID, g, "expected true or false");
    }
    sum->vertices += nv;
    sum->triangles += nt;
    *verts_out = nv;
    return AM_OK;
}

static am_status check_skin(const json_t *skin, size_t nv0, const am_skeleton *skel, am_meshdata_summary *sum,
                            am_error *err)
{
    char g[128];
    if (!json_is_object(skin))
        return am_fail_where(err, AM_ERR_INVALID, "skin", "expected an object");
    const json_t *joints = json_object_get(skin, "joints");
    if (!json_is_array(joints))
        return am_fail_where(err, AM_ERR_INVALID, "skin.joints", "expected an array of joint names");
    size_t nj = json_array_size(joints);
    if (nj == 0 || nj > AM_MAX_JOINTS_PER_MESH)
        return am_fail_where(err, AM_ERR_INVALID, "skin.joints", "%zu joints (a mesh carries 1..%d)", nj,
                             AM_MAX_JOINTS_PER_MESH);
    for (size_t i = 0; i < nj; i++) {
        const char *name = json_string_value(json_array_get(joints, i));
        snprintf(g, sizeof g, "skin.joints[%zu]", i);
        if (!name || !name[0])
            return am_fail_where(err, AM_ERR_INVALID, g, "expected a non-empty joint name");
        for (size_t j = 0; j < i; j++)
            if (strcmp(name, json_string_value(json_array_get(joints, j))) == 0)
                return am_fail_where(err, AM_ERR_INVALID, g, "\"%s\" repeats skin.joints[%zu]", name, j);
        if (skel) {
            /* Bones, collision volumes and (non-HUD) attachment points are all legal skin
             * joints (docs/reference/viewer-skeleton.md#valid-joint-names), canonical names as animesh skin writes them. */
            if (am_skeleton_find_exact(skel, name) < 0)
                return am_fail_where(err, AM_ERR_INVALID, g,
                                     "unknown joint \"%s\" (not a viewer bone, collision volume or attachment point)",
                                     name);
        }
    }
    const json_t *bs = json_object_get(skin, "bindShape");
    if (numbers(bs, 16, "skin.bindShape", NULL, err))
        return AM_ERR_INVALID;
    static const char *per_joint[] = {"invBind", "altInvBind"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(g, sizeof g, "skin.%s", per_joint[k]);
        size_t n = 0;
        if (rows(json_object_get(skin, per_joint[k]), 16, g, &n, err))
            return AM_ERR_INVALID;
        if (n != nj)
            return am_fail_where(err, AM_ERR_INVALID, g, "%zu matrices for %zu joints", n, nj);
    }
    const json_t *po = json_object_get(skin, "pelvisOffset");
    if (po && !json_is_number(po))
        return am_fail_where(err, AM_ERR_INVALID, "skin.pelvisOffset", "expected a number");
    const json_t *w = json_object_get(skin, "weights");
    if (!json_is_array(w))
        return am_fail_where(err, AM_ERR_INVALID, "skin.weights", "expected one list of [joint_index, w] per vertex");
    if (json_array_size(w) != nv0)
        return am_fail_where(err, AM_ERR_INVALID, "skin.weights", "%zu vertex lists for %zu vertices in submesh 0",
                             json_array_size(w), nv0);
    for (size_t v = 0; v < nv0; v++) {
        const json_t *list = json_array_get(w, v);
        snprintf(g, sizeof g, "skin.weights[%zu]", v);
        if (!json_is_array(list) || json_array_size(list) < 1 || json_array_size(list) > 4)
            return am_fail_where(err, AM_ERR_INVALID, g, "expected 1..4 [joint_index, w] pairs");
        size_t np = json_array_size(list);
        json_int_t seen[4];
        double total = 0;
        for (size_t p = 0; p < np; p++) {
            const json_t *pair = json_array_get(list, p);
            if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(json_array_get(pair, 0)) ||
                !json_is_number(json_array_get(pair, 1)))
                return am_fail_where(err, AM_ERR_INVALID, g, "pair %zu is not [joint_index, w]", p);
            json_int_t j = json_integer_value(json_array_get(pair, 0));
            double wt = json_number_value(json_array_get(pair, 1));
            if (j < 0 || (size_t)j >= nj)
                return am_fail_where(err, AM_ERR_INVALID, g, "joint index %lld outside 0..%zu", (long long)j, nj - 1);
            for (size_t q = 0; q < p; q++)
                if (seen[q] == j)
                    return am_fail_where(err, AM_ERR_INVALID, g, "joint index %lld appears twice", (long long)j);
            seen[p] = j;
            if (!(wt > 0 && wt <= 1))
                return am_fail_where(err, AM_ERR_INVALID, g, "weight %g outside (0, 1]", wt);
            total += wt;
        }
        if (fabs(total - 1.0) > AM_MESHDATA_WEIGHT_SUM_TOL)
            return am_fail_where(err, AM_ERR_INVALID, g, "weights sum to %.6f, not 1", total);
    }
    sum->joints = nj;
    sum->skinned = true;
    return AM_OK;
}

am_status am_meshdata_validate(const json_t *doc, const am_skeleton *skel, am_meshdata_summary *sum_out,
                               am_error *err)
{
    am_meshdata_summary sum;
    memset(&sum, 0, sizeof sum);
    if (!json_is_object(doc))
        return am_fail_where(err, AM_ERR_INVALID, "(document)", "expected a JSON object");
    const json_t *ver = json_object_get(doc, "version");
    if (!json_is_integer(ver) || json_integer_value(ver) != 1)
        return am_fail_where(err, AM_ERR_INVALID, "version", "expected 1");
    const char *name = json_string_value(json_object_get(doc, "name"));
    if (!name || !name[0])
        return am_fail_where(err, AM_ERR_INVALID, "name", "expected a non-empty string");
    snprintf(sum.name, sizeof sum.name, "%s", name);
    const json_t *subs = json_object_get(doc, "submeshes");
    if (!json_is_array(subs) || json_array_size(subs) == 0)
        return am_fail_where(err, AM_ERR_INVALID, "submeshes", "expected a non-empty array");
    sum.submeshes = json_array_size(subs);
    size_t nv0 = 0;
    for (size_t k = 0; k < sum.submeshes; k++) {
        size_t nv = 0;
        if (check_submesh(json_array_get(subs, k), k, &sum, &nv, err))
            return AM_ERR_INVALID;
        if (k == 0)
            nv0 = nv;
    }
    const json_t *skin = json_object_get(doc, "skin");
    if (skin && !json_is_null(skin)) {
        if (sum.submeshes != 1)
            return am_fail_where(err, AM_ERR_INVALID, "submeshes",
                                 "%zu submeshes with a skin: WorldBridge weights submesh 0 only, so an animesh "
                                 "must be a single submesh",
                                 sum.submeshes);
        if (check_skin(skin, nv0, skel, &sum, err))
            return AM_ERR_INVALID;
    }
    const json_t *ext = json_object_get(doc, "extent");
    if (ext) {
        double e[3];
        if (numbers(ext, 3, "extent", e, err))
            return AM_ERR_INVALID;
        for (int i = 0; i < 3; i++)
            if (!(e[i] > 0))
                return am_fail_where(err, AM_ERR_INVALID, "extent", "component %d = %g is not positive", i, e[i]);
    }
    if (sum_out)
        *sum_out = sum;
    return AM_OK;
}

static am_status sniff_meshdata(const uint8_t *h, size_t n, am_error *err)
{
    return am_sniff_text(h, n, "{", "a meshdata JSON (an object)", err);
}

const am_file_format am_meshdata_format = {"a meshdata JSON", AM_MESHDATA_MAX_FILE_BYTES, sniff_meshdata};

am_status am_meshdata_load(const char *path, const am_skeleton *skel, json_t **doc, am_meshdata_summary *sum,
                           am_error *err)
{
    *doc = NULL;
    am_error_clear(err);
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(path, &am_meshdata_format, &data, &size, err);
    if (s)
        return s;
    json_t *root = am_json_load_text((const char *)data, size, JSON_REJECT_DUPLICATES, AM_MESHDATA_TREE_BUDGET, path, err);
    free(data);
    if (!root)
        return AM_ERR_INVALID;
    s = am_meshdata_validate(root, skel, sum, err);
    if (s) {
        am_error_where(err, "%s", path);
        json_decref(root);
        return s;
    }
    *doc = root;
    return AM_OK;
}
