/* Encoding with cost figures, and the three-file export (skin_build.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/notes.h"
#include "core/outset.h"
#include "core/clock.h"
#include "core/parallel.h"

#define DECODE_BACK_BYTES ((size_t)8 << 20)

#include "skin/skin_build.h"
#include "skin/skin_cost.h"
#include "skin/skin_internal.h"

am_status am_skin_encode(am_skin_result *res, am_buf *out, am_error *err)
{
    am_status st = am_mesh_asset_encode(&res->asset, out, err);
    if (st)
        return st;
    /* The LOD sizes the viewer's cost code sees are the header's, so read them back the
     * way any reader would; up to DECODE_BACK_BYTES the whole asset is decoded again (which
     * proves the bytes decode), a bigger one only its header (a second decoded copy of a
     * 400,000-vertex asset would be the build's peak of memory). */
    am_mesh_asset back;
    memset(&back, 0, sizeof back);
    if ((st = out->size <= DECODE_BACK_BYTES ? am_mesh_asset_decode(out->data, out->size, &back, err)
                                              : am_mesh_asset_decode_header(out->data, out->size, &back, err))) {
        am_error_where(err, "re-reading the encoded asset");
        return st;
    }
    am_skin_summary *sum = &res->summary;
    static const int block_of[AM_LOD_COUNT] = {AM_BLOCK_LOWEST, AM_BLOCK_LOW, AM_BLOCK_MEDIUM, AM_BLOCK_HIGH};
    for (int lod = 0; lod < AM_LOD_COUNT; lod++) {
        const am_mesh_block_ref *b = &back.blocks[block_of[lod]];
        sum->lod_bytes[lod] = b->present && b->size > 0 ? (size_t)b->size : 0;
    }
    am_mesh_asset_free(&back);
    am_mesh_cost cost;
    am_skin_cost_from_sizes(sum->lod_bytes, &cost);
    memcpy(sum->est_tris, cost.est_tris, sizeof sum->est_tris);
    sum->est_tris_max = cost.est_tris_max;
    sum->streaming_tris = cost.streaming_tris;
    sum->streaming_cost = cost.streaming_cost;
    sum->cost_known = true;
    sum->over_region_limit = sum->region_max_tris > 0 && cost.est_tris_max > (double)sum->region_max_tris;
    return AM_OK;
}

/* Build and encode; an automatic budget that the measured size shows over the region limit
 * (the prediction missed) is rebuilt once with the budget the measured bytes allow. */
am_status am_skin_build_encoded(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                                am_skin_result *res, am_buf *mesh, am_error *err)
{
    return am_skin_build_encoded_beside(rig, skel, opts, res, mesh, NULL, NULL, err);
}

typedef struct beside_call {
    am_skin_beside_fn fn;
    void *user;
    const am_skin_result *res;
} beside_call;

static void beside_job(void *user)
{
    const beside_call *c = user;
    c->fn(c->user, c->res);
}

am_status am_skin_build_encoded_beside(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                                       am_skin_result *res, am_buf *mesh, am_skin_beside_fn beside, void *user,
                                       am_error *err)
{
    am_skin_options o;
    if (opts)
        o = *opts;
    else
        am_skin_options_init(&o);
    am_skin_options_resolve(&o);
    double first_est = 0;
    size_t first_tris = 0;
    for (int attempt = 0;; attempt++) {
        am_status st = am_skin_build(rig, skel, &o, res, err);
        if (st && attempt > 0 && st == AM_ERR_INVALID)
            return am_fail(
                err, AM_ERR_INVALID,
                "estimated animesh triangles %.0f (measured after a reduction to %zu triangles) exceed the "
                "region limit %ld, and the %ld triangles that would fit cannot be reached keeping the "
                "weights: set the region_max_tris option to %.0f or more if the region allows it, or reduce the mesh "
                "in its modeller",
                first_est, first_tris, o.region_max_tris, o.max_tris, ceil(first_est));
        if (st)
            return st;
        if (attempt > 0)
            res->summary.budget_auto = true; /* the automatic budget, corrected by the measured size */
        double t0 = am_clock_wall_s();
        beside_call call = {beside, user, res};
        am_task task = {0};
        if (beside)
            am_task_start(&task, beside_job, &call);
        st = am_skin_encode(res, mesh, err);
        if (beside)
            am_task_join(&task);
        if (st)
            return st;
        res->summary.seconds[AM_SKIN_T_ENCODE] = am_clock_wall_s() - t0;
        const am_skin_summary *sum = &res->summary;
        if (!sum->over_region_limit || !sum->budget_auto || attempt > 0 || !(sum->est_tris_max > 0))
            return AM_OK;
        first_est = sum->est_tris_max;
        first_tris = res->triangle_count;
        o.max_tris = (long)floor((double)res->triangle_count * (double)sum->region_max_tris / sum->est_tris_max * 0.98);
        if (o.max_tris < 1)
            return AM_OK;
        am_skin_result_free(res);
        am_buf_free(mesh);
    }
}

/* The LOD faces are in the encoded bytes; the writers after this need the high LOD arrays
 * and the skin block only. */
static void drop_lod_faces(am_skin_result *res)
{
    for (int l = 0; l < AM_LOD_COUNT; l++) {
        am_mesh_lod *L = &res->asset.lods[l];
        for (size_t f = 0; f < L->face_count; f++)
            am_mesh_face_free(&L->faces[f]);
        free(L->faces);
        L->faces = NULL;
        L->face_count = 0;
    }
}

/* The .dae streamed into its temp file (never held in memory: 70 MB for 425,000 vertices). */
static am_status fill_dae(FILE *f, void *user, am_error *err)
{
    const am_skin_result *res = user;
    return am_skin_write_collada_file(res, f,
                                 !am_string_empty(&res->summary.dae_path) ? am_str(&res->summary.dae_path) : "the .dae",
                                 err);
}

/* Build, encode, check the region limit, and put the outputs in `set`. A multi-face skin
 * has no meshdata (not an error: the summary's warning says why); NAME.meshdata.json is
 * then declared stale. On another meshdata refusal the other two are still added, the
 * meshdata declared stale and *md_status / md_err say why (so the set can still be
 * committed). */
static am_status export_to_set(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts, am_outset *set,
                               am_skin_summary *summary, am_status *md_status, am_error *md_err, am_error *err)
{
    am_skin_result res;
    am_buf mesh = {0}, md = {0};
    *md_status = AM_OK;
    am_status st = am_skin_build_encoded(rig, skel, opts, &res, &mesh, err);
    if (st)
        return st;
    char name[128], file[3][160];
    am_skin_xml_name(name, sizeof name, am_str(&res.summary.name));
    snprintf(file[0], sizeof file[0], "%s.llmesh", name);
    snprintf(file[1], sizeof file[1], "%s.dae", name);
    snprintf(file[2], sizeof file[2], "%s.meshdata.json", name);
    am_skin_summary *sum = &res.summary;
    drop_lod_faces(&res);
    if (sum->over_region_limit) {
        st = am_fail(
            err, AM_ERR_INVALID,
            "estimated animesh triangles %.0f exceed the region limit %ld (AnimatedObjectMaxTris; the viewer "
            "would not let the object become animesh): set the max_tris option to %.0f or less (or leave it out: "
            "animesh reduces to what fits), or the region_max_tris option to %.0f if the region allows it",
            sum->est_tris_max, sum->region_max_tris,
            floor((double)res.triangle_count * (double)sum->region_max_tris / sum->est_tris_max * 0.98),
            ceil(sum->est_tris_max));
        goto done;
    }
    double t0 = am_clock_wall_s();
    if (!am_string_set(&sum->dae_path, am_outset_path(set, file[1]))) {
        st = am_fail_nomem(err, "skin paths");
        goto done;
    }
    if ((st = am_outset_add(set, file[0], mesh.data, mesh.size, err)) ||
        (st = am_outset_add_stream(set, file[1], fill_dae, &res, err)))
        goto done;
    sum->seconds[AM_SKIN_T_DAE] = am_clock_wall_s() - t0;
    t0 = am_clock_wall_s();
    if (res.face_count > 1) {
        /* a success without meshdata; an old one would be pushed as if it belonged to it */
        if ((st = am_outset_remove_stale(set, file[2], err)))
            goto done;
    } else if ((*md_status = am_skin_write_meshdata_json(&res, &md, md_err)) == AM_OK) {
        if ((st = am_outset_add(set, file[2], md.data, md.size, err)))
            goto done;
        sum->meshdata_written = true;
    } else if ((st = am_outset_remove_stale(set, file[2], err)))
        goto done;
    sum->seconds[AM_SKIN_T_MESHDATA] = am_clock_wall_s() - t0;
    if (opts->page && (st = opts->page(opts->page_ctx, set, name, mesh.data, mesh.size, skel, sum, err)))
        goto done;
    if (!am_string_set(&sum->llmesh_path, am_outset_path(set, file[0])) ||
        !am_string_set(&sum->dae_path, am_outset_path(set, file[1])) ||
        !am_string_set(&sum->meshdata_path, am_outset_path(set, file[2])))
        st = am_fail_nomem(err, "skin paths");
done:
    if (summary) { /* the summary moves to the caller, its strings with it */
        am_skin_summary_free(summary);
        *summary = res.summary;
        memset(&res.summary, 0, sizeof res.summary);
    }
    am_buf_free(&mesh);
    am_buf_free(&md);
    am_skin_result_free(&res);
    return st;
}

am_status am_skin_export_to_set(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts, am_outset *set,
                                am_skin_summary *summary, am_error *err)
{
    am_error md_err;
    am_error_clear(&md_err);
    am_status md = AM_OK;
    am_status st = export_to_set(rig, skel, opts, set, summary, &md, &md_err, err);
    if (!st && md) {
        if (err)
            *err = md_err;
        st = md;
    }
    return st;
}

am_status am_skin_export(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts, const char *out_dir,
                         am_skin_summary *summary, am_error *err)
{
    am_outset *set = NULL;
    am_error md_err;
    am_error_clear(&md_err);
    am_status md = AM_OK;
    char *created = NULL; /* the folder this run made: removed again if the run fails */
    am_status st = am_mkdir_p_new(out_dir, &created, err);
    if (!st)
        st = am_outset_begin(&set, out_dir, NULL, 0, err);
    if (!st)
        st = export_to_set(rig, skel, opts, set, summary, &md, &md_err, err);
    if (!st)
        st = am_outset_commit(set, err);
    if (!st && summary) {
        const char *base = strrchr(am_str(&summary->meshdata_path), '/');
        summary->meshdata_removed = am_outset_was_removed(set, base ? base + 1 : am_str(&summary->meshdata_path));
        summary->temps_swept = am_outset_swept(set);
        for (size_t i = 0; am_outset_warning(set, i); i++) /* a planted journal's files, left */
            am_skin_warn(summary, "%s", am_outset_warning(set, i));
    }
    if (st && summary) { /* nothing was put in place */
        am_string_free(&summary->llmesh_path);
        am_string_free(&summary->dae_path);
        am_string_free(&summary->meshdata_path);
        am_string_free(&summary->preview_path);
        summary->meshdata_written = false;
    }
    am_outset_free(set);
    if (st)
        am_rmdir_new(out_dir, created);
    free(created);
    if (!st && md) {
        if (err)
            *err = md_err;
        st = md;
    }
    return st;
}
