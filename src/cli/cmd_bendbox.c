#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bendbox/bendbox.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"

static const char *help =
    "usage: animesh bendbox --out DIR [--bench] [--preview] [--json] [--skeleton FILE]\n\n"
    "Build the bend box (the two-bone smoke test): a 4 x 2 x 1 m box of 1 m squares whose\n"
    "+X half folds up 0 -> 90 -> 0 degrees about Y over a 6 s loop. Writes into DIR:\n"
    "  bendbox.rig.json        the rig (input of the skin builder)\n"
    "  bendbox_atlas.png       orientation atlas: one colour per face (+X red), labels, arrows\n"
    "  bendbox_atlas.j2c       the atlas as a lossless JPEG-2000 code stream (texture upload)\n"
    "  bendbox.llmesh          mesh asset with skin and joint-position overrides\n"
    "  bendbox.dae             COLLADA for the viewer's uploader (include joint positions)\n"
    "  bendbox.meshdata.json   WorldBridge meshdata\n"
    "  bendbox_fold.anim       the fold: priority 4, looping, ease 0, loop guard checked\n"
    "With --bench, reads the WRITTEN .llmesh and .anim back, poses them the viewer's way and\n"
    "checks: rest error < 1e-4 m, tip (x >= 1) rigidity at 90 deg < 1e-4 m, the x = +2 end's\n"
    "centre at 90 deg within 1e-3 m of [0, 0, 2] from the hinge (also at t = 0, 1.5, 6 s),\n"
    "the -X half still; and renders fold_side.png (7 frames) and rest_front.png.\n\n"
    "Placement: the hinge sits at mPelvis's rest position (0, 0, 1.067) in the bind frame, so\n"
    "in-world the box hangs centred on the prim (prim frame = bind frame - (0, 0, 1.067)).\n\n"
    "  --out DIR        output directory (created)\n"
    "  --bench          run the bench on the written files and render the PNGs\n"
    "  --preview        also bendbox.preview.html: the fold in a browser (animesh preview)\n"
    "  --json           print the report as JSON on stdout (progress goes to stderr)\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n\n"
    "Exit codes: 0 built (and every check passed), 1 a check failed, 2 usage, 3 I/O error.\n";

static void print_progress(void *user, const char *line)
{
    fprintf((FILE *)user, "%s\n", line);
    fflush((FILE *)user);
}

static void print_summary(const am_bendbox_report *rep)
{
    printf("\nfiles written:\n");
    for (size_t i = 0; i < rep->file_count; i++)
        printf("  %-48s %9zu bytes  %s\n", rep->files[i].path, rep->files[i].bytes, rep->files[i].what);
    if (rep->temps_swept)
        printf("  (removed %zu temporary file%s left by an interrupted run)\n", rep->temps_swept,
               rep->temps_swept == 1 ? "" : "s");
    for (size_t i = 0; i < rep->removed_count; i++)
        printf("  removed %s (the previous run's, not written by this one)\n", rep->removed[i]);
    for (size_t i = 0; i < rep->left_count; i++)
        fprintf(stderr, "animesh: warning: %s\n", rep->left[i]);
    if (!rep->benched) {
        printf("\n(run with --bench to measure the written files)\n");
        return;
    }
    const am_bendbox_fold_sample *peak = &rep->fold[2];
    printf("\nbench (read back from the written files; hinge = bind (0, 0, %.3f) = prim (%.4f, %.4f, %.4f)):\n",
           AM_BENDBOX_HINGE_Z, rep->hinge_prim.x, rep->hinge_prim.y, rep->hinge_prim.z);
    printf("  tip end centre at 90 deg: from hinge (%.4f, %.4f, %.4f); bind frame (%.4f, %.4f, %.4f); "
           "prim frame (%.4f, %.4f, %.4f)\n",
           peak->tip_centre_hinge.x, peak->tip_centre_hinge.y, peak->tip_centre_hinge.z, peak->tip_centre_bind.x,
           peak->tip_centre_bind.y, peak->tip_centre_bind.z, peak->tip_centre_prim.x, peak->tip_centre_prim.y,
           peak->tip_centre_prim.z);
    for (size_t i = 0; i < rep->check_count; i++) {
        const am_bendbox_check *c = &rep->checks[i];
        printf("  %-4s %-42s %.3e  (limit %.0e)\n", c->pass ? "PASS" : "FAIL", c->name, c->value, c->limit);
    }
    printf("\n%s\n", rep->all_pass ? "bend box: all checks passed" : "bend box: CHECK FAILED");
}

int am_cmd_bendbox(int argc, char **argv)
{
    const char *out_dir = NULL, *skel_path = NULL;
    bool bench = false, json = false, preview = false;
    static const am_cli_opt opts[] = {
        {"out", required_argument, 'o', 'o'},
        {"bench", no_argument, 'b', 0},
        {"json", no_argument, 'j', 0},
        {"preview", no_argument, 'p', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    if (am_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return AM_EXIT_OK;
    }
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "bendbox", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'o': out_dir = op.arg; break;
        case 'b': bench = true; break;
        case 'j': json = true; break;
        case 'p': preview = true; break;
        case 's': skel_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc)
        return am_cli_usage("bendbox", "unexpected argument '%s'", argv[op.first]);
    if (!out_dir)
        return am_cli_usage("bendbox", "missing --out DIR");

    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    FILE *log = json ? stderr : stdout;
    am_bendbox_options bo = {out_dir, &skel, bench, print_progress, log, preview};
    am_bendbox_report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        am_skeleton_free(&skel);
        am_fail_nomem(&err, "report");
        return am_cli_report(&err);
    }
    int rc = AM_EXIT_OK;
    if (am_bendbox_run(&bo, rep, &err)) {
        rc = am_cli_report(&err);
    } else if (json) {
        am_buf b = {0};
        if (am_bendbox_report_json(rep, out_dir, &b, &err))
            rc = am_cli_report(&err);
        else
            fwrite(b.data, 1, b.size, stdout);
        am_buf_free(&b);
    } else {
        print_summary(rep);
    }
    if (rc == AM_EXIT_OK && !rep->all_pass)
        rc = AM_EXIT_INVALID;
    free(rep);
    am_skeleton_free(&skel);
    return rc;
}
