/* animesh skin RIG.json --out DIR: the rig -> .llmesh + .dae + .meshdata.json (skin_build.h);
 * animesh skin compare ...: dispatched to the mesh module's comparison command. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "preview/preview.h"

static const char *help =
    "usage: animesh skin RIG.json --out DIR [--max-tris N|auto|none] [--region-max-tris N]\n"
    "                    [--face-vertex-limit N] [--meshdata] [--skeleton FILE]\n"
    "       animesh skin compare ...   (compare two skin blocks; see 'animesh skin compare --help')\n\n"
    "Build the animesh skin of a rig (docs/rig-json.md) against the viewer's skeleton and\n"
    "write into DIR, as one set (each file to a temp file first, all renamed together when\n"
    "all are complete; temp files a killed run left are removed):\n"
    "  NAME.llmesh          the mesh asset: 4 LODs (meshoptimizer), weights, skin block with\n"
    "                       inverse binds and joint-position overrides\n"
    "  NAME.dae             COLLADA for the viewer's uploader (\"include joint positions\")\n"
    "  NAME.meshdata.json   WorldBridge meshdata (one-face skins only: WorldBridge writes\n"
    "                       weights into submesh 0 only; a skin that needs several faces is\n"
    "                       written without it, with a warning saying what to do)\n"
    "Joints are resolved by name (aliases allowed, unknown names refused), missing viewer\n"
    "ancestors are added, every override is the offset from the joint's VIEWER parent.\n"
    "A mesh bigger than 65531 vertices is split into at most 8 compact faces (by space and\n"
    "by dominant joint); one over the triangle budget is reduced to it first, weights kept.\n\n"
    "  --out DIR              output directory (created if missing)\n"
    "  --max-tris N|auto|none the high LOD's triangle budget: N; auto (default) what fits\n"
    "                         the region limit (the viewer's estimate from the compressed\n"
    "                         size) and 8 faces; none: never reduce. A budget that cannot\n"
    "                         fit is refused before the build, naming the number that does\n"
    "  --region-max-tris N    the region's AnimatedObjectMaxTris (default 150000, OpenSim's\n"
    "                         default; 0 disables the check)\n"
    "  --face-vertex-limit N  split faces above N vertices (default 65531, at most 65536)\n"
    "  --meshdata             the meshdata is required: the automatic budget fits one face,\n"
    "                         and a skin that still needs several is refused (exit 1)\n"
    "  --preview              also NAME.preview.html: the skin in a browser (animesh preview)\n"
    "  --skeleton FILE        the viewer's character/avatar_skeleton.xml\n\n"
    "Prints joints (and which carry overrides), faces (and the share of vertices written on\n"
    "two faces), what the budget removed, triangles per LOD, weight figures and the viewer's\n"
    "animesh triangle estimate and streaming cost (per LOD).\n"
    "Exit 0 ok (a multi-face skin too: the .llmesh and .dae are written, and an old\n"
    "NAME.meshdata.json is removed so it is never pushed with the new mesh); 1 invalid rig,\n"
    "a budget that cannot fit, over the region limit, or --meshdata on a multi-face skin;\n"
    "2 usage; 3 I/O.\n";

static void print_summary(const am_skin_summary *s)
{
    printf("%s: %zu joints (%zu from the rig + %zu viewer ancestors), %zu moved by overrides\n", am_str(&s->name),
           s->joint_count, s->rig_joint_count, s->appended_count, s->override_count);
    for (size_t i = 0; i < s->joint_count; i++) {
        const am_skin_joint_info *j = &s->joints[i];
        const char *parent = j->parent >= 0 ? am_str(&s->joints[j->parent].name) : "mRoot";
        printf("  %-16s under %-16s local (%8.4f, %8.4f, %8.4f)", am_str(&j->name), parent, j->alt_pos.x, j->alt_pos.y,
               j->alt_pos.z);
        if (j->overridden)
            printf("  OVERRIDE (default %.3f, %.3f, %.3f)", j->default_pos.x, j->default_pos.y, j->default_pos.z);
        else if (j->rig_joint < 0)
            printf("  added ancestor, default");
        else
            printf("  default");
        printf("\n");
    }
    if (s->tris_removed)
        printf("triangle budget %ld%s: %zu -> %zu triangles (%zu removed, %zu vertices dropped)\n", s->budget_tris,
               s->budget_auto ? " (automatic: what fits)" : "", s->tris_in, s->tris_in - s->tris_removed,
               s->tris_removed, s->vertices_removed);
    printf("faces %zu, vertices %zu (high LOD; %zu distinct, %.2f%% written on two faces)\n", s->face_count,
           s->vertex_count, s->unique_vertex_count, 100.0 * s->duplicated_share);
    printf("triangles per LOD: high %zu, medium %zu, low %zu, lowest %zu\n", s->lod_triangles[AM_LOD_HIGH],
           s->lod_triangles[AM_LOD_MEDIUM], s->lod_triangles[AM_LOD_LOW], s->lod_triangles[AM_LOD_LOWEST]);
    printf("weights: up to %zu influences per vertex written (rig up to %zu); %zu vertices over the 4-influence "
           "limit, %zu with an influence too small to store (%zu influences dropped); %zu renormalised\n",
           s->max_influences_out, s->max_influences_in, s->vertices_capped, s->vertices_small_dropped,
           s->influences_dropped, s->vertices_renormalised);
    if (s->cost_known) {
        printf("LOD bytes: high %zu, medium %zu, low %zu, lowest %zu; estimated triangles %.0f, %.0f, %.0f, %.0f\n",
               s->lod_bytes[AM_LOD_HIGH], s->lod_bytes[AM_LOD_MEDIUM], s->lod_bytes[AM_LOD_LOW],
               s->lod_bytes[AM_LOD_LOWEST], s->est_tris[AM_LOD_HIGH], s->est_tris[AM_LOD_MEDIUM],
               s->est_tris[AM_LOD_LOW], s->est_tris[AM_LOD_LOWEST]);
        printf("animesh triangle estimate %.0f", s->est_tris_max);
        if (s->region_max_tris > 0)
            printf(" (region limit %ld%s)", s->region_max_tris, s->over_region_limit ? ": OVER" : ": ok");
        printf("; streaming cost %.3f (viewer estimate of land impact: 15 + 1.5 per 1000 of %.0f charged "
               "triangles)\n",
               s->streaming_cost, s->streaming_tris);
    }
    if (!am_string_empty(&s->llmesh_path))
        printf("wrote %s\n", am_str(&s->llmesh_path));
    if (!am_string_empty(&s->dae_path))
        printf("wrote %s\n", am_str(&s->dae_path));
    if (!am_string_empty(&s->preview_path))
        printf("wrote %s\n", am_str(&s->preview_path));
    if (s->meshdata_written)
        printf("wrote %s\n", am_str(&s->meshdata_path));
    else if (!am_string_empty(&s->llmesh_path))
        printf("no meshdata: %zu faces (WorldBridge writes weights into submesh 0 only)\n", s->face_count);
    if (s->meshdata_removed)
        printf("removed %s: an old meshdata this run could not rewrite (it would not match the new mesh)\n",
               am_str(&s->meshdata_path));
    if (s->temps_swept)
        printf("removed %zu temporary file%s left in the output folder by an interrupted run\n", s->temps_swept,
               s->temps_swept == 1 ? "" : "s");
    for (size_t i = 0; i < s->warning_count; i++)
        am_cli_print_flags(stderr, "animesh skin: warning: %s\n", am_str(&s->warnings[i]));
}

int am_cmd_skin(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return am_cmd_skin_compare(argc - 1, argv + 1);
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    const char *skel_path = NULL, *out_dir = NULL;
    am_skin_options opts;
    am_skin_options_init(&opts);
    static const am_cli_opt lopts[] = {
        {"out", required_argument, 'o', 'o'},
        {"region-max-tris", required_argument, 'r', 0},
        {"face-vertex-limit", required_argument, 'f', 0},
        {"max-tris", required_argument, 't', 0},
        {"meshdata", no_argument, 'm', 0},
        {"preview", no_argument, 'p', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c;
    long v;
    am_cli_opts op;
    am_cli_opts_begin(&op, "skin", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'o': out_dir = op.arg; break;
        case 's': skel_path = op.arg; break;
        case 'r':
            if (!am_cli_parse_long(op.arg, 0, LONG_MAX, &v))
                return am_cli_usage("skin", "--region-max-tris: expected a non-negative integer, got '%s'", op.arg);
            opts.region_max_tris = v > 0 ? v : AM_OPTION_ZERO; /* 0: not checked */
            break;
        case 'f':
            if (!am_cli_parse_long(op.arg, 3, AM_MESH_MAX_FACE_VERTICES, &v))
                return am_cli_usage("skin", "--face-vertex-limit: expected an integer in 3..%d, got '%s'",
                                    AM_MESH_MAX_FACE_VERTICES, op.arg);
            opts.face_vertex_limit = (size_t)v;
            break;
        case 't':
            if (strcmp(op.arg, "auto") == 0)
                opts.max_tris = AM_SKIN_MAX_TRIS_AUTO;
            else if (strcmp(op.arg, "none") == 0)
                opts.max_tris = AM_SKIN_MAX_TRIS_NONE;
            else if (am_cli_parse_long(op.arg, 1, LONG_MAX, &v))
                opts.max_tris = v;
            else
                return am_cli_usage("skin", "--max-tris: expected a positive integer, auto or none, got '%s'", op.arg);
            break;
        case 'm': opts.require_meshdata = true; break;
        case 'p': opts.page = am_preview_skin_page; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("skin", "expected exactly one RIG.json");
    if (!out_dir)
        return am_cli_usage("skin", "--out DIR is required");

    am_error err;
    am_error_clear(&err);
    am_rig rig;
    if (am_rig_load(argv[op.first], &rig, &err))
        return am_cli_report(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err)) {
        am_rig_free(&rig);
        return am_cli_report(&err);
    }
    am_skin_summary *sum = calloc(1, sizeof *sum);
    int rc = AM_EXIT_OK;
    if (!sum) {
        am_fail_nomem(&err, "summary");
        rc = am_cli_report(&err);
    } else {
        am_status st = am_skin_export(&rig, &skel, &opts, out_dir, sum, &err);
        if (sum->joint_count)
            print_summary(sum);
        if (st == AM_ERR_INVALID) /* the rig is at fault: name its file (I/O errors name theirs) */
            am_error_where(&err, "%s", argv[op.first]);
        if (st)
            rc = am_cli_report(&err);
    }
    am_skin_summary_free(sum);
    free(sum);
    am_skeleton_free(&skel);
    am_rig_free(&rig);
    return rc;
}
