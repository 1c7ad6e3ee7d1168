/* animesh bench: the viewer-faithful bench on WRITTEN files (bench/bench.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_report.h"
#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "report/poses_by_plan.h"
#include "retarget/motion_file.h"
#include "bench/render.h"
#include "report/report.h"
#include "core/text.h"

static const char *help =
    "usage: animesh bench MESH.llmesh|MODEL [--anim FILE[:CLIP] ...] [--time T ... | --keys]\n"
    "                     [--set NAME:EXPR ...] [--lod N] [--json] [--max-rest-error M]\n"
    "                     [--png-strip OUT.png [--frames N] [--view front|side|top]\n"
    "                      [--strip-anim I] [--texture ATLAS.png] [--flat] [--joints MODE]\n"
    "                      [--frame-size WxH]] [--skeleton FILE]\n\n"
    "MODEL: any file 'animesh import' takes (COLLADA, glTF, FBX ...), loaded by import's own\n"
    "route (faithful or retargeted, its parts as one creature, skinned in memory: the high\n"
    "LOD only).\n"
    "Reads a mesh asset as written (through the decoder) and .anim files, places the\n"
    "viewer's skeleton as the viewer does (defaults; mPelvis at the prim; each skinned\n"
    "joint at its VIEWER parent plus the override the asset carries, applied only when it\n"
    "differs from the file pos by more than 0.1 mm; bind_rot on mRoot), plays the motion\n"
    "at each time, skins with the viewer's formula and reports:\n"
    "  rest error   max distance of a deformed vertex from its bind position, no motion\n"
    "  weights      unweighted, sum_dev, max_influences, bad joint indices, cross-side weight\n"
    "  per pose     displacement from rest (max/mean/rms/p99), strain p1/p99 and share\n"
    "               outside 0.5..1.6, cross-side leak on one-sided poses, bounding boxes,\n"
    "               rigidity (max change of pairwise distance) and centre of each --set\n\n"
    "Frames: positions are given in the PRIM frame (origin at the root prim, what the\n"
    "viewer draws) and the BIND frame (the mesh's own frame, mPelvis default z 1.067):\n"
    "bind = prim + (pelvis file pos - pelvis runtime pos), i.e. prim + (0,0,1.067) unless\n"
    "an mPelvis override is applied. The rest error is measured in the bind frame.\n\n"
    "  --anim FILE      a .anim to play (repeatable; motions are numbered from 0); or a\n"
    "                   model or motion file (Mixamo FBX, glTF pack, FILE:CLIP) retargeted\n"
    "                   onto this mesh's rest as import --anim does (one motion per clip);\n"
    "                   a motion whose body plan is not the mesh's is refused, as by import\n"
    "  --allow-body-mismatch  retarget such a motion anyway (docs/map.md \"Body plans\")\n"
    "  --time T         motion time in seconds since the motion started (repeatable); a\n"
    "                   looping motion wraps past loop_out as the viewer plays it.\n"
    "                   --keys: every key time.\n"
    "                   Default: the key times (at most 16), else 9 even times\n"
    "  --set NAME:EXPR  a vertex set by bind-frame conditions, e.g. tip:x>=1 or\n"
    "                   end:x=2 or arm:y>0.2,z>1.2 (operators < <= > >= =; 'all')\n"
    "  --lod N          0 lowest .. 3 high (default: the highest present)\n"
    "  --max-rest-error M  exit 1 when the rest error exceeds M metres\n"
    "  --png-strip OUT  render N frames of motion --strip-anim (default 0; rest when no\n"
    "                   motion) side by side, one framing for the whole motion: frames\n"
    "                   shaped like the posed mesh seen from the view, which spans their\n"
    "                   longer side (400 px) but for the margins\n"
    "  --frames N       frames in the strip (default 7), evenly over [0, duration]\n"
    "  --view V         front (from +X), side (from -Y, +X right), top (default side)\n"
    "  --texture PNG    colour from this atlas at the mesh UVs\n"
    "  --flat           flat shading (default Lambert, smooth)\n"
    "  --joints MODE    none, dots (small, the weighted joints and their bones), names\n"
    "                   (dots and names) or auto (default: dots up to 25 weighted joints,\n"
    "                   none past that); --no-joints is none\n"
    "  --frame-size WxH pixels per frame, framing the mesh and the prim (default: shaped\n"
    "                   like the posed mesh, as above)\n"
    "  --json           machine-readable report\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n\n"
    "Exit codes: 0 ok, 1 invalid input or --max-rest-error exceeded, 2 usage, 3 I/O.\n";

#define MAX_ITEMS 64

typedef struct bench_args {
    const char *mesh, *skel, *strip, *texture;
    const char *strip_only; /* the first option given that only a --png-strip uses */
    const char *anims[MAX_ITEMS];
    size_t anim_count;
    double times[MAX_ITEMS];
    size_t time_count;
    bool keys, json, flat, allow_body;
    am_render_joints joints;
    char *set_specs[MAX_ITEMS];
    size_t set_count;
    int lod, frames, strip_anim, fw, fh;
    am_view view;
    double max_rest;
} bench_args;

static int parse_args(int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->lod = -1;
    a->frames = 7;
    a->view = AM_VIEW_SIDE;
    a->max_rest = -1;
    static const am_cli_opt opts[] = {
        {"anim", required_argument, 'a', 0},
        {"time", required_argument, 't', 0},
        {"keys", no_argument, 'k', 0},
        {"set", required_argument, 'S', 0},
        {"lod", required_argument, 'l', 0},
        {"json", no_argument, 'j', 0},
        {"max-rest-error", required_argument, 'm', 0},
        {"png-strip", required_argument, 'p', 0},
        {"frames", required_argument, 'n', 0},
        {"view", required_argument, 'v', 0},
        {"strip-anim", required_argument, 'i', 0},
        {"texture", required_argument, 'x', 0},
        {"flat", no_argument, 'f', 0},
        {"no-joints", no_argument, 'J', 0},
        {"joints", required_argument, 'o', 0},
        {"frame-size", required_argument, 'z', 0},
        {"skeleton", required_argument, 's', 0},
        {"allow-body-mismatch", no_argument, 'B', 0},
        AM_CLI_OPT_HELP};
    int c;
    long v;
    am_cli_opts op;
    am_cli_opts_begin(&op, "bench", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        if (strchr("nvixfJoz", c) && c && !a->strip_only)
            a->strip_only = op.name;
        switch (c) {
        case 'B': a->allow_body = true; break;
        case 'a':
            if (a->anim_count >= MAX_ITEMS)
                return am_cli_usage("bench", "at most %d --anim", MAX_ITEMS);
            a->anims[a->anim_count++] = op.arg;
            break;
        case 't':
            if (a->time_count >= MAX_ITEMS)
                return am_cli_usage("bench", "at most %d --time", MAX_ITEMS);
            if (!am_cli_parse_double(op.arg, &a->times[a->time_count]) || !(a->times[a->time_count] >= 0))
                return am_cli_usage("bench", "--time '%s' is not a time in seconds >= 0", op.arg);
            a->time_count++;
            break;
        case 'k': a->keys = true; break;
        case 'S':
            if (a->set_count >= MAX_ITEMS)
                return am_cli_usage("bench", "at most %d --set", MAX_ITEMS);
            a->set_specs[a->set_count++] = op.arg;
            break;
        case 'l':
            if (!am_cli_parse_long(op.arg, 0, 3, &v))
                return am_cli_usage("bench", "--lod '%s' must be 0..3", op.arg);
            a->lod = (int)v;
            break;
        case 'j': a->json = true; break;
        case 'm':
            if (!am_cli_parse_double(op.arg, &a->max_rest) || !(a->max_rest >= 0))
                return am_cli_usage("bench", "--max-rest-error '%s' must be metres >= 0", op.arg);
            break;
        case 'p': a->strip = op.arg; break;
        case 'n':
            if (!am_cli_parse_long(op.arg, 1, 64, &v))
                return am_cli_usage("bench", "--frames '%s' must be 1..64", op.arg);
            a->frames = (int)v;
            break;
        case 'v':
            if (!am_view_parse(op.arg, &a->view))
                return am_cli_usage("bench", "--view must be front, side or top, not '%s'", op.arg);
            break;
        case 'i':
            if (!am_cli_parse_long(op.arg, 0, MAX_ITEMS - 1, &v))
                return am_cli_usage("bench", "--strip-anim '%s' must be a motion number", op.arg);
            a->strip_anim = (int)v;
            break;
        case 'x': a->texture = op.arg; break;
        case 'f': a->flat = true; break;
        case 'J': a->joints = AM_RENDER_JOINTS_NONE; break;
        case 'o':
            if (!am_render_joints_parse(op.arg, &a->joints))
                return am_cli_usage("bench", "--joints must be none, dots, names or auto, not '%s'", op.arg);
            break;
        case 'z':
            if (sscanf(op.arg, "%dx%d", &a->fw, &a->fh) != 2 || a->fw < 64 || a->fh < 96 || a->fw > 4096 || a->fh > 4096)
                return am_cli_usage("bench", "--frame-size '%s' must be WxH, 64x96 .. 4096x4096", op.arg);
            break;
        case 's': a->skel = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc == AM_EXIT_OK ? -1 : op.rc;
    if (op.first >= argc)
        return am_cli_usage("bench", "expected one MESH.llmesh");
    if (op.first < argc - 1)
        return am_cli_usage("bench", "unexpected argument '%s'", argv[op.first + 1]);
    a->mesh = argv[op.first];
    if (a->strip_only && !a->strip)
        return am_cli_usage("bench", "--%s only applies to a --png-strip", a->strip_only);
    if (a->strip_anim > 0 && (size_t)a->strip_anim >= a->anim_count)
        return am_cli_usage("bench", "--strip-anim %d but only %zu --anim", a->strip_anim, a->anim_count);
    if (a->keys && a->time_count)
        return am_cli_usage("bench", "give --time or --keys, not both");
    if ((a->keys || a->time_count) && a->anim_count == 0)
        return am_cli_usage("bench", "--%s poses a motion: give --anim FILE.anim (without one the bench reports "
                                     "the rest pose)", a->keys ? "keys" : "time");
    return 0;
}

/* The library's report options from the arguments (the strip as it will be written). */
static am_bench_report_options report_options(const bench_args *a, const am_bench *b, const am_bench_set *sets)
{
    /* --max-rest-error 0 is a judgement against 0; no flag, none (core/option.h) */
    double max_rest = a->max_rest > 0 ? a->max_rest : a->max_rest == 0 ? AM_OPTION_ZERO : 0;
    am_bench_report_options o = {a->times, a->time_count, a->keys, max_rest, sets, a->set_count, NULL, 0, NULL};
    if (a->strip) {
        o.strip_path = a->strip;
        o.strip_frames = b->motion_count && a->strip_anim >= 0 ? (size_t)a->frames : 1;
        o.strip_view = am_view_name(a->view);
    }
    return o;
}

static void pose_text(const am_bench_pose_report *r, const am_bench_set *sets, const char *label)
{
    printf("  %-8s displacement max %.6f m (vertex %zu) mean %.6f rms %.6f p99 %.6f\n", label, r->displacement.max,
           r->displacement.argmax, r->displacement.mean, r->displacement.rms, r->displacement.p99);
    printf("           strain p1 %.4f p99 %.4f (min %.4f max %.4f), outside 0.5..1.6: %.3f%% of %zu edges%s\n",
           r->strain.p1, r->strain.p99, r->strain.min, r->strain.max, 100 * r->strain.share_outside, r->strain.edges,
           r->strain.share_outside > 0.002 ? "  FLAG (> 0.2%)" : "");
    if (r->strain.tear_m > 0)
        printf("           torn: an edge by %.4f m (%.1f x), a vertex from every neighbour by %.4f m (vertex %u)\n",
               r->strain.tear_m, r->strain.tear_ratio, r->strain.spike_m, (unsigned)r->strain.spike_vertex);
    if (r->leak.applies)
        printf("           cross-side leak (%s-side pose): %.6f m = %.5f H (vertex %zu)%s\n",
               am_bench_side_name(r->leak.side), r->leak.max_m, r->leak.max_h, r->leak.argmax,
               r->leak.max_h >= 0.001 ? "  FLAG (>= 0.001 H)" : "");
    else if (r->leak.side == AM_SIDE_LEFT || r->leak.side == AM_SIDE_RIGHT)
        printf("           cross-side leak: n/a (%s-side pose, but this mesh's side bones do not hold +Y/-Y)\n",
               am_bench_side_name(r->leak.side));
    else
        printf("           cross-side leak: n/a (pose moves %s)\n",
               r->leak.side == AM_SIDE_NONE ? "no side joint" : "both sides or the middle");
    printf("           bbox prim [%.4f %.4f %.4f]..[%.4f %.4f %.4f]  bind [%.4f %.4f %.4f]..[%.4f %.4f %.4f]\n",
           r->min_prim.x, r->min_prim.y, r->min_prim.z, r->max_prim.x, r->max_prim.y, r->max_prim.z, r->min_bind.x,
           r->min_bind.y, r->min_bind.z, r->max_bind.x, r->max_bind.y, r->max_bind.z);
    for (size_t k = 0; k < r->set_count; k++) {
        const am_bench_set_result *s = &r->sets[k];
        printf("           set %s (%s, %zu vertices): rigidity %.3g m%s, centre bind (%.4f, %.4f, %.4f) prim "
               "(%.4f, %.4f, %.4f)\n",
               am_str(&sets[k].name), am_str(&sets[k].expr), sets[k].count, s->rigidity_m,
               s->sampled ? " (sampled)" : "",
               s->centre_bind.x, s->centre_bind.y, s->centre_bind.z, s->centre_prim.x, s->centre_prim.y,
               s->centre_prim.z);
    }
}

static const char *lod_name(int lod)
{
    static const char *names[] = {"lowest", "low", "medium", "high"};
    return lod >= 0 && lod < 4 ? names[lod] : "?";
}

/* The text report: the same figures as the JSON (bench/bench_report.h), for people. */
static am_status report_text(const bench_args *a, const am_bench *b, const am_bench_set *sets,
                             const am_bench_report_options *ro, am_bench_stats *rest, am_error *err)
{
    const am_skeleton *sk = b->skel;
    am_bench_weights wr;
    am_status st;
    if ((st = am_bench_rest_error(b, rest, err)) || (st = am_bench_weight_report(b, &wr, err)))
        return st;
    am_vec3 *joints = malloc(sk->joint_count * sizeof *joints);
    if (!joints)
        return am_fail_nomem(err, "joints");
    if ((st = am_bench_pose_at(b, -1, 0, NULL, joints, err))) {
        free(joints);
        return st;
    }
    size_t applied = 0, known = 0;
    for (size_t j = 0; j < sk->joint_count; j++)
        applied += b->override_applied[j];
    for (size_t i = 0; i < b->skin_joint_count; i++)
        known += b->skin_joint_known[i];
    bool fail = a->max_rest >= 0 && rest->max > a->max_rest;
    printf("bench %s: LOD %s, %zu vertices, %zu triangles\n", am_str(&b->source), lod_name(b->lod), b->vertex_count,
           b->triangle_count);
    printf("skin: %zu joint names (%zu known), palette %zu, overrides %s: %zu applied, mPelvis override %s\n",
           b->skin_joint_count, known, b->palette_count,
           b->overrides_honoured ? "present" : "absent or count mismatch (ignored by the viewer)", applied,
           b->pelvis_override_applied ? "APPLIED (the whole mesh moves with it)" : "not applied");
    printf("frames: bind = prim + (%.4f, %.4f, %.4f)%s\n", b->bind_minus_prim.x, b->bind_minus_prim.y,
           b->bind_minus_prim.z,
           fabs(b->root_rot.w) < 1 - 1e-12 ? " after undoing mRoot's bind_rot" : "; mRoot rotation identity");
    for (size_t i = 0; i < b->skin_joint_count && i < 40; i++) {
        int j = b->skin_joint[i];
        am_vec3 pb = am_bench_prim_to_bind(b, joints[j]);
        char nm[128]; /* the asset's joint name: control characters shown as \xNN */
        printf("  joint %-22s %s rest prim (%8.4f %8.4f %8.4f) bind (%8.4f %8.4f %8.4f)\n",
               am_text_shown(b->asset.skin.joint_names[i], nm, sizeof nm),
               !b->skin_joint_known[i] ? "UNKNOWN->mPelvis" : b->override_applied[j] ? "override        "
                                                                                    : "default pos     ",
               joints[j].x, joints[j].y, joints[j].z, pb.x, pb.y, pb.z);
    }
    free(joints);
    if (b->skin_joint_count > 40)
        printf("  ... %zu more joints (--json lists all)\n", b->skin_joint_count - 40);
    printf("rest error (bind frame): max %.3g m (vertex %zu), mean %.3g m, p99 %.3g m%s\n", rest->max, rest->argmax,
           rest->mean, rest->p99, a->max_rest < 0 ? "" : fail ? "  FAIL" : "  ok");
    printf("weights: unweighted %zu%s, sum_dev %zu, max_influences %d (0:%zu 1:%zu 2:%zu 3:%zu 4:%zu), bad joint "
           "index %zu, unknown joint names %zu, H %.4f m\n",
           wr.unweighted, wr.unweighted ? " BLOCKER" : "", wr.sum_dev, wr.max_influences, wr.influence_histogram[0],
           wr.influence_histogram[1], wr.influence_histogram[2], wr.influence_histogram[3], wr.influence_histogram[4],
           wr.bad_joint_index, wr.unknown_joint_names, b->height);
    /* The cross-side figure means something only when Left/Right bones hold the mesh's
     * +Y/-Y sides (a bend box's "hips" hold -X/+X halves): say so instead of a 1.0. */
    if (b->sides_follow_y)
        printf("cross-side weight: %.4f (vertex %zu): the largest weight a Left bone gives a right-side vertex "
               "or vice versa\n", wr.cross_side_weight, wr.cross_side_vertex);
    else
        printf("cross-side weight: not applicable (the mesh's Left/Right bones do not hold its +Y/-Y sides)\n");

    /* Sets at rest, then each motion's poses. */
    am_bench_pose_report pr;
    if (a->set_count) {
        if ((st = am_bench_pose_report_at(b, -1, 0, sets, a->set_count, &pr, err)))
            return st;
        pose_text(&pr, sets, "rest");
        am_bench_pose_report_free(&pr);
    }
    for (size_t m = 0; m < b->motion_count; m++) {
        am_bench_motion_info info;
        if ((st = am_bench_motion_get_info(b, m, &info, err)))
            return st;
        double times[AM_BENCH_REPORT_MAX_TIMES];
        size_t nt = am_bench_report_times(&info, ro, times, AM_BENCH_REPORT_MAX_TIMES);
        printf("motion %zu: %s  %.3f s%s [%.3f, %.3f], priority %d, %zu joints (%zu unknown, ignored), %zu key times\n",
               m, info.source, info.duration, info.loop ? " loop" : "", info.loop_in, info.loop_out, info.priority,
               info.joint_count, info.unknown_joints, info.key_time_count);
        for (size_t k = 0; k < nt; k++) {
            if ((st = am_bench_pose_report_at(b, (int)m, times[k], sets, a->set_count, &pr, err)))
                return st;
            char label[32];
            snprintf(label, sizeof label, "t=%.3fs", times[k]);
            pose_text(&pr, sets, label);
            am_bench_pose_report_free(&pr);
        }
    }
    return AM_OK;
}

/* The PNG strip of --png-strip (ro->strip_frames frames of motion --strip-anim, or the rest). */
static am_status write_strip(const bench_args *a, const am_bench *b, const am_bench_report_options *ro, am_error *err)
{
    am_render_options opt;
    am_render_options_init(&opt);
    opt.view = a->view;
    opt.flat = a->flat;
    am_render_set_joints(&opt, a->joints, b);
    am_image tex = {0};
    if (a->texture) {
        am_status s = am_tex_png_read_rgba(a->texture, &tex, err);
        if (s)
            return s;
        opt.texture = &tex;
    }
    int motion = b->motion_count ? a->strip_anim : -1;
    double times[64];
    double dur = 0;
    if (motion >= 0) {
        am_bench_motion_info info;
        am_bench_motion_get_info(b, (size_t)motion, &info, NULL);
        dur = info.duration;
    }
    size_t nf = ro->strip_frames;
    am_render_even_times(dur, nf, times);
    if (a->fw) {
        opt.frame_width = a->fw;
        opt.frame_height = a->fh;
    } else {
        /* frames shaped like the posed mesh, framed on it (not on the prim) */
        am_render_part part = {b, motion, {0, 0, 0}};
        am_status s = am_render_posed_box(&part, 1, times, nf, &opt.focus_min, &opt.focus_max, err);
        if (s) {
            am_image_free(&tex);
            return s;
        }
        opt.focus = opt.focus_min.x <= opt.focus_max.x;
        if (opt.focus)
            am_render_fit_frame(opt.view, opt.focus_min, opt.focus_max, 400, 120, &opt.frame_width, &opt.frame_height);
    }
    am_status s = am_render_strip_png(b, motion, times, nf, &opt, a->strip, err);
    am_image_free(&tex);
    return s;
}

static int run(const bench_args *a, am_bench *b, am_bench_set *sets, am_error *err)
{
    am_bench_report_options ro = report_options(a, b, sets);
    am_bench_stats rest;
    char *json = NULL;
    am_status s = a->json ? am_bench_report_json(b, &ro, &json, &rest, err) : report_text(a, b, sets, &ro, &rest, err);
    if (!s && a->strip) {
        s = write_strip(a, b, &ro, err);
        if (!s && !json)
            printf("wrote %s (%zu frames, %s view)\n", a->strip, ro.strip_frames, am_view_name(a->view));
    }
    if (s) {
        free(json);
        return am_cli_report(err);
    }
    if (json) {
        puts(json);
        free(json);
    }
    if (a->max_rest >= 0 && rest.max > a->max_rest) {
        fprintf(stderr, "animesh bench: rest error %.3g m exceeds --max-rest-error %g m\n", rest.max, a->max_rest);
        return AM_EXIT_INVALID;
    }
    return AM_EXIT_OK;
}

static bool is_anim_file(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".anim") == 0;
}

/* The --anim files in order: a .anim as it is, any other file retargeted onto the mesh's
 * rest (where the viewer draws its joints with the overrides it was sent). */
static am_status add_motions(const bench_args *a, am_bench *b, const am_skeleton *skel, am_error *err)
{
    am_status st = AM_OK;
    am_vec3 *rest = NULL;
    am_body_plan plan = {0}; /* the mesh's, read from the joints it weights */
    for (size_t i = 0; i < a->anim_count && !st; i++) {
        if (is_anim_file(a->anims[i])) {
            st = am_bench_add_anim(b, a->anims[i], err);
            continue;
        }
        if (!rest) {
            rest = malloc(skel->joint_count * sizeof *rest);
            float *prim = malloc((b->vertex_count ? b->vertex_count : 1) * 3 * sizeof *prim);
            if (!rest || !prim)
                st = am_fail_nomem(err, "bench");
            if (!st)
                st = am_bench_pose_at(b, -1, 0, prim, rest, err);
            for (size_t j = 0; !st && j < skel->joint_count; j++)
                rest[j] = am_bench_prim_to_bind(b, rest[j]);
            free(prim);
            if (!st)
                st = am_quality_body_plan(b, &plan, err);
        }
        am_motion_file_options mo;
        am_motion_file_options_init(&mo);
        mo.retarget.target_rest = rest;
        mo.target_plan = &plan;
        mo.allow_body_mismatch = a->allow_body;
        am_motion_file_result r = {0};
        if (!st)
            st = am_motion_file_convert(a->anims[i], skel, &mo, &r, err);
        for (size_t k = 0; !st && k < r.finding_count; k++)
            if (strncmp(am_str(&r.findings[k].text), "body plans differ", 17) == 0)
                am_cli_print_flags(stderr, "%s: warning: %s\n", a->anims[i], am_str(&r.findings[k].text));
        for (size_t k = 0; !st && k < r.anim_count; k++)
            st = am_bench_add_anim_mem(b, r.anims[k].anim.data, r.anims[k].anim.size, am_str(&r.anims[k].name), err);
        am_motion_file_result_free(&r);
    }
    free(rest);
    am_body_plan_free(&plan);
    return st;
}

int am_cmd_bench(int argc, char **argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? AM_EXIT_OK : rc;
    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(a.skel, &skel, &err))
        return am_cli_report(&err);
    am_bench_options opts = {.lod = a.lod >= 0 ? AM_BENCH_LOD(a.lod) : AM_BENCH_LOD_HIGHEST_PRESENT};
    am_bench b;
    memset(&b, 0, sizeof b);
    /* a mesh asset as written; any model import takes through import's own route (report.h) */
    am_status ls;
    if (am_report_is_mesh_asset(a.mesh)) {
        ls = am_bench_load(a.mesh, NULL, 0, &skel, &opts, &b, &err);
    } else {
        am_report_input info;
        am_bind_frame frame = {0, 0, 0};
        ls = am_report_load(a.mesh, &skel, &frame, &b, &info, &err);
        if (!ls)
            fprintf(stderr, "animesh bench: %s: %s\n", a.mesh, am_str(&info.what));
        am_report_input_free(&info);
    }
    if (ls || add_motions(&a, &b, &skel, &err)) {
        if (b.skel) /* loaded: the motions failed */
            am_bench_free(&b);
        am_skeleton_free(&skel);
        return am_cli_report(&err);
    }
    am_bench_set sets[MAX_ITEMS];
    memset(sets, 0, sizeof sets);
    size_t made = 0;
    am_string name = {0};
    for (; made < a.set_count; made++) {
        const char *spec = a.set_specs[made], *colon = strchr(spec, ':');
        const char *expr = colon ? colon + 1 : spec;
        if (!am_string_setn(&name, spec, colon ? (size_t)(colon - spec) : strlen(spec))) {
            am_fail_nomem(&err, "--set");
            rc = am_cli_report(&err);
            break;
        }
        if (am_bench_select(&b, am_str(&name), expr, &sets[made], &err)) {
            am_error_where(&err, "--set %s", spec);
            rc = am_cli_report(&err);
            break;
        }
    }
    am_string_free(&name);
    if (made == a.set_count)
        rc = run(&a, &b, sets, &err);
    for (size_t i = 0; i < made; i++)
        am_bench_set_free(&sets[i]);
    am_bench_free(&b);
    am_skeleton_free(&skel);
    return rc;
}
