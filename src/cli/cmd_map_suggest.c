/* animesh map suggest: a joint map from names and topology, with a confidence and the
 * reason for every joint (src/map/map_suggest.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "core/io.h"
#include "core/text.h"
#include "map/body_plan.h"
#include "map/map_suggest.h"
#include "readers/scene_load.h"

static const char *help =
    "usage: animesh map suggest MODEL|BVH [--out MAP.json] [--json] [--map MAP.json]\n"
    "                           [--up AXIS] [--forward AXIS] [--scale S] [--skeleton FILE]\n\n"
    "Propose which stock viewer joint each of the model's joints should drive, from the joint\n"
    "names (Mixamo, Rigify DEF-, Blender .L/.R, _l/_r, Left/Right, L_/R_, CMU and MotionBuilder\n"
    "BVH, Unreal, Daz, 3ds Max Bip01) AND the rig's topology (the pair of legs hanging from the\n"
    "pelvis, the spine to the chest, arms or forelegs, wings, neck and head, tail, fingers),\n"
    "with a confidence (0..1) and the reason for each. Left and right come from the side of the\n"
    "body the joint is on (viewer +Y after the axis conversion), not only from the name. The\n"
    "map keeps every rig chain a viewer chain and stays within 110 joints. A weighted joint\n"
    "nothing places is embedded by the fallback into a free viewer chain, ancestry kept (its\n"
    "reason starts \"fallback:\": a guess); joints left unmapped have their weights moved to\n"
    "their nearest mapped ancestor (named; a warning when they carry weight).\n"
    "It also names the body plan (biped, quadruped, winged, serpent or other) and the chains\n"
    "that show it (legs, forelegs, hind legs, arms, wings, tail; docs/map.md \"Body plans\").\n\n"
    "  --out MAP.json   write the map ({\"joints\", \"rig_parents\", \"confidence\", \"reasons\"});\n"
    "                   animesh import, anim from-bvh and map check read it\n"
    "  --json           print the report as JSON on stdout\n"
    "  --map MAP.json   your map over any part of the suggestion (\"joint\": \"-\" leaves it unmapped)\n"
    "  --up AXIS        the file axis that points up (+X -X +Y -Y +Z -Z); default: detected\n"
    "  --forward AXIS   the file axis the model faces; default: detected\n"
    "  --scale S        metres per file unit; default: detected from the stature\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n\n"
    "Joints without a unique name are written as #N (N = the node's index in the file).\n"
    "Exit 0 with the table; 1 when the model cannot be read as a rig, the axes are ambiguous\n"
    "(the message names what, and which option settles it) or the map fails its check.\n";

static void print_table(const am_scene *s, const am_body *body, const am_axes *ax, const am_map_suggestion *sug,
                        const am_skeleton *skel, const char *model)
{
    /* Names come from the file: control characters shown as \xNN, never sent (core/text.h). */
    char a[1024], b[2048];
    size_t skinned = 0;
    for (size_t i = 0; i < s->mesh_count; i++)
        skinned += s->meshes[i].skin >= 0;
    if (!skinned) /* a motion-only file: its skeleton and clips, no mesh, no weights */
        printf("%s: a motion-only file (no skinned mesh): a skeleton of %zu joints, %zu clip%s; the map drives its "
               "motions (import MODEL --anim FILE, anim from-model FILE)\n",
               am_text_shown(model, a, sizeof a), sug->count, s->clip_count, s->clip_count == 1 ? "" : "s");
    printf("%s: %zu joints; axes: %s\n", am_text_shown(model, a, sizeof a), sug->count, ax->report);
    am_body_plan plan;
    am_body_plan_classify(s, body, ax, sug, skel, &plan);
    printf("body plan: %s (%s)\n", am_body_plan_label(plan.kind), am_text_shown(am_str(&plan.evidence), b, sizeof b));
    am_body_plan_free(&plan);
    for (size_t i = 0; i < ax->conflict_count; i++)
        am_cli_print_flags(stdout, "  warning: %s\n", ax->conflicts[i]);
    printf("naming convention: %s\n",
           !am_string_empty(&sug->convention) ? am_str(&sug->convention) : "none recognised (topology only)");
    for (size_t j = 0; j < sug->count; j++) {
        const am_map_joint *mj = &sug->joints[j];
        if (mj->target >= 0)
            am_cli_print_flags(stdout, "  %-28s -> %-20s %.2f  %s\n", am_text_shown(am_str(&mj->rig_name), a, sizeof a),
                   skel->joints[mj->target].name, mj->confidence, am_text_shown(am_str(&mj->reason), b, sizeof b));
        else
            am_cli_print_flags(stdout, "  %-28s    %-20s       %s\n", am_text_shown(am_str(&mj->rig_name), a, sizeof a),
                               "(unmapped)", am_text_shown(am_str(&mj->reason), b, sizeof b));
    }
    for (size_t i = 0; i < sug->note_count; i++)
        am_cli_print_flags(stdout, "  note: %s\n", am_text_shown(am_str(&sug->notes[i]), b, sizeof b));
    for (size_t i = 0; i < sug->warning_count; i++)
        am_cli_print_flags(stdout, "  warning: %s\n", am_text_shown(am_str(&sug->warnings[i]), b, sizeof b));
    if (sug->fallback_count)
        printf("%zu of %zu joints mapped (%zu by the fallback: guessed, marked \"fallback:\")\n", sug->mapped,
               sug->count, sug->fallback_count);
    else
        printf("%zu of %zu joints mapped\n", sug->mapped, sug->count);
}

/* No map (ambiguous axes, too many joints): the body plan still says what the skeleton is,
 * read without axes (up where the legs hang). */
static void print_plan_alone(const am_scene *s, const am_skeleton *skel)
{
    am_body body;
    am_error e;
    am_error_clear(&e);
    if (am_body_analyse(s, &body, &e))
        return;
    am_body_plan plan;
    am_body_plan_classify(s, &body, NULL, NULL, skel, &plan);
    char b[2048];
    fprintf(stderr, "body plan: %s (%s)\n", am_body_plan_label(plan.kind),
            am_text_shown(am_str(&plan.evidence), b, sizeof b));
    am_body_plan_free(&plan);
    am_body_free(&body);
}

int am_cmd_map_suggest(int argc, char **argv)
{
    const char *skel_path = NULL, *out_path = NULL, *map_path = NULL;
    bool json = false;
    am_axes_options ao = {0};
    am_error err;
    am_error_clear(&err);
    static const am_cli_opt opts[] = {
        {"skeleton", required_argument, 's', 0},
        {"out", required_argument, 'o', 0},
        {"json", no_argument, 'j', 0},
        {"map", required_argument, 'm', 0},
        {"up", required_argument, 'u', 0},
        {"forward", required_argument, 'f', 0},
        {"scale", required_argument, 'c', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "map suggest", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        case 'o': out_path = op.arg; break;
        case 'j': json = true; break;
        case 'm': map_path = op.arg; break;
        case 'u':
        case 'f':
            if (am_axes_parse(op.arg, c == 'u' ? &ao.up : &ao.forward, &err))
                return am_cli_usage("map suggest", "--%s: %s", c == 'u' ? "up" : "forward", err.msg);
            break;
        case 'c':
            if (!am_cli_parse_double(op.arg, &ao.scale) || !(ao.scale > 0))
                return am_cli_usage("map suggest", "--scale needs a positive number of metres per unit, got '%s'",
                                    op.arg);
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("map suggest", "expected exactly one MODEL or BVH file");
    const char *model = argv[op.first];
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    am_joint_map user;
    bool have_user = false;
    if (map_path) {
        if (am_joint_map_load(map_path, &user, &err)) {
            am_skeleton_free(&skel);
            return am_cli_report(&err);
        }
        have_user = true;
    }
    char shown[1024];
    fprintf(stderr, "reading %s\n", am_text_shown(model, shown, sizeof shown));
    am_scene scene;
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    int rc = AM_EXIT_OK;
    am_status st = am_scene_load(model, &scene, &err);
    if (!st) {
        st = am_map_suggest_scene(&scene, &skel, &ao, have_user ? &user : NULL, &body, &axes, &sug, &err);
        if (st && !err.where[0]) /* a --map entry's error names the map instead */
            am_error_where(&err, "%s", model);
        if (st)
            print_plan_alone(&scene, &skel);
    }
    if (!st) {
        am_buf buf = {0};
        if (out_path) {
            if (!(st = am_map_suggestion_write_json(&sug, &body, &skel, &buf, &err)))
                st = am_write_file_atomic(out_path, buf.data, buf.size, &err);
            am_buf_free(&buf);
        }
        if (!st && json) {
            if (!(st = am_map_suggestion_report_json(&scene, &body, &axes, &sug, &skel, &buf, &err)))
                fwrite(buf.data, 1, buf.size, stdout);
            am_buf_free(&buf);
        } else if (!st) {
            print_table(&scene, &body, &axes, &sug, &skel, model);
        }
        if (!st && out_path)
            fprintf(json ? stderr : stdout, "wrote %s\n", out_path);
        am_map_suggestion_free(&sug);
        am_body_free(&body);
    }
    if (st)
        rc = am_cli_report(&err);
    am_scene_free(&scene);
    if (have_user)
        am_joint_map_free(&user);
    am_skeleton_free(&skel);
    return rc;
}
