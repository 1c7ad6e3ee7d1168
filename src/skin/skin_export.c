/* Encoding with cost figures, and the three-file export (skin_build.h). */
#include <stdio.h>
#include <string.h>

#include "core/outset.h"

#include "skin/skin_build.h"
#include "skin/skin_cost.h"
#include "skin/skin_internal.h"

am_status am_skin_encode(am_skin_result *res, am_buf *out, am_error *err)
{
    am_status st = am_mesh_asset_encode(&res->asset, out, err);
    if (st)
        return st;
    /* The LOD sizes the viewer's cost code sees are the header's, so read them back the
     * way any reader would (this also proves the bytes decode). */
    am_mesh_asset back;
    memset(&back, 0, sizeof back);
    if ((st = am_mesh_asset_decode(out->data, out->size, &back, err))) {
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
    am_mesh_cost_from_sizes(sum->lod_bytes, &cost);
    memcpy(sum->est_tris, cost.est_tris, sizeof sum->est_tris);
    sum->est_tris_max = cost.est_tris_max;
    sum->streaming_tris = cost.streaming_tris;
    sum->streaming_cost = cost.streaming_cost;
    sum->cost_known = true;
    sum->over_region_limit = sum->region_max_tris > 0 && cost.est_tris_max > (double)sum->region_max_tris;
    return AM_OK;
}

/* Build, encode, check the region limit, and put the three outputs in `set`. On a
 * meshdata refusal the other two are still added, NAME.meshdata.json is declared stale
 * and *md_status / md_err say why (so the set can still be committed). */
static am_status export_to_set(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts, am_outset *set,
                               am_skin_summary *summary, am_status *md_status, am_error *md_err, am_error *err)
{
    am_skin_result res;
    am_buf mesh = {0}, dae = {0}, md = {0};
    *md_status = AM_OK;
    am_status st = am_skin_build(rig, skel, opts, &res, err);
    if (st)
        return st;
    char name[128], file[3][160];
    am_skin_xml_name(name, sizeof name, res.summary.name);
    snprintf(file[0], sizeof file[0], "%s.llmesh", name);
    snprintf(file[1], sizeof file[1], "%s.dae", name);
    snprintf(file[2], sizeof file[2], "%s.meshdata.json", name);
    am_skin_summary *sum = &res.summary;
    if ((st = am_skin_encode(&res, &mesh, err)))
        goto done;
    if (sum->over_region_limit) {
        st = am_fail(err, AM_ERR_INVALID,
                     "estimated animesh triangles %.0f exceed the region limit %ld (AnimatedObjectMaxTris; the viewer "
                     "would not let the object become animesh): simplify the mesh or pass --region-max-tris",
                     sum->est_tris_max, sum->region_max_tris);
        goto done;
    }
    if ((st = am_write_collada(&res, &dae, err)) || (st = am_outset_add(set, file[0], mesh.data, mesh.size, err)) ||
        (st = am_outset_add(set, file[1], dae.data, dae.size, err)))
        goto done;
    if ((*md_status = am_write_meshdata_json(&res, &md, md_err)) == AM_OK) {
        if ((st = am_outset_add(set, file[2], md.data, md.size, err)))
            goto done;
        sum->meshdata_written = true;
    } else if ((st = am_outset_remove_stale(set, file[2], err))) {
        /* an old meshdata beside the new mesh would be pushed as if it belonged to it */
        goto done;
    }
    snprintf(sum->llmesh_path, sizeof sum->llmesh_path, "%s", am_outset_path(set, file[0]));
    snprintf(sum->dae_path, sizeof sum->dae_path, "%s", am_outset_path(set, file[1]));
    snprintf(sum->meshdata_path, sizeof sum->meshdata_path, "%s", am_outset_path(set, file[2]));
done:
    if (summary)
        *summary = res.summary;
    am_buf_free(&mesh);
    am_buf_free(&dae);
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
    am_status st = am_mkdir_p(out_dir, err);
    if (!st)
        st = am_outset_begin(&set, out_dir, NULL, 0, err);
    if (!st)
        st = export_to_set(rig, skel, opts, set, summary, &md, &md_err, err);
    if (!st)
        st = am_outset_commit(set, err);
    if (!st && summary) {
        const char *base = strrchr(summary->meshdata_path, '/');
        summary->meshdata_removed = am_outset_was_removed(set, base ? base + 1 : summary->meshdata_path);
        summary->temps_swept = am_outset_swept(set);
    }
    if (st && summary) { /* nothing was put in place */
        summary->llmesh_path[0] = summary->dae_path[0] = summary->meshdata_path[0] = '\0';
        summary->meshdata_written = false;
    }
    am_outset_free(set);
    if (!st && md) {
        if (err)
            *err = md_err;
        st = md;
    }
    return st;
}
