/* An OpenSim archive from files (oar_files.h): the steps `animesh oar` runs, as one call. */
#include "world/oar_files.h"

#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "core/io.h"
#include "mesh/mesh_asset.h"
#include "texture/texture.h"
#include "world/checks.h"

typedef struct oar_inputs {
    uint8_t *mesh, *texture;
    size_t mesh_size, texture_size;
    am_oar_anim *anims; /* files->anim_count of them */
    size_t anim_count;  /* read so far */
} oar_inputs;

static void inputs_free(oar_inputs *f)
{
    free(f->mesh);
    free(f->texture);
    for (size_t i = 0; i < f->anim_count; i++)
        free((void *)f->anims[i].data);
    free(f->anims);
}

static am_status read_inputs(const am_oar_files *files, oar_inputs *f, am_error *err)
{
    am_status s;
    if ((s = am_read_file_as(files->mesh_path, &am_mesh_asset_format, &f->mesh, &f->mesh_size, err)))
        return s;
    if (files->texture_path &&
        (s = am_read_file_as(files->texture_path, &am_j2c_file_format, &f->texture, &f->texture_size, err)))
        return s;
    for (; f->anim_count < files->anim_count; f->anim_count++) {
        uint8_t *data = NULL;
        am_oar_anim *a = &f->anims[f->anim_count];
        if ((s = am_read_file_as(files->anim_paths[f->anim_count], &am_anim_file_format, &data, &a->size, err)))
            return s;
        a->data = data;
        a->name = files->anim_names[f->anim_count];
    }
    return AM_OK;
}

static am_status check_inputs(const am_oar_files *files, const oar_inputs *f, am_oar_files_report *rep,
                              am_error *err)
{
    am_mesh_asset asset;
    am_status s = am_mesh_asset_decode(f->mesh, f->mesh_size, &asset, err);
    if (!s) {
        bool skinned = asset.has_skin;
        am_mesh_asset_free(&asset);
        if (!skinned)
            s = am_fail(err, AM_ERR_INVALID, "the mesh has no skin block: an animesh needs a rigged mesh");
    }
    if (s) {
        am_error_where(err, "%s", files->mesh_path);
        return s;
    }
    if (f->texture && (s = am_world_check_texture(f->texture, f->texture_size, NULL, NULL, err))) {
        am_error_where(err, "%s", files->texture_path);
        return s;
    }
    for (size_t i = 0; i < f->anim_count; i++) {
        s = am_world_check_anim(f->anims[i].data, f->anims[i].size, files->skel, files->allow_unknown_joints,
                                &rep->unknown_joints[i], err);
        if (s) {
            am_error_where(err, "%s", files->anim_paths[i]);
            return s;
        }
    }
    return AM_OK;
}

am_status am_oar_write_files(const am_oar_files *files, const am_oar_input *in, const char *out_path,
                             am_oar_files_report *rep, am_error *err)
{
    memset(rep, 0, sizeof *rep);
    if (files->anim_count && (!files->anim_names || !files->anim_paths))
        return am_fail(err, AM_ERR_USAGE, "%zu animations but no names or paths for them", files->anim_count);
    oar_inputs f;
    memset(&f, 0, sizeof f);
    am_buf archive = {0};
    if (files->anim_count && (!(f.anims = calloc(files->anim_count, sizeof *f.anims)) ||
                              !(rep->unknown_joints = calloc(files->anim_count, sizeof *rep->unknown_joints)))) {
        free(f.anims);
        return am_fail_nomem(err, "the archive's animations");
    }
    am_status s = read_inputs(files, &f, err);
    if (!s)
        s = check_inputs(files, &f, rep, err);
    am_oar_input full = *in;
    full.mesh = f.mesh;
    full.mesh_size = f.mesh_size;
    full.texture = f.texture;
    full.texture_size = f.texture_size;
    full.anims = f.anims;
    full.anim_count = f.anim_count;
    if (!s)
        s = am_oar_plan_make(&full, &rep->plan, err);
    if (!s) { /* before the write: a run that fails writes nothing */
        char object_path[AM_OAR_MAX_PATH + 1]; /* a tar entry name: never longer */
        am_oar_object_path(&full, &rep->plan, object_path, sizeof object_path);
        if (!am_string_set(&rep->object_path, object_path))
            s = am_fail_nomem(err, "the object's path");
    }
    if (!s && !(s = am_oar_write(&full, &archive, err)) &&
        !(s = am_oar_check_bytes(archive.data, archive.size, &rep->check, err)))
        s = am_write_file_atomic(out_path, archive.data, archive.size, err);
    am_buf_free(&archive);
    inputs_free(&f);
    return s;
}

void am_oar_files_report_free(am_oar_files_report *rep)
{
    am_oar_plan_free(&rep->plan);
    am_string_free(&rep->object_path);
    free(rep->unknown_joints);
    memset(rep, 0, sizeof *rep);
}
