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
#include "report/poses_by_plan.h"
#include "report/quality.h"
#include "report/quality_limits.h"
#include "report/quality_summary.h"
#include "report/report.h"

static const char *help_head =
    "usage: animesh report MODEL_OR_ASSET [--poses standard|FILE] [--out DIR] [--json] [--verbose]\n"
    "                      [--joints MODE] [--up AXIS] [--forward AXIS] [--unit M] [--skeleton FILE]\n\n"
    "The weight and deformation figures a lead rigger judges, each flagged blocker / major /\n"
    "minor, measured on the viewer-faithful bench (docs/reference/quality-figures.md):\n"
    "  weights   unweighted, empty_major (a major bone inside the mesh with no weight; an\n"
    "            extended joint such as mSpine2 left empty between weighted ones is not one),\n"
    "            sum_dev, max_influences, cross-side weight, mirror_err (symmetric meshes),\n"
    "            rigid parts (one bone at 1.0)\n"
    "  poses     strain p1/p99 and the share of edges outside 0.5..1.6, joint band volume at\n"
    "            shoulder, elbow, knee, hip and wrist twist, cross-side leak on one-sided\n"
    "            poses, rigidity of rigid parts\n"
    "The flags (one table: the text report ends with it, the JSON carries it as \"thresholds\"):\n";
static const char *help_tail =
    "Standard poses, by the creature's body plan (read from the joints that carry weight;\n"
    "docs/report.md), those the skin has weighted joints for: a biped (and other) arm\n"
    "down, arm up, elbow 120, knee 120, wrist twist 80, leg forward, leg side, squat, spine\n"
    "bend/twist, head turn/nod, tail swing, hind knee; a quadruped foreleg forward, foreleg\n"
    "lift, hind leg back, hind knee, sit, head turn, head down, tail swing, tail lift; a\n"
    "winged creature wings up, wings down, wing fold and its legs' set; a serpent spine\n"
    "bend/twist, head turn, tail swing, tail lift. --poses FILE: {\"poses\": [{\"name\", \"band\", \"kind\",\n"
    "\"joints\": [{\"name\", \"axis\": [x,y,z], \"deg\"}]}]} (axes in the bind frame).\n\n"
    "Input: a mesh asset (.llmesh/.slm, read as written), a rig JSON, or any model file\n"
    "'animesh import' takes (COLLADA, glTF, FBX ...), loaded by import's own route: faithful,\n"
    "or retargeted onto the viewer skeleton, its parts judged as one creature (--up/--forward/\n"
    "--unit as for import). Prints a summary of at most 15 lines (the verdict, the worst\n"
    "findings with what to do, the next step); --verbose every figure; --json the whole\n"
    "report. With --out DIR writes STEM.report.json, STEM.report.txt, STEM_poses.png and\n"
    "STEM_closeup_N_JOINT.png (the worst joints), all replaced together.\n"
    "The sheet's cells are shaped like the creature seen from each side; --joints\n"
    "none|dots|names|auto: what they draw over the mesh (auto, the default: small dots up to\n"
    "25 weighted joints, none past that).\n"
    "Exit 0 when nothing is a blocker; 1 a blocker or invalid input; 2 usage; 3 I/O.\n";

/* The help: its head, the thresholds table (quality_limits.h), its tail. */
static const char *make_help(am_buf *b)
{
    am_error err;
    b->size = 0;
    if (am_buf_append(b, help_head, strlen(help_head), &err) || am_quality_limits_text("  ", b, &err) ||
        am_buf_append(b, help_tail, strlen(help_tail) + 1, &err))
        return help_head;
    return (const char *)b->data;
}

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

static int am_cmd_report_run(int argc, char **argv, const char *help);

int am_cmd_report(int argc, char **argv)
{
    am_buf help_buf = {0};
    const char *help = make_help(&help_buf);
    int rc = am_cmd_report_run(argc, argv, help);
    am_buf_free(&help_buf);
    return rc;
}

static int am_cmd_report_run(int argc, char **argv, const char *help)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    const char *skel_path = NULL, *poses = NULL, *out_dir = NULL;
    bool json = false, verbose = false;
    am_render_joints joints = AM_RENDER_JOINTS_AUTO;
    am_bind_frame frame = {0, 0, 0};
    static const am_cli_opt lopts[] = {
        {"poses", required_argument, 'p', 0},
        {"joints", required_argument, 'J', 0},
        {"out", required_argument, 'o', 'o'},
        {"json", no_argument, 'j', 0},
        {"verbose", no_argument, 'v', 0},
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
        case 'v': verbose = true; break;
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
        am_quality_poses_free(pose_list, pose_count);
        return am_cli_report(&err);
    }
    am_bench bench;
    am_report_input info = {0};
    am_quality_report rep;
    char shown[1024];
    fprintf(stderr, "animesh report: reading %s\n", am_text_shown(path, shown, sizeof shown));
    if (am_report_load(path, &skel, &frame, &bench, &info, &err)) {
        rc = am_cli_report(&err);
        goto out;
    }
    fprintf(stderr, "animesh report: %s, %zu vertices; measuring\n", am_str(&info.what), bench.vertex_count);
    if (info.dropped_weights)
        fprintf(stderr, "animesh report: warning: %zu influences on joints the viewer does not know were dropped\n",
                info.dropped_weights);
    /* the standard poses: the creature's own (a quadruped steps, not "arm down") */
    char plan_line[800] = "";
    if (!pose_list) {
        am_body_plan plan = {0};
        if (am_quality_body_plan(&bench, &plan, &err) ||
            am_quality_plan_poses(&plan, &pose_list, &pose_count, &err)) {
            rc = am_cli_report(&err);
            am_body_plan_free(&plan);
            am_bench_free(&bench);
            goto out;
        }
        snprintf(plan_line, sizeof plan_line, "body plan: %s (%.600s)\n", am_body_plan_label(plan.kind),
                 am_str(&plan.evidence));
        am_body_plan_free(&plan);
    }
    if (am_quality_run(&bench, pose_list, pose_count, &rep, &err)) {
        rc = am_cli_report(&err);
        am_bench_free(&bench);
        goto out;
    }
    rep.joints = joints;
    am_string *files = NULL;
    size_t nf = 0;
    if (out_dir) {
        am_outset *set = NULL;
        char stem[256];
        am_string preface = {0};
        am_status s = am_string_setf(&preface, "input %s: %s\n%s", path, am_str(&info.what), plan_line)
                          ? AM_OK
                          : am_fail_nomem(&err, "report");
        if (!s)
            s = am_mkdir_p(out_dir, &err);
        if (!s)
            s = am_outset_begin(&set, out_dir, NULL, 0, &err);
        if (!s)
            s = am_report_write(&bench, &rep, pose_list, pose_count, set, stem_of(path, stem, sizeof stem),
                                am_str(&preface), &files, &nf, &err);
        if (!s)
            s = am_outset_commit(set, &err);
        for (size_t i = 0; am_outset_warning(set, i); i++)
            fprintf(stderr, "animesh: warning: %s\n", am_outset_warning(set, i));
        am_outset_free(set);
        am_string_free(&preface);
        if (s) {
            rc = am_cli_report(&err);
            am_string_list_free(files, nf);
            files = NULL;
            nf = 0;
        }
    }
    if (json) {
        am_buf b = {0};
        if (!am_quality_json(&rep, &b, &err))
            fwrite(b.data, 1, b.size, stdout);
        am_buf_free(&b);
    } else if (verbose) {
        printf("%s: %s\n%s", path, am_str(&info.what), plan_line);
        am_cli_print_quality_summary(&rep);
        am_buf t = {0};
        if (!am_buf_append(&t, "thresholds:\n", 12, &err) && !am_quality_limits_text("  ", &t, &err))
            fwrite(t.data, 1, t.size, stdout);
        am_buf_free(&t);
    } else {
        /* the summary: at most 15 lines (the full text: --verbose, or the report file) */
        am_buf t = {0};
        printf("%s: %s\n%s", am_text_shown(path, shown, sizeof shown), am_str(&info.what), plan_line);
        if (!am_quality_summary_text(&rep, 4, &t, &err))
            fwrite(t.data, 1, t.size, stdout);
        am_buf_free(&t);
    }
    FILE *said = json ? stderr : stdout;
    if (nf) {
        fprintf(said, "wrote %zu file%s in %s:", nf, nf == 1 ? "" : "s", out_dir);
        for (size_t i = 0; i < nf; i++)
            fprintf(said, " %s", am_str(&files[i]));
        fprintf(said, "\n");
    }
    if (!json && !verbose)
        printf("next: %s\n", out_dir ? "open the pose sheet; every figure and the thresholds are in the .report.txt"
                                      : "--out DIR for the pose sheet and the full report (or --verbose)");
    if (!rc)
        rc = rep.blockers ? AM_EXIT_INVALID : AM_EXIT_OK;
    am_string_list_free(files, nf);
    am_quality_free(&rep);
    am_bench_free(&bench);
out:
    am_report_input_free(&info);
    am_quality_poses_free(pose_list, pose_count);
    am_skeleton_free(&skel);
    return rc;
}
