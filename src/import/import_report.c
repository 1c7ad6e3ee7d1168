/* The import report as JSON (import.h, docs/import.md). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"

/* A string from a file (names may not be UTF-8: jansson refuses those). */
static json_t *str(const char *s)
{
    json_t *j = json_string(s);
    return j ? j : json_string("(not UTF-8)");
}

static json_t *astr(const am_string *s)
{
    return str(am_str(s));
}

static json_t *vec(am_vec3 v)
{
    return json_pack("[fff]", v.x, v.y, v.z);
}

/* A finite real, or null (an unbounded figure such as a singular inverse bind). */
static json_t *real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *joint_json(const am_import_joint *j)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", astr(&j->name));
    json_object_set_new(o, "weighted", json_boolean(j->weighted));
    json_object_set_new(o, "found_in_scene", json_boolean(j->found));
    json_object_set_new(o, "position", vec(j->position));
    json_object_set_new(o, "default", vec(j->default_pos));
    json_object_set_new(o, "moved_m", real(j->moved_m));
    json_object_set_new(o, "world_moved_m", real(j->world_moved_m));
    json_object_set_new(o, "bind_offset_m", real(j->bind_offset_m));
    json_object_set_new(o, "bind_scale", vec(j->bind_scale));
    json_object_set_new(o, "bind_scale_dev", real(j->bind_scale_dev));
    json_object_set_new(o, "bind_rot_deg", real(j->bind_rot_deg));
    return o;
}

static json_t *anim_json(const am_import_anim_result *a)
{
    json_t *o = json_object();
    json_object_set_new(o, "motion", astr(&a->name));
    json_object_set_new(o, "duration_s", real(a->duration_s));
    json_object_set_new(o, "samples", json_integer((json_int_t)a->samples));
    json_object_set_new(o, "bbox_prim", json_pack("{s:o,s:o}", "min", vec(a->min_prim), "max", vec(a->max_prim)));
    json_object_set_new(o, "bbox_bind", json_pack("{s:o,s:o}", "min", vec(a->min_bind), "max", vec(a->max_bind)));
    json_object_set_new(o, "max_displacement_m", real(a->max_displacement_m));
    json_object_set_new(o, "strain_p1", real(a->strain_p1));
    json_object_set_new(o, "strain_p99", real(a->strain_p99));
    json_object_set_new(o, "strain_share_outside", real(a->strain_share));
    json_object_set_new(o, "tear_m", real(a->tear_m));
    json_object_set_new(o, "spike_m", real(a->spike_m));
    json_object_set_new(o, "creature_m", real(a->creature_m));
    json_object_set_new(o, "exploded", json_boolean(a->exploded));
    json_object_set_new(o, "strained", json_boolean(a->strained));
    return o;
}

static json_t *part_json(const am_import_part_report *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", astr(&p->name));
    json_object_set_new(o, "meshes", astr(&p->meshes));
    json_object_set_new(o, "positions", json_integer((json_int_t)p->positions));
    json_object_set_new(o, "vertices", json_integer((json_int_t)p->vertices));
    json_object_set_new(o, "faces", json_integer((json_int_t)p->faces));
    json_object_set_new(o, "triangles", json_integer((json_int_t)p->triangles));
    json_object_set_new(o, "joints", json_integer((json_int_t)p->joint_count));
    json_object_set_new(o, "weighted_joints", json_integer((json_int_t)p->weighted_joints));
    json_object_set_new(o, "moved_joints", json_integer((json_int_t)p->moved_joints));
    json_object_set_new(o, "scaled_inverse_binds", json_integer((json_int_t)p->scaled_binds));
    json_object_set_new(o, "borrowed_weights", json_integer((json_int_t)p->borrowed_weights));
    json_object_set_new(o, "unweighted_vertices", json_integer((json_int_t)p->unweighted_vertices));
    json_object_set_new(o, "rest_error_m", real(p->rest_error_m));
    if (p->rest_error_before_m >= 0)
        json_object_set_new(o, "rest_error_before_m", real(p->rest_error_before_m));
    json_object_set_new(o, "pelvis_override", json_boolean(p->pelvis_override));
    if (p->pelvis_override)
        json_object_set_new(o, "pelvis_position", vec(p->pelvis_position));
    if (p->skin) {
        const am_skin_summary *s = p->skin;
        json_object_set_new(o, "lod_triangles",
                            json_pack("[IIII]", (json_int_t)s->lod_triangles[AM_LOD_HIGH],
                                      (json_int_t)s->lod_triangles[AM_LOD_MEDIUM],
                                      (json_int_t)s->lod_triangles[AM_LOD_LOW],
                                      (json_int_t)s->lod_triangles[AM_LOD_LOWEST]));
        json_object_set_new(o, "estimated_triangles", real(s->est_tris_max));
        json_object_set_new(o, "streaming_cost", real(s->streaming_cost));
        json_t *w = json_array();
        for (size_t i = 0; i < s->warning_count; i++)
            json_array_append_new(w, str(am_str(&s->warnings[i])));
        json_object_set_new(o, "warnings", w);
    }
    json_t *joints = json_array();
    for (size_t j = 0; p->joints && j < p->joint_count; j++)
        json_array_append_new(joints, joint_json(&p->joints[j]));
    json_object_set_new(o, "joint_list", joints);
    json_t *bench = json_array();
    for (size_t a = 0; a < p->anim_count; a++)
        json_array_append_new(bench, anim_json(&p->anims[a]));
    json_object_set_new(o, "bench", bench);
    if (!am_string_empty(&p->pose_sheet))
        json_object_set_new(o, "pose_sheet", astr(&p->pose_sheet));
    return o;
}

am_status am_import_report_json(const am_import_report *r, am_buf *out, am_error *err)
{
    json_t *o = json_object();
    if (!o)
        return am_fail_nomem(err, "report JSON");
    json_object_set_new(o, "source", astr(&r->source));
    json_object_set_new(o, "format", astr(&r->format));
    json_object_set_new(o, "route", str(am_import_route_name(r->route)));
    json_object_set_new(o, "name", astr(&r->name));
    static const char *const up[] = {"", "X_UP", "Y_UP", "Z_UP"};
    json_object_set_new(o, "declared",
                        json_pack("{s:o,s:s}", "unit_m", r->declared.unit_m > 0 ? json_real(r->declared.unit_m) : json_null(),
                                  "up_axis", r->declared.up > 0 && r->declared.up <= 3 ? up[r->declared.up] : ""));
    if (r->route == AM_IMPORT_RETARGET) {
        json_object_set_new(o, "axes", astr(&r->axes));
        json_t *map = json_array();
        for (size_t i = 0; i < r->map_count; i++) {
            const am_import_map_entry *e = &r->map[i];
            json_array_append_new(map, json_pack("{s:o,s:o,s:o,s:o,s:b}", "rig", astr(&e->rig), "viewer",
                                                 !am_string_empty(&e->viewer) ? astr(&e->viewer) : json_null(), "confidence",
                                                 real(e->confidence), "reason", astr(&e->reason), "fallback",
                                                 e->fallback));
        }
        json_object_set_new(o, "joint_map", map);
    }
    json_t *plan = am_body_plan_json(&r->body_plan);
    if (plan)
        json_object_set_new(o, "body_plan", plan);
    json_t *parts = json_array();
    for (size_t i = 0; i < r->part_count; i++)
        json_array_append_new(parts, part_json(&r->parts[i]));
    json_object_set_new(o, "parts", parts);
    if (!am_string_empty(&r->pose_sheet))
        json_object_set_new(o, "pose_sheet", astr(&r->pose_sheet));
    json_t *f = json_array();
    for (size_t i = 0; i < r->finding_count; i++)
        json_array_append_new(f, json_pack("{s:s,s:s}", "code", am_str(&r->findings[i].code), "text",
                                               am_str(&r->findings[i].text)));
    json_object_set_new(o, "findings", f);
    json_t *m = json_array();
    for (size_t i = 0; i < r->motion_count; i++)
        json_array_append_new(m, astr(&r->motions[i]));
    json_object_set_new(o, "motions", m);
    json_object_set_new(o, "plays_on_rez", !am_string_empty(&r->plays) ? astr(&r->plays) : json_null());
    json_t *md = json_array();
    for (size_t i = 0; i < r->motion_count; i++) {
        const am_import_motion *mi = &r->motion_info[i];
        json_t *e = json_pack("{s:o,s:o,s:o,s:b}", "name", astr(&mi->name), "source", astr(&mi->source), "duration_s",
                              real(mi->duration_s), "loop", mi->loop);
        if (e && mi->retargeted) {
            json_object_set_new(e, "clip", astr(&mi->clip));
            json_object_set_new(e, "joints_mapped", json_integer((json_int_t)mi->joints_mapped));
            json_object_set_new(e, "joints_unmapped", json_integer((json_int_t)mi->joints_unmapped));
            json_object_set_new(e, "keys_before", json_integer((json_int_t)mi->keys_before));
            json_object_set_new(e, "keys_after", json_integer((json_int_t)mi->keys_after));
            json_object_set_new(e, "worst_direction_deg", real(mi->worst_direction_deg));
        }
        if (e && mi->body_plan[0])
            json_object_set_new(e, "body_plan", str(mi->body_plan));
        json_array_append_new(md, e);
    }
    json_object_set_new(o, "motion_details", md);
    json_t *w = json_array();
    for (size_t i = 0; i < r->written_count; i++)
        json_array_append_new(w, astr(&r->written[i]));
    json_object_set_new(o, "written", w);
    json_t *gone = json_array();
    for (size_t i = 0; i < r->removed_count; i++)
        json_array_append_new(gone, astr(&r->removed[i]));
    json_object_set_new(o, "removed", gone);
    json_t *left = json_array();
    for (size_t i = 0; i < r->left_count; i++)
        json_array_append_new(left, astr(&r->left[i]));
    json_object_set_new(o, "left", left);
    char *text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
    json_decref(o);
    if (!text)
        return am_fail_nomem(err, "report JSON");
    am_status st = am_buf_append(out, text, strlen(text), err);
    if (!st)
        st = am_buf_append(out, "\n", 1, err);
    free(text);
    return st;
}
