/* animesh report MODEL_OR_ASSET [--poses standard|FILE] [--out DIR] [--json]: the rigger's
 * quality report (src/report/quality.h) of anything animesh writes or imports (report/report.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "core/text.h"
#include "map/axes.h"
#include "report/quality.h"
#include "report/report.h"

static const char *help =
    "usage: animesh report MODEL_OR_ASSET [--poses standard|FILE] [--out DIR] [--json]\n"
    "                      [--joints MODE] [--up AXIS] [--forward AXIS] [--unit M] [--skeleton FILE]\n\n"
    "The weight and deformation figures a lead rigger judges (quality.md), each flagged\n"
    "blocker / major / minor, measured on the viewer-faithful bench:\n"
    "  weights   unweighted (blocker), empty_major: a major bone inside the mesh with no\n"
    "            weight (blocker), sum_dev (major), max_influences (major above 4),\n"
    "            cross-side weight, mirror_err (symmetric meshes), rigid parts (one bone at 1.0)\n"
    "  poses     strain p1/p99 and the share of edges outside 0.5..1.6 (major above 0.2%),\n"
    "            joint band volume at shoulder, elbow, knee, hip and wrist twist (minor below\n"
    "            the collapse line, major below 0.9 x what linear blend skinning gets on a\n"
    "            clean mesh), cross-side leak on one-sided poses (major from 0.001 x height),\n"
    "            rigidity of rigid parts\n"
    "Standard poses (those the skin has weighted joints for): arm down, arm up, elbow 120,\n"
    "knee 120, wrist twist 80, leg forward, leg side, squat, spine bend/twist, head turn/nod,\n"
    "tail swing, hind knee. --poses FILE: {\"poses\": [{\"name\", \"band\", \"kind\",\n"
    "\"joints\": [{\"name\", \"axis\": [x,y,z], \"deg\"}]}]} (axes in the bind frame).\n\n"
    "Input: a mesh asset (.llmesh/.slm, read as written), a rig JSON, or a rigged model file\n"
    "(COLLADA, glTF, FBX ...: imported and skinned in memory; --up/--forward/--unit as for\n"
    "'animesh bind'). Prints the summary (or with --json the whole report); with --out DIR\n"
    "writes STEM.report.json, STEM.report.txt, STEM_poses.png and STEM_closeup_N_JOINT.png\n"
    "(the worst joints), all replaced together. The sheet's cells are shaped like the\n"
    "creature seen from each side; --joints none|dots|names|auto: what they draw over the\n"
    "mesh (auto, the default: small dots up to 25 weighted joints, none past that).\n"
    "Exit 0 when nothing is a blocker; 1 a blocker or invalid input; 2 usage; 3 I/O.\n";

int am_cli_frame_option(const char *cmd, int opt, const char *arg, am_bind_frame *frame)
{
    double d;
    switch (opt) {
    case 'u':
    case 'w': {
        am_error e;
        if (am_axes_parse(arg, opt == 'u' ? &frame->up : &frame->forward, &e))
            return am_cli_usage(cmd, "--%s: %s", opt == 'u' ? "up" : "forward", e.msg);
        return AM_EXIT_OK;
    }
    case 'n':
        if (!am_cli_parse_double(arg, &d) || !(d > 0))
            return am_cli_usage(cmd, "--unit: expected metres per file unit (> 0), got '%s'", arg);
        frame->unit_m = d;
        return AM_EXIT_OK;
    default:
        return -1;
    }
}

int am_cli_load_poses(const char *arg, am_quality_pose **out, size_t *count, am_error *err)
{
    *out = NULL;
    *count = 0;
    if (!arg || strcmp(arg, "standard") == 0)
        return AM_EXIT_OK;
    am_status s = am_quality_poses_load(arg, out, count, err);
    return s ? am_status_exit_code(s) : AM_EXIT_OK;
}

void am_cli_print_quality_summary(const am_quality_report *r)
{
    am_buf text = {0};
    am_error err;
    if (!am_quality_text(r, &text, &err))
        fwrite(text.data, 1, text.size, stdout);
    am_buf_free(&text);
}

static const char *stem_of(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, size, "%s", base);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
    if (strlen(buf) > 5 && strcmp(buf + strlen(buf) - 4, ".rig") == 0)
        buf[strlen(buf) - 4] = '\0';
    return buf;
}

int am_cmd_report(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    const char *skel_path = NULL, *poses = NULL, *out_dir = NULL;
    bool json = false;
    am_render_joints joints = AM_RENDER_JOINTS_AUTO;
    am_bind_frame frame = {0, 0, 0};
    static const am_cli_opt lopts[] = {
        {"poses", required_argument, 'p', 0},
        {"joints", required_argument, 'J', 0},
        {"out", required_argument, 'o', 'o'},
        {"json", no_argument, 'j', 0},
        {"up", required_argument, 'u', 0},
        {"forward", required_argument, 'w', 0},
        {"unit", required_argument, 'n', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c, rc;
    am_cli_opts op;
    am_cli_opts_begin(&op, "report", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        if ((rc = am_cli_frame_option("report", c, op.arg, &frame)) >= 0) {
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case 'p': poses = op.arg; break;
        case 'o': out_dir = op.arg; break;
        case 'j': json = true; break;
        case 's': skel_path = op.arg; break;
        case 'J':
            if (!am_render_joints_parse(op.arg, &joints))
                return am_cli_usage("report", "--joints: expected none, dots, names or auto, got '%s'", op.arg);
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("report", "expected exactly one MODEL_OR_ASSET");
    const char *path = argv[op.first];
    am_error err;
    am_error_clear(&err);
    am_quality_pose *pose_list = NULL;
    size_t pose_count = 0;
    rc = am_cli_load_poses(poses, &pose_list, &pose_count, &err);
    if (rc)
        return am_cli_report(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err)) {
        free(pose_list);
        return am_cli_report(&err);
    }
    am_bench bench;
    am_report_input info;
    am_quality_report rep;
    char shown[1024];
    fprintf(stderr, "animesh report: reading %s\n", am_text_shown(path, shown, sizeof shown));
    if (am_report_load(path, &skel, &frame, &bench, &info, &err)) {
        rc = am_cli_report(&err);
        goto out;
    }
    fprintf(stderr, "animesh report: %s, %zu vertices; measuring\n", info.what, bench.vertex_count);
    if (info.dropped_weights)
        fprintf(stderr, "animesh report: warning: %zu influences on joints the viewer does not know were dropped\n",
                info.dropped_weights);
    if (am_quality_run(&bench, pose_list, pose_count, &rep, &err)) {
        rc = am_cli_report(&err);
        am_bench_free(&bench);
        goto out;
    }
    rep.joints = joints;
    if (json) {
        am_buf b = {0};
        if (!am_quality_json(&rep, &b, &err))
            fwrite(b.data, 1, b.size, stdout);
        am_buf_free(&b);
    } else {
        printf("%s: %s\n", path, info.what);
        am_cli_print_quality_summary(&rep);
    }
    if (out_dir) {
        am_outset *set = NULL;
        char stem[256], files[AM_REPORT_MAX_FILES][256];
        size_t nf = 0;
        char preface[600];
        snprintf(preface, sizeof preface, "input %s: %s\n", path, info.what);
        am_status s = am_mkdir_p(out_dir, &err);
        if (!s)
            s = am_outset_begin(&set, out_dir, NULL, 0, &err);
        if (!s)
            s = am_report_write(&bench, &rep, pose_list, pose_count, set, stem_of(path, stem, sizeof stem), preface, files,
                                &nf, &err);
        if (!s)
            s = am_outset_commit(set, &err);
        am_outset_free(set);
        if (s)
            rc = am_cli_report(&err);
        for (size_t i = 0; i < nf && !s; i++)
            fprintf(json ? stderr : stdout, "wrote %s/%s\n", out_dir, files[i]);
    }
    if (!rc)
        rc = rep.blockers ? AM_EXIT_INVALID : AM_EXIT_OK;
    am_quality_free(&rep);
    am_bench_free(&bench);
out:
    free(pose_list);
    am_skeleton_free(&skel);
    return rc;
}
