/* The bench report as JSON (bench_report.h): moved out of `animesh bench` so a program gets
 * the same report the command prints. */
#include "bench/bench_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench/render.h"

static const char *lod_name(int lod)
{
    static const char *names[] = {"lowest", "low", "medium", "high"};
    return lod >= 0 && lod < 4 ? names[lod] : "?";
}

size_t am_bench_report_times(const am_bench_motion_info *info, const am_bench_report_options *o, double *out,
                             size_t cap)
{
    if (o->time_count) {
        size_t n = o->time_count < cap ? o->time_count : cap;
        memcpy(out, o->times, n * sizeof *out);
        return n;
    }
    if (o->keys || info->key_time_count <= 16) {
        size_t n = info->key_time_count < cap ? info->key_time_count : cap;
        memcpy(out, info->key_times, n * sizeof *out);
        return n;
    }
    size_t n = cap < 9 ? cap : 9;
    am_render_even_times(info->duration, n, out);
    return n;
}

static json_t *v3(am_vec3 v) { return json_pack("[fff]", v.x, v.y, v.z); }

static json_t *stats_json(const am_bench_stats *s)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:I}", "max_m", s->max, "mean_m", s->mean, "rms_m", s->rms, "p99_m", s->p99,
                     "vertex", (json_int_t)s->argmax);
}

static json_t *pose_json(const am_bench_pose_report *r, const am_bench_set *sets)
{
    json_t *o = json_object();
    json_object_set_new(o, "t", json_real(r->t));
    json_object_set_new(o, "displacement", stats_json(&r->displacement));
    json_t *strain = json_pack("{s:I,s:f,s:f,s:f,s:f,s:f,s:b}", "edges", (json_int_t)r->strain.edges, "p1",
                               r->strain.p1, "p99", r->strain.p99, "min", r->strain.min, "max", r->strain.max,
                               "share_outside", r->strain.share_outside, "flag", r->strain.share_outside > 0.002);
    /* tearing (bench.h): what an explosion is judged by, against the creature's size */
    json_object_set_new(strain, "tear_m", json_real(r->strain.tear_m));
    json_object_set_new(strain, "spike_m", json_real(r->strain.spike_m));
    json_object_set_new(strain, "spike_vertex", json_integer((json_int_t)r->strain.spike_vertex));
    json_object_set_new(o, "strain", strain);
    json_object_set_new(o, "cross_side_leak",
                        json_pack("{s:b,s:s,s:f,s:f,s:I}", "applies", r->leak.applies, "side",
                                  am_bench_side_name(r->leak.side), "max_m", r->leak.max_m, "max_h", r->leak.max_h,
                                  "vertex", (json_int_t)r->leak.argmax));
    json_object_set_new(o, "bbox_prim", json_pack("[oo]", v3(r->min_prim), v3(r->max_prim)));
    json_object_set_new(o, "bbox_bind", json_pack("[oo]", v3(r->min_bind), v3(r->max_bind)));
    json_t *sa = json_array();
    for (size_t k = 0; k < r->set_count; k++)
        json_array_append_new(sa, json_pack("{s:s,s:s,s:I,s:f,s:b,s:o,s:o}", "name", am_str(&sets[k].name), "expr",
                                            am_str(&sets[k].expr), "count", (json_int_t)sets[k].count, "rigidity_m",
                                            r->sets[k].rigidity_m,
                                            "sampled", r->sets[k].sampled, "centre_prim", v3(r->sets[k].centre_prim),
                                            "centre_bind", v3(r->sets[k].centre_bind)));
    json_object_set_new(o, "sets", sa);
    return o;
}

/* The mesh, its skin joints at rest, frames, rest error and weights into root. */
static am_status describe(const am_bench *b, const am_bench_report_options *o, json_t *root, am_bench_stats *rest,
                          am_error *err)
{
    const am_skeleton *sk = b->skel;
    am_bench_weights wr;
    am_status s;
    if ((s = am_bench_rest_error(b, rest, err)) || (s = am_bench_weight_report(b, &wr, err)))
        return s;
    am_vec3 *joints = malloc((sk->joint_count ? sk->joint_count : 1) * sizeof *joints);
    if (!joints)
        return am_fail_nomem(err, "joints");
    if ((s = am_bench_pose_at(b, -1, 0, NULL, joints, err))) {
        free(joints);
        return s;
    }
    size_t applied = 0;
    for (size_t j = 0; j < sk->joint_count; j++)
        applied += b->override_applied[j];
    json_object_set_new(root, "mesh", json_string(am_str(&b->source)));
    json_object_set_new(root, "lod", json_string(lod_name(b->lod)));
    json_object_set_new(root, "vertices", json_integer((json_int_t)b->vertex_count));
    json_object_set_new(root, "triangles", json_integer((json_int_t)b->triangle_count));
    json_t *jj = json_array();
    for (size_t i = 0; i < b->skin_joint_count; i++) {
        int j = b->skin_joint[i];
        const am_mesh_skin *skin = &b->asset.skin;
        json_t *jo = json_pack("{s:s,s:b,s:s}", "name", skin->joint_names[i], "known", b->skin_joint_known[i],
                               "viewer_joint", sk->joints[j].name);
        json_object_set_new(jo, "override_applied", json_boolean(b->skin_joint_known[i] && b->override_applied[j]));
        json_object_set_new(jo, "override", b->overrides_honoured
                                                ? v3(am_mat4_get_translation(&skin->alt_inverse_bind[i]))
                                                : json_null());
        json_object_set_new(jo, "rest_prim", v3(joints[j]));
        json_object_set_new(jo, "rest_bind", v3(am_bench_prim_to_bind(b, joints[j])));
        json_array_append_new(jj, jo);
    }
    free(joints);
    json_object_set_new(root, "skin",
                        json_pack("{s:I,s:I,s:b,s:I,s:b,s:o}", "joint_count", (json_int_t)b->skin_joint_count,
                                  "palette", (json_int_t)b->palette_count, "overrides_honoured",
                                  b->overrides_honoured, "overrides_applied", (json_int_t)applied,
                                  "pelvis_override_applied", b->pelvis_override_applied, "joints", jj));
    json_object_set_new(root, "frames",
                        json_pack("{s:o,s:[ffff]}", "bind_minus_prim", v3(b->bind_minus_prim), "root_rotation",
                                  b->root_rot.x, b->root_rot.y, b->root_rot.z, b->root_rot.w));
    json_t *re = stats_json(rest);
    json_object_set_new(re, "frame", json_string("bind"));
    if (o->max_rest_error > 0 || o->max_rest_error == AM_OPTION_ZERO) /* 0: no judgement */
        json_object_set_new(re, "pass", json_boolean(!(rest->max > fmax(0.0, o->max_rest_error))));
    json_object_set_new(root, "rest_error", re);
    json_t *hist = json_array();
    for (int k = 0; k <= 4; k++)
        json_array_append_new(hist, json_integer((json_int_t)wr.influence_histogram[k]));
    json_object_set_new(root, "weights",
                        json_pack("{s:I,s:I,s:i,s:o,s:I,s:I,s:I,s:f,s:I,s:f}", "unweighted", (json_int_t)wr.unweighted,
                                  "sum_dev", (json_int_t)wr.sum_dev, "max_influences", wr.max_influences,
                                  "influence_histogram", hist, "bad_joint_index", (json_int_t)wr.bad_joint_index,
                                  "beyond_palette", (json_int_t)wr.beyond_palette, "unknown_joint_names",
                                  (json_int_t)wr.unknown_joint_names, "cross_side_weight", wr.cross_side_weight,
                                  "cross_side_vertex", (json_int_t)wr.cross_side_vertex, "height_m", b->height));
    json_object_set_new(json_object_get(root, "weights"), "sides_follow_y", json_boolean(b->sides_follow_y));
    return AM_OK;
}

/* The sets at rest and every motion's poses into root. */
static am_status poses(const am_bench *b, const am_bench_report_options *o, json_t *root, am_error *err)
{
    am_bench_pose_report pr;
    am_status s;
    if (o->set_count) {
        if ((s = am_bench_pose_report_at(b, -1, 0, o->sets, o->set_count, &pr, err)))
            return s;
        json_object_set_new(root, "rest_pose", pose_json(&pr, o->sets));
        am_bench_pose_report_free(&pr);
    }
    json_t *motions = json_array();
    json_object_set_new(root, "motions", motions);
    for (size_t m = 0; m < b->motion_count; m++) {
        am_bench_motion_info info;
        if ((s = am_bench_motion_get_info(b, m, &info, err)))
            return s;
        double times[AM_BENCH_REPORT_MAX_TIMES];
        size_t nt = am_bench_report_times(&info, o, times, AM_BENCH_REPORT_MAX_TIMES);
        json_t *kt = json_array();
        for (size_t k = 0; k < info.key_time_count; k++)
            json_array_append_new(kt, json_real(info.key_times[k]));
        json_t *mo = json_pack("{s:s,s:f,s:b,s:f,s:f,s:i,s:I,s:I,s:o}", "file", info.source, "duration", info.duration,
                               "loop", info.loop, "loop_in", info.loop_in, "loop_out", info.loop_out, "priority",
                               info.priority, "joints", (json_int_t)info.joint_count, "unknown_joints",
                               (json_int_t)info.unknown_joints, "key_times", kt);
        json_t *pa = json_array();
        json_object_set_new(mo, "poses", pa);
        json_array_append_new(motions, mo);
        for (size_t k = 0; k < nt; k++) {
            if ((s = am_bench_pose_report_at(b, (int)m, times[k], o->sets, o->set_count, &pr, err)))
                return s;
            json_array_append_new(pa, pose_json(&pr, o->sets));
            am_bench_pose_report_free(&pr);
        }
    }
    return AM_OK;
}

am_status am_bench_report_json(const am_bench *b, const am_bench_report_options *o, char **text,
                               am_bench_stats *rest, am_error *err)
{
    *text = NULL;
    am_bench_stats rest_local;
    json_t *root = json_object();
    if (!root)
        return am_fail_nomem(err, "bench report");
    am_status s = describe(b, o, root, rest ? rest : &rest_local, err);
    if (!s)
        s = poses(b, o, root, err);
    if (!s && o->strip_path)
        json_object_set_new(root, "png_strip", json_pack("{s:s,s:i,s:s}", "path", o->strip_path, "frames",
                                                         (int)o->strip_frames, "view", o->strip_view));
    if (!s && !(*text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(9))))
        s = am_fail_nomem(err, "bench report JSON");
    json_decref(root);
    return s;
}
