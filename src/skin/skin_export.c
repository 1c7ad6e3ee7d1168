/* Encoding with cost figures, and the three-file export (skin_build.h). */
#include <stdio.h>
#include <string.h>

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

static am_status write_buf(const char *dir, const char *name, const char *ext, const am_buf *b, char *path,
                           size_t path_size, am_error *err)
{
    char file[256];
    snprintf(file, sizeof file, "%s%s", name, ext);
    if (!am_path_join(path, path_size, dir, file))
        return am_fail(err, AM_ERR_IO, "output path too long: %s/%s", dir, file);
    return am_write_file_atomic(path, b->data, b->size, err);
}

am_status am_skin_export(const am_rig *rig, const am_skeleton *skel, const am_skin_options *opts,
                         const char *out_dir, am_skin_summary *summary, am_error *err)
{
    am_skin_result res;
    am_buf mesh = {0}, dae = {0}, md = {0};
    am_status st = am_skin_build(rig, skel, opts, &res, err);
    if (st)
        return st;
    char name[128];
    am_skin_xml_name(name, sizeof name, res.summary.name);
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
    if ((st = am_write_collada(&res, &dae, err)))
        goto done;
    if ((st = am_mkdir_p(out_dir, err)) ||
        (st = write_buf(out_dir, name, ".llmesh", &mesh, sum->llmesh_path, sizeof sum->llmesh_path, err)) ||
        (st = write_buf(out_dir, name, ".dae", &dae, sum->dae_path, sizeof sum->dae_path, err)))
        goto done;
    if ((st = am_write_meshdata_json(&res, &md, err)))
        goto done; /* multi-face: .llmesh and .dae written, meshdata refused with the reason */
    if ((st = write_buf(out_dir, name, ".meshdata.json", &md, sum->meshdata_path, sizeof sum->meshdata_path, err)))
        goto done;
    sum->meshdata_written = true;
done:
    if (summary)
        *summary = res.summary;
    am_buf_free(&mesh);
    am_buf_free(&dae);
    am_buf_free(&md);
    am_skin_result_free(&res);
    return st;
}
