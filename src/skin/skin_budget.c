/* The triangle budget (skin_build.h step 4): fit the high LOD to the region's animesh limit
 * and to 8 faces before anything expensive is built.
 *
 * The region compares the viewer's estimate, (compressed high LOD bytes - 384) / 16
 * (docs/reference/mesh-asset.md#triangle-limit), not a real count. So, with a region limit, the compressed bytes per
 * triangle are measured on this mesh: the high LOD's arrays (positions, normals, UVs,
 * indices, weights, quantised and laid out as the encoder lays them) compressed with zlib
 * level 9, for the whole mesh when it is one face, for one face's worth of a spatially
 * coherent run of it otherwise.
 * am_skin_export measures the real size after encoding and, when an automatic budget
 * missed, rebuilds once with the budget corrected by what it measured. Structure: at most 8
 * faces of face_vertex_limit vertices, less a margin for the vertices written on two faces.
 *
 * Reduction is the LODs' weight-aware simplification (skin_lod.c) on the whole mesh:
 * weight classes with quarter bands and locked borders, borders thinned only where no
 * weight moves by more than a tolerance, repeated (tolerances widening a little) until the
 * budget is met; a budget it cannot meet is refused with the count it reached. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/zblock.h"
#include "skin/skin_cost.h"
#include "skin/skin_internal.h"

#define FACE_OVERHEAD_BYTES 200.0 /* LLSD keys, domains, NormalizedScale per face, compressed */
#define DUPLICATE_MARGIN 0.04     /* share of vertices kept free for face borders */
#define ONE_FACE_MARGIN 0.02      /* and for the vertex count's drift in a reduction */
#define REGION_AIM 0.96           /* of the region's triangles, when reducing to them */
#define SAMPLE_TRIS 32768         /* triangles compressed to measure the bytes per triangle */

am_status am_skin_lod_mesh(const am_skin_result *res, am_lod_mesh *m, float **weights, am_error *err)
{
    size_t n = res->vertex_count;
    *weights = malloc(4 * (n ? n : 1) * sizeof **weights);
    if (!*weights)
        return am_fail_nomem(err, "LOD weights");
    for (size_t i = 0; i < 4 * n; i++)
        (*weights)[i] = (float)(res->weight_code[i] / 65535.0);
    m->pos = res->positions;
    m->vertex_count = n;
    m->count = res->weight_count;
    m->joint = res->weight_joint;
    m->weight = *weights;
    m->nrm = res->normals;
    return AM_OK;
}

/* Most vertices the faces allowed hold (a meshdata must be one face: WorldBridge writes
 * weights into submesh 0 only). */
static double vertex_cap(const am_skin_options *opts)
{
    return opts->require_meshdata ? (double)opts->face_vertex_limit * (1.0 - ONE_FACE_MARGIN)
                                  : (double)AM_MESH_MAX_FACES * (double)opts->face_vertex_limit * (1.0 - DUPLICATE_MARGIN);
}

static size_t used_vertices(const am_skin_result *res)
{
    uint8_t *seen = calloc(res->vertex_count ? res->vertex_count : 1, 1);
    size_t n = 0;
    if (!seen)
        return res->vertex_count;
    for (size_t i = 0; i < 3 * res->triangle_count; i++)
        if (!seen[res->triangles[i]]) {
            seen[res->triangles[i]] = 1;
            n++;
        }
    free(seen);
    return n;
}

typedef struct budget_model {
    size_t tris, used;         /* now */
    double bytes_per_tri;      /* compressed high LOD bytes per triangle, measured (0: no region limit) */
    double tris_structure;     /* most triangles that fit the faces allowed (at this ratio) */
    double tris_region;        /* most triangles whose estimate fits the region limit */
    size_t faces;              /* faces the mesh needs now */
} budget_model;

/* The budget model predicts the measured estimate of an encoded asset to within about 1%
 * (Little Bear reduced to 1252 triangles: 1241 predicted, 1243 measured); a limit this
 * code names for the user to pass leaves room for that. */
#define AM_BUDGET_MODEL_SLACK 1.02

static double predicted_est(const budget_model *b, double tris)
{
    double bytes = b->bytes_per_tri * tris + FACE_OVERHEAD_BYTES * (double)(b->faces ? b->faces : 1);
    double e = (bytes - AM_MESH_METADATA_DISCOUNT) / AM_MESH_BYTES_PER_TRIANGLE;
    return e > AM_MESH_MINIMUM_BYTE_SIZE / AM_MESH_BYTES_PER_TRIANGLE ? e : 1;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Compressed bytes of the high LOD arrays of triangles `tris` (a face: at most 65536
 * vertices), laid out as the encoder writes them (mesh_encode.c), in its key order. */
static am_status sample_bytes(const am_skin_result *res, const uint32_t *tris, size_t nt, size_t *bytes,
                              am_error *err)
{
    size_t nv = res->vertex_count;
    uint32_t *local = malloc((nv ? nv : 1) * sizeof *local), *verts = malloc(3 * (nt ? nt : 1) * sizeof *verts);
    size_t nl = 0;
    am_buf raw = {0}, z = {0};
    am_status st = AM_OK;
    if (!local || !verts) {
        st = am_fail_nomem(err, "budget");
        goto done;
    }
    for (size_t v = 0; v < nv; v++)
        local[v] = UINT32_MAX;
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = res->triangles[3 * (size_t)tris[t] + k];
            if (local[v] == UINT32_MAX) {
                local[v] = (uint32_t)nl;
                verts[nl++] = v;
            }
        }
    float lo[5] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}, hi[5] = {-INFINITY, -INFINITY, -INFINITY,
                                                                              -INFINITY, -INFINITY};
    for (size_t i = 0; i < nl; i++)
        for (int k = 0; k < 5; k++) {
            float x = k < 3 ? res->positions[3 * (size_t)verts[i] + k] : res->uvs[2 * (size_t)verts[i] + k - 3];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    if ((st = am_buf_reserve(&raw, nl * (6 + 6 + 4 + 13) + 6 * nt, err)))
        goto done;
    uint8_t *p = raw.data;
    for (size_t i = 0; i < nl; i++) /* Normal */
        for (int k = 0; k < 3; k++, p += 2)
            put16(p, am_mesh_quantize_normal(res->normals[3 * (size_t)verts[i] + k]));
    for (size_t i = 0; i < nl; i++) /* Position */
        for (int k = 0; k < 3; k++, p += 2)
            put16(p, am_mesh_quantize(res->positions[3 * (size_t)verts[i] + k], lo[k], hi[k] - lo[k]));
    for (size_t i = 0; i < nl; i++) /* TexCoord0 */
        for (int k = 3; k < 5; k++, p += 2)
            put16(p, am_mesh_quantize(res->uvs[2 * (size_t)verts[i] + k - 3], lo[k], hi[k] - lo[k]));
    for (size_t t = 0; t < nt; t++) /* TriangleList */
        for (int k = 0; k < 3; k++, p += 2)
            put16(p, (uint16_t)local[res->triangles[3 * (size_t)tris[t] + k]]);
    for (size_t i = 0; i < nl; i++) { /* Weights */
        uint32_t v = verts[i];
        for (int k = 0; k < res->weight_count[v]; k++) {
            *p++ = res->weight_joint[4 * (size_t)v + k];
            put16(p, res->weight_code[4 * (size_t)v + k]);
            p += 2;
        }
        if (res->weight_count[v] < AM_MAX_INFLUENCES)
            *p++ = AM_WEIGHT_END;
    }
    raw.size = (size_t)(p - raw.data);
    if ((st = am_zblock_deflate(raw.data, raw.size, &z, err)))
        goto done;
    *bytes = z.size;
done:
    free(local);
    free(verts);
    am_buf_free(&raw);
    am_buf_free(&z);
    return st;
}

static am_status model_of(const am_skin_result *res, const am_skin_options *opts, budget_model *b, am_error *err)
{
    memset(b, 0, sizeof *b);
    b->tris = res->triangle_count;
    uint8_t *seen = calloc(res->vertex_count ? res->vertex_count : 1, 1);
    if (!seen)
        return am_fail_nomem(err, "budget");
    for (size_t i = 0; i < 3 * res->triangle_count; i++)
        if (!seen[res->triangles[i]]) {
            seen[res->triangles[i]] = 1;
            b->used++;
        }
    free(seen);
    if (b->used == 0 || b->tris == 0)
        return AM_OK;
    size_t limit = opts->face_vertex_limit;
    b->faces = (b->used + limit - 1) / limit;
    b->tris_structure = vertex_cap(opts) / ((double)b->used / (double)b->tris);
    b->tris_region = INFINITY;
    if (opts->region_max_tris <= 0)
        return AM_OK; /* no region limit: the bytes per triangle are not needed (nor measured) */
    /* the triangles as the faces will hold them: all in their order, or a run of the
     * spatial order holding one face's worth of vertices from the middle of the mesh */
    uint32_t *order = malloc(b->tris * sizeof *order), *region = NULL;
    if (!order)
        return am_fail_nomem(err, "budget");
    am_status st = AM_OK;
    size_t first = 0, count = b->tris;
    if (b->used > limit) {
        if (!(region = malloc(b->tris * sizeof *region)) || (st = am_skin_spatial_order(res, order, region, err))) {
            free(order);
            free(region);
            return st ? st : am_fail_nomem(err, "budget");
        }
        count = (size_t)((double)b->tris * (double)limit / (double)b->used * 0.95);
        first = (b->tris - count) / 2;
    } else
        for (size_t t = 0; t < b->tris; t++)
            order[t] = (uint32_t)t;
    if (count > SAMPLE_TRIS) { /* a quarter face's worth measures the ratio well enough */
        first += (count - SAMPLE_TRIS) / 2;
        count = SAMPLE_TRIS;
    }
    size_t bytes = 0;
    st = sample_bytes(res, order + first, count, &bytes, err);
    free(order);
    free(region);
    if (st)
        return st;
    b->bytes_per_tri = (double)bytes / (double)count;
    double allowed = (double)opts->region_max_tris * AM_MESH_BYTES_PER_TRIANGLE + AM_MESH_METADATA_DISCOUNT -
                     FACE_OVERHEAD_BYTES * (double)b->faces;
    /* a reduced mesh compresses a little worse than the original (measured: 2-4% at a
     * quarter of the triangles): aim below, so the check after reducing rarely has to
     * reduce again */
    double fit = allowed / b->bytes_per_tri;
    b->tris_region = (double)b->tris > fit ? fit * REGION_AIM : fit;
    return AM_OK;
}

/* Drop the vertices no triangle uses (the .dae and meshdata list every result vertex). */
static am_status compact_vertices(am_skin_result *res, am_error *err)
{
    size_t n = res->vertex_count;
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    if (!map)
        return am_fail_nomem(err, "budget");
    for (size_t v = 0; v < n; v++)
        map[v] = UINT32_MAX;
    for (size_t i = 0; i < 3 * res->triangle_count; i++)
        map[res->triangles[i]] = 0;
    size_t m = 0;
    for (size_t v = 0; v < n; v++)
        if (map[v] == 0)
            map[v] = (uint32_t)m++;
    uint32_t *rig = malloc((m ? m : 1) * sizeof *rig);
    if (!rig) {
        free(map);
        return am_fail_nomem(err, "budget");
    }
    for (size_t v = 0; v < n; v++) {
        uint32_t o = map[v];
        if (o == UINT32_MAX)
            continue;
        rig[o] = res->rig_vertex ? res->rig_vertex[v] : (uint32_t)v;
        memmove(&res->positions[3 * (size_t)o], &res->positions[3 * v], 3 * sizeof(float));
        memmove(&res->normals[3 * (size_t)o], &res->normals[3 * v], 3 * sizeof(float));
        memmove(&res->uvs[2 * (size_t)o], &res->uvs[2 * v], 2 * sizeof(float));
        res->weight_count[o] = res->weight_count[v];
        memmove(&res->weight_joint[4 * (size_t)o], &res->weight_joint[4 * v], 4);
        memmove(&res->weight_value[4 * (size_t)o], &res->weight_value[4 * v], 4 * sizeof(double));
        memmove(&res->weight_code[4 * (size_t)o], &res->weight_code[4 * v], 4 * sizeof(uint16_t));
    }
    for (size_t i = 0; i < 3 * res->triangle_count; i++)
        res->triangles[i] = map[res->triangles[i]];
    free(map);
    free(res->rig_vertex);
    res->rig_vertex = rig;
    res->summary.vertices_removed += n - m;
    res->vertex_count = m;
    return AM_OK;
}

/* Weight-aware reduction of the whole mesh to about `target` triangles: rounds of the LOD
 * simplification; a round that gains little asks for more next time (small classes round
 * to their whole size), and the later rounds widen the weight tolerance and drop the bands. */
static am_status reduce(am_skin_result *res, size_t target, bool parallel, am_error *err)
{
    static const struct {
        bool bands;
        double weight_tol;
    } rounds[] = {{true, 0.05}, {true, 0.05}, {true, 0.05}, {true, 0.1}, {true, 0.1},
                  {false, 0.1}, {false, 0.1}, {false, 0.15}, {false, 0.15}, {false, 0.15}};
    am_lod_mesh m;
    float *wts = NULL;
    uint32_t *cls = malloc((res->vertex_count ? res->vertex_count : 1) * sizeof *cls);
    am_status st = cls ? am_skin_lod_mesh(res, &m, &wts, err) : am_fail_nomem(err, "budget");
    bool bands = false;
    double ask = 1.0; /* shrinks when a round stalls */
    for (size_t r = 0; !st && r < sizeof rounds / sizeof rounds[0]; r++) {
        size_t tris = res->triangle_count;
        if ((double)tris <= 1.005 * (double)target)
            break;
        if (r == 0 || rounds[r].bands != bands) {
            bands = rounds[r].bands;
            if ((st = am_skin_weight_classes(&m, bands, cls, err)))
                break;
        }
        am_lod_step step = {cls, ask * (double)target / (double)tris, 1.0, rounds[r].weight_tol, 0.005, parallel};
        uint32_t *out;
        size_t n;
        if ((st = am_skin_simplify(&m, res->triangles, 3 * tris, &step, &out, &n, err)))
            break;
        free(res->triangles);
        res->triangles = out;
        res->triangle_count = n / 3;
        if ((double)res->triangle_count > 0.98 * (double)tris)
            ask *= 0.8;
    }
    free(cls);
    free(wts);
    return st;
}

am_status am_skin_apply_budget(am_skin_result *res, const am_skin_options *opts, am_error *err)
{
    am_skin_summary *sum = &res->summary;
    sum->tris_in = res->triangle_count;
    budget_model b;
    am_status st = model_of(res, opts, &b, err);
    if (st)
        return st;
    double fit = b.tris_structure < b.tris_region ? b.tris_structure : b.tris_region;
    long R = opts->region_max_tris;
    sum->tris_fit_one_face =
        (size_t)floor((double)opts->face_vertex_limit * (1.0 - ONE_FACE_MARGIN) / ((double)b.used / (double)b.tris));
    if (sum->tris_fit_one_face > b.tris)
        sum->tris_fit_one_face = b.tris;
    size_t target;
    if (opts->max_tris > 0 || opts->max_tris == AM_SKIN_MAX_TRIS_NONE) {
        /* a budget given (or none): refuse now what cannot fit, naming the number that does */
        size_t want = opts->max_tris > 0 && (size_t)opts->max_tris < b.tris ? (size_t)opts->max_tris : b.tris;
        const char *what =
            opts->max_tris > 0 ? "the triangle budget (the max_tris option)" : "the mesh (the max_tris option none)";
        if ((double)want > b.tris_structure)
            return am_fail(err, AM_ERR_INVALID,
                           "%s of %zu triangles needs about %.0f vertices: more than %s of %zu hold; set the "
                           "max_tris option to %.0f or less (or leave it out: animesh reduces to what fits)",
                           what, want, (double)want * (double)b.used / (double)b.tris,
                           opts->require_meshdata ? "one face (the meshdata's)" : "8 faces", opts->face_vertex_limit,
                           floor(b.tris_structure));
        double est = predicted_est(&b, (double)want);
        if (R > 0 && est > (double)R)
            return am_fail(err, AM_ERR_INVALID,
                           "%s of %zu triangles is estimated at %.0f animesh triangles (the viewer's estimate from the "
                           "compressed size), over the region limit %ld: set the max_tris option to %.0f "
                           "or less, or the region_max_tris option to %.0f if the region allows it",
                           what, want, est, R, floor(b.tris_region), ceil(est));
        target = want;
        sum->budget_tris = opts->max_tris > 0 ? opts->max_tris : 0;
    } else {
        target = fit < (double)b.tris ? (size_t)floor(fit) : b.tris;
        sum->budget_auto = true;
        sum->budget_tris = target < b.tris ? (long)target : 0;
    }
    if (target >= b.tris)
        return AM_OK;
    sum->budget_tris = (long)target;
    if ((st = reduce(res, target, opts->threads != 1, err)))
        return st;
    if (R > 0 && (double)res->triangle_count <= 1.02 * (double)target) {
        /* a reduced mesh compresses a little worse than the original: measure it again and,
         * when the region limit is now missed, reduce a little more (still before the LODs) */
        budget_model after;
        if ((st = model_of(res, opts, &after, err)))
            return st;
        double est = predicted_est(&after, (double)res->triangle_count);
        if (est > (double)R) {
            size_t again = (size_t)floor((double)res->triangle_count * (double)R / est * 0.99);
            if ((st = reduce(res, again, opts->threads != 1, err)))
                return st;
            target = again;
            sum->budget_tris = (long)target;
        }
    }
    /* the vertices follow the triangles only roughly (a collapsed part keeps more vertices
     * per triangle): when the faces would still not hold them, reduce a little more */
    for (int again = 0; again < 4 && (double)res->triangle_count <= 1.02 * (double)target; again++) {
        double used = (double)used_vertices(res), cap = vertex_cap(opts);
        if (used <= cap)
            break;
        target = (size_t)floor((double)res->triangle_count * cap / used * 0.98);
        sum->budget_tris = (long)target;
        if ((st = reduce(res, target, opts->threads != 1, err)))
            return st;
    }
    sum->tris_removed = sum->tris_in - res->triangle_count;
    bool short_of_target = (double)res->triangle_count > 1.02 * (double)target;
    double est_reached = predicted_est(&b, (double)res->triangle_count);
    if (short_of_target && R > 0) {
        /* what was reached, measured as the mesh it now is (a reduced mesh compresses worse
         * than the original predicts): the limit the refusal names must be one that works */
        budget_model reached;
        if ((st = model_of(res, opts, &reached, err)))
            return st;
        est_reached = predicted_est(&reached, (double)res->triangle_count);
    }
    /* short of the triangle target, but the region limit (what the target was for) is met */
    bool region_met = opts->max_tris <= 0 && R > 0 && b.tris_region <= b.tris_structure && est_reached <= (double)R;
    if (short_of_target && !region_met) {
        /* the weights' borders would not give way: say what was reached and what it needs */
        double est = est_reached;
        if (opts->max_tris > 0)
            return am_fail(
                err, AM_ERR_INVALID,
                "the triangle budget %zu could not be met keeping the weights: %zu of %zu "
                "triangles remain with every weight border kept; set the max_tris option to %zu or more, or reduce "
                "the mesh in its modeller",
                target, res->triangle_count, sum->tris_in, res->triangle_count);
        if (b.tris_region <= b.tris_structure)
            return am_fail(
                err, AM_ERR_INVALID,
                "the region limit %ld allows about %zu triangles, but keeping the "
                "weights leaves %zu of %zu (every weight border kept), estimated at %.0f animesh "
                "triangles: set the region_max_tris option to %.0f or more if the region allows it, or reduce the "
                "mesh in its modeller",
                R, target, res->triangle_count, sum->tris_in, est, ceil(est * AM_BUDGET_MODEL_SLACK));
        return am_fail(err, AM_ERR_INVALID,
                       "%s of %zu vertices allow about %zu triangles, but keeping the weights leaves %zu of %zu: "
                       "raise the face_vertex_limit option%s or reduce the mesh in its modeller",
                       opts->require_meshdata ? "one face" : "8 faces", opts->face_vertex_limit, target,
                       res->triangle_count, sum->tris_in,
                       opts->require_meshdata ? ", leave the require_meshdata option off" : "");
    }
    if ((st = compact_vertices(res, err)))
        return st;
    am_skin_warn(
        sum,
        "the high LOD was reduced from %zu to %zu triangles (%zu vertices dropped) to fit %s; every vertex "
        "kept has its own weights, weight borders thinned only within 0.15; the max_tris option sets the budget",
        sum->tris_in, res->triangle_count, sum->vertices_removed,
        opts->max_tris > 0                  ? "the max_tris option"
        : b.tris_region <= b.tris_structure ? "the region's animesh limit"
        : opts->require_meshdata            ? "one face (the require_meshdata option)"
                                            : "8 faces");
    return AM_OK;
}
