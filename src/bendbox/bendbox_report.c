/* The bend box report as JSON (`animesh bendbox --json`); schema in bendbox.h. */
#include <jansson.h>
#include <stdlib.h>

#include "bendbox/bendbox.h"

static json_t *vec(am_vec3 v)
{
    return json_pack("[fff]", v.x, v.y, v.z);
}

static int put(json_t *obj, const char *key, json_t *val)
{
    return val ? json_object_set_new(obj, key, val) : -1;
}

am_status am_bendbox_report_json(const am_bendbox_report *rep, const char *out_dir, am_buf *out, am_error *err)
{
    json_t *root = json_object(), *files = json_array(), *checks = json_array(), *fold = json_array();
    int bad = !root || !files || !checks || !fold;
    for (size_t i = 0; !bad && i < rep->file_count; i++)
        bad |= json_array_append_new(files, json_pack("{s:s,s:s,s:I}", "path", rep->files[i].path, "what",
                                                      rep->files[i].what, "bytes", (json_int_t)rep->files[i].bytes));
    bad |= put(root, "out_dir", json_string(out_dir ? out_dir : ""));
    bad |= put(root, "hinge_bind", vec(am_bendbox_hinge()));
    bad |= put(root, "files", files);
    files = NULL;
    bad |= put(root, "skin", json_pack("{s:I,s:I,s:I,s:I,s:{s:o,s:o}}", "vertices", (json_int_t)rep->vertices,
                                       "triangles", (json_int_t)rep->triangles, "joints", (json_int_t)rep->skin_joints,
                                       "overrides", (json_int_t)rep->overrides, "hip_offsets_from_pelvis",
                                       "mHipRight", vec(rep->hip_override[0]), "mHipLeft", vec(rep->hip_override[1])));
    bad |= put(root, "anim", json_pack("{s:f,s:i,s:b,s:I,s:f}", "duration_s", AM_BENDBOX_DURATION_S, "priority", 4,
                                       "loop", 1, "keys", (json_int_t)rep->anim_keys, "max_rot_err_deg",
                                       rep->anim_max_rot_err_deg));
    bad |= put(root, "atlas_j2c_max_abs_error", json_integer(rep->atlas_j2c_max_abs));
    if (rep->benched) {
        for (int k = 0; !bad && k < AM_BENDBOX_FOLD_SAMPLES; k++) {
            const am_bendbox_fold_sample *f = &rep->fold[k];
            bad |= json_array_append_new(
                fold, json_pack("{s:f,s:f,s:o,s:o,s:o,s:o,s:f,s:f,s:f}", "t_s", f->t_s, "angle_deg", f->expect_deg,
                                "tip_end_centre_from_hinge", vec(f->tip_centre_hinge), "tip_end_centre_bind",
                                vec(f->tip_centre_bind), "tip_end_centre_prim", vec(f->tip_centre_prim), "expect_from_hinge",
                                vec(f->expect_hinge), "centre_error_m", f->centre_error_m, "tip_rigidity_m",
                                f->tip_rigidity_m, "minus_x_half_moved_m", f->right_half_moved_m));
        }
        for (size_t i = 0; !bad && i < rep->check_count; i++)
            bad |= json_array_append_new(checks, json_pack("{s:s,s:f,s:f,s:b}", "name", rep->checks[i].name, "value",
                                                           rep->checks[i].value, "limit", rep->checks[i].limit,
                                                           "pass", rep->checks[i].pass));
        bad |= put(root, "bench", json_pack("{s:f,s:o,s:o,s:o}", "rest_error_m", rep->rest_error_m, "hinge_prim",
                                            vec(rep->hinge_prim), "fold", fold, "checks", checks));
        fold = checks = NULL;
    } else {
        bad |= put(root, "bench", json_null());
    }
    bad |= put(root, "pass", json_boolean(rep->all_pass));
    char *text = bad ? NULL : json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    json_decref(files);
    json_decref(fold);
    json_decref(checks);
    if (!text)
        return am_fail_nomem(err, "bend box JSON");
    am_status s = am_buf_printf(out, err, "%s\n", text);
    free(text);
    return s;
}
