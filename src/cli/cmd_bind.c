/* animesh bind MESH --skeleton-rig RIG.json|--like MODEL|--fit KIND --out DIR [--skin]:
 * automatic binding (src/bind) and its report, through am_report_bind_run (report/bind_run.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "report/bind_run.h"

static const char *help =
    "usage: animesh bind MESH (--skeleton-rig RIG.json | --like MODEL | --fit humanoid|quadruped)\n"
    "                    --out DIR [--method heat|segment] [--skin [--preview]] [--poses standard|FILE]\n"
    "                    [--up AXIS] [--forward AXIS] [--unit M] [--min-weight W]\n"
    "                    [--no-side-hygiene] [--no-proxy] [--threads N] [--joints MODE]\n"
    "                    [--skeleton FILE]\n\n"
    "Bind an unrigged mesh (OBJ, glTF/GLB, FBX, COLLADA: any file animesh imports) to stock\n"
    "joints, and write into DIR (all files replaced together, only when all are written):\n"
    "  NAME.rig.json            the rig, ready for 'animesh skin'\n"
    "  NAME.bind.json           every island of the mesh and the route that bound it, topology\n"
    "                           warnings (non-manifold edges, degenerate faces), timings\n"
    "  NAME.report.json/.txt    the quality report (see 'animesh report --help')\n"
    "  NAME_poses.png           the pose sheet; NAME_closeup_N_JOINT.png the worst joints\n"
    "  NAME_placement.png       with --fit: the joints found, to check and correct\n"
    "  NAME.llmesh .dae .meshdata.json   with --skin: the whole skin output ('animesh skin')\n"
    "  NAME.preview.html        with --skin --preview: the skin in a browser ('animesh preview')\n\n"
    "The joints:\n"
    "  --skeleton-rig FILE  stock joints with world positions: the creature skeleton shape\n"
    "                       {\"joints\": [{\"name\", \"parent\", \"head\", \"tail\"}]} or a rig's\n"
    "                       {\"joints\": [{\"name\", \"world\"}]} (bone = joint to its first child)\n"
    "  --like MODEL         the joints of another model rigged to the viewer skeleton\n"
    "  --fit KIND           place stock joints inside the mesh from its shape (humanoid in a\n"
    "                       T or A pose, or a standing quadruped; Z up, facing +X)\n"
    "Method:\n"
    "  --method heat        bone heat (default): each vertex heated by its nearest visible bone,\n"
    "                       one sparse Cholesky factorisation for every bone\n"
    "  --method segment     inverse distance to the nearest bone segments\n"
    "Never silent: each island holding a bone is solved, one holding none (an eye, a ring) is\n"
    "bound rigidly to its nearest visible bone; an island left with unweighted vertices or an\n"
    "empty major bone is bound again on a watertight voxel proxy. At most 4 influences per\n"
    "vertex (smooth cut), weights under --min-weight (default 0.01) dropped, a Left bone's\n"
    "weight removed right of the midline (and vice versa; --no-side-hygiene keeps it), sums 1.\n"
    "Frame: --up/--forward take +x -x +y -y +z -z (default: what the file declares, else Z up,\n"
    "forward +X, or +Z for a Y-up file); --unit M metres per file unit (default declared, else read\n"
    "from the stature as import does: 180 units tall is centimetres; said in the output).\n"
    "  --joints MODE        what the report's pose sheet draws over the mesh: none, dots, names or\n"
    "                       auto (default: small dots up to 25 weighted joints, none past that)\n"
    "  --threads N          threads for the ray tests, the quality poses and the report's pictures\n"
    "                       (default: every core; loading libraries and writing the rig's JSON run\n"
    "                       beside them), and the factorisation's BLAS threads (default 1: measured\n"
    "                       faster than more on shared cores)\n"
    "Exit 0 ok; 1 invalid input or the report has a blocker; 2 usage; 3 I/O.\n";

static void on_progress(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "animesh bind: %s\n", line);
}

int am_cmd_bind(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    am_report_bind_job job;
    memset(&job, 0, sizeof job);
    am_bind_options_init(&job.bind);
    job.progress = on_progress;
    const char *skel_path = NULL, *poses = NULL;
    int sources = 0;
    static const am_cli_opt lopts[] = {
        {"skeleton-rig", required_argument, 'r', 0},
        {"like", required_argument, 'l', 0},
        {"fit", required_argument, 'f', 0},
        {"method", required_argument, 'm', 0},
        {"out", required_argument, 'o', 'o'},
        {"skin", no_argument, 'k', 0},
        {"preview", no_argument, 'V', 0},
        {"poses", required_argument, 'p', 0},
        {"up", required_argument, 'u', 0},
        {"forward", required_argument, 'w', 0},
        {"unit", required_argument, 'n', 0},
        {"min-weight", required_argument, 'g', 0},
        {"no-side-hygiene", no_argument, 'y', 0},
        {"no-proxy", no_argument, 'x', 0},
        {"threads", required_argument, 't', 0},
        {"joints", required_argument, 'J', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c, rc;
    long v;
    double d;
    am_cli_opts op;
    am_cli_opts_begin(&op, "bind", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        if ((rc = am_cli_frame_option("bind", c, op.arg, &job.frame)) >= 0) {
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case 'r': job.skeleton_from = AM_SKELETON_RIG; job.skeleton_path = op.arg; sources++; break;
        case 'l': job.skeleton_from = AM_SKELETON_LIKE; job.skeleton_path = op.arg; sources++; break;
        case 'f':
            if (!am_fit_kind_parse(op.arg, &job.fit))
                return am_cli_usage("bind", "--fit: expected humanoid or quadruped, got '%s'", op.arg);
            job.skeleton_from = AM_SKELETON_FIT;
            sources++;
            break;
        case 'm':
            if (strcmp(op.arg, "heat") == 0)
                job.bind.method = AM_BIND_HEAT;
            else if (strcmp(op.arg, "segment") == 0)
                job.bind.method = AM_BIND_SEGMENT;
            else
                return am_cli_usage("bind", "--method: expected heat or segment, got '%s'", op.arg);
            break;
        case 'o': job.out_dir = op.arg; break;
        case 'k': job.skin = true; break;
        case 'V': job.preview = true; break;
        case 'p': poses = op.arg; break;
        case 'g':
            if (!am_cli_parse_double(op.arg, &d) || d < 0 || d >= 0.5)
                return am_cli_usage("bind", "--min-weight: expected a number in 0..0.5, got '%s'", op.arg);
            job.bind.min_weight = d > 0 ? d : AM_OPTION_ZERO; /* 0 is a choice here */
            break;
        case 'y': job.bind.no_side_hygiene = true; break;
        case 'x': job.bind.no_proxy = true; break;
        case 't':
            if (!am_cli_parse_long(op.arg, 1, 64, &v))
                return am_cli_usage("bind", "--threads: expected an integer in 1..64, got '%s'", op.arg);
            job.bind.threads = (int)v;
            break;
        case 's': skel_path = op.arg; break;
        case 'J':
            if (!am_render_joints_parse(op.arg, &job.joints))
                return am_cli_usage("bind", "--joints: expected none, dots, names or auto, got '%s'", op.arg);
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("bind", "expected exactly one MESH");
    if (sources != 1)
        return am_cli_usage("bind", "give the joints once: --skeleton-rig FILE, --like MODEL or --fit KIND");
    if (!job.out_dir)
        return am_cli_usage("bind", "--out DIR is required");
    if (job.preview && !job.skin)
        return am_cli_usage("bind", "--preview needs --skin (the page shows the written skin)");
    job.mesh_path = argv[op.first];

    am_error err;
    am_error_clear(&err);
    am_quality_pose *pose_list = NULL;
    rc = am_cli_load_poses(poses, &pose_list, &job.pose_count, &err);
    if (rc)
        return rc == AM_EXIT_USAGE ? am_cli_usage("bind", "%s", err.msg) : am_cli_report(&err);
    job.poses = pose_list;
    char viewer_path[4096]; /* found now (its errors first); loaded while the mesh is read */
    if (am_skeleton_locate(skel_path, viewer_path, sizeof viewer_path, &err)) {
        am_quality_poses_free(pose_list, job.pose_count);
        return am_cli_report(&err);
    }
    job.viewer_path = viewer_path;
    am_report_bind_result *res = calloc(1, sizeof *res);
    if (!res) {
        am_fail_nomem(&err, "bind");
        rc = am_cli_report(&err);
    } else if (am_report_bind_run(&job, NULL, res, &err)) {
        rc = am_cli_report(&err);
    } else {
        const am_bind_result *r = &res->bind;
        printf("%s: %zu vertices bound to %zu joints (%s) in %.3f s\n", am_str(&res->name), r->vertex_count,
               r->joint_count, am_bind_method_name(r->method), r->seconds_total);
        am_cli_print_flags(stdout, "frame: %s\nskeleton: %s\n", am_str(&res->conversion),
                           am_str(&res->skeleton_note));
        for (size_t k = 0; k < r->island_count && k < 32; k++)
            printf("  island %zu: %zu welded vertices, route %s: %s\n", k, r->islands[k].vertex_count,
                   am_bind_route_name(r->islands[k].route), am_str(&r->islands[k].why));
        if (r->island_count > 32)
            printf("  ... %zu more islands (NAME.bind.json)\n", r->island_count - 32);
        for (size_t i = 0; i < r->warning_count; i++)
            am_cli_print_flags(stderr, "animesh bind: warning: %s\n", am_str(&r->warnings[i]));
        for (size_t i = 0; i < res->warning_count; i++)
            am_cli_print_flags(stderr, "animesh bind: warning: %s\n", am_str(&res->warnings[i]));
        am_cli_print_quality_summary(&res->quality);
        for (size_t i = 0; i < res->file_count; i++)
            printf("wrote %s/%s\n", job.out_dir, am_str(&res->files[i]));
        rc = res->quality.blockers ? AM_EXIT_INVALID : AM_EXIT_OK;
        am_report_bind_run_free(res);
    }
    free(res);
    am_quality_poses_free(pose_list, job.pose_count);
    return rc;
}
