/* animesh oar: an OpenSim archive holding one animesh object, ready for `load oar --merge`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "world/oar.h"
#include "world/oar_check.h"
#include "world/oar_files.h"

static const char *help =
    "usage: animesh oar --mesh NAME.llmesh [--texture T.j2c] --anim NAME=FILE.anim ...\n"
    "                   [--play NAME] [--at X,Y,Z] [--scale X,Y,Z] [--object-name S] [--color R,G,B]\n"
    "                   [--skeleton FILE] [--allow-unknown-joints] [--salt S] -o CREATURE.oar\n\n"
    "Write an OpenSim archive (OAR 0.8) holding one animesh object: a mesh prim with the\n"
    "animated-mesh flag, the texture on its default face, each animation in its inventory\n"
    "and, with --play, a script that starts that animation when the object is rezzed.\n"
    "Load it on a region with `load oar --merge CREATURE.oar` or `animesh push --remote-admin`.\n"
    "Asset and object UUIDs derive from the content and the archive's dates from\n"
    "SOURCE_DATE_EPOCH (default 0), so the same inputs give byte-identical archives. The\n"
    "archive is read back and checked completely (gzip and tar whole, every asset decodes and\n"
    "matches its UUID) before it is written.\n\n"
    "  --mesh FILE         the mesh asset (.llmesh); it is decoded and must carry a skin\n"
    "  --texture FILE      a JPEG-2000 code stream (.j2c)\n"
    "  --anim NAME=FILE    an animation, stored under NAME (repeatable)\n"
    "  --play NAME         start this animation on state_entry and on_rez\n"
    "  --at X,Y,Z          region position in metres (default 128,128,25)\n"
    "  --scale X,Y,Z       prim scale (default 1,1,1; the viewer ignores it for animesh)\n"
    "  --object-name S     object name (default \"animesh\")\n"
    "  --color R,G,B       tint of the default face, 0..1 each (the rig's material rgb; the\n"
    "                      .llmesh carries no colour; default white)\n"
    "  --skeleton FILE     check animation joint names against the viewer skeleton\n"
    "  --allow-unknown-joints  keep an animation that animates joints the viewer does not\n"
    "                      have (dropped in-world; a warning names the file; default refused)\n"
    "  --salt S            derive other UUIDs (1..64 of A-Z a-z 0-9 . _ -; recorded in\n"
    "                      archive.xml): a grid keeps the first copy it stored under a UUID, so\n"
    "                      after a damaged load (a cut-short archive) only new UUIDs get the\n"
    "                      creature in whole; any new salt does, e.g. the date\n"
    "  -o FILE             the archive to write (atomically)\n\n"
    "Exit codes: 0 written, 1 invalid input, 2 usage, 3 I/O error.\n";

/* What was written: the object's entry and every UUID, as the archive holds them. */
static void print_written(const char *out, const am_oar_files *f, const am_oar_input *in, const am_oar_files_report *rep)
{
    const am_oar_plan *plan = &rep->plan;
    char u[37];
    printf("wrote %s\n", out);
    printf("  %s\n", am_str(&rep->object_path));
    am_uuid_format(&plan->mesh, u);
    printf("  mesh %s\n", u);
    if (plan->has_texture) {
        am_uuid_format(&plan->texture, u);
        printf("  texture %s\n", u);
    }
    for (size_t i = 0; i < f->anim_count; i++) {
        am_uuid_format(&plan->anim_assets[i], u);
        printf("  animation %s %s\n", f->anim_names[i], u);
    }
    if (plan->has_script) {
        am_uuid_format(&plan->script, u);
        printf("  script (plays %s) %s\n", in->play, u);
    }
    if (in->uuid_salt)
        printf("  UUID salt %s\n", in->uuid_salt);
    const am_oar_check_report *c = &rep->check;
    size_t assets = c->meshes + c->animations + c->textures + c->scripts;
    printf("  checked: read back whole, %zu asset%s decode and match their UUIDs\n", assets, assets == 1 ? "" : "s");
}

/* The command with its --anim lists: names and paths hold room for argc of each (no more
 * --anim than arguments). */
static int oar_run(int argc, char **argv, const char **names, const char **paths)
{
    const char *mesh = NULL, *texture = NULL, *play = NULL, *object_name = NULL, *out = NULL, *skel_path = NULL;
    am_oar_input in;
    memset(&in, 0, sizeof in);
    in.position[0] = 128;
    in.position[1] = 128;
    in.position[2] = 25;
    am_oar_files f;
    memset(&f, 0, sizeof f);
    f.anim_names = names;
    f.anim_paths = paths;
    enum { O_MESH = 256, O_TEXTURE, O_ANIM, O_PLAY, O_AT, O_SCALE, O_NAME, O_SKEL, O_ALLOW_UNKNOWN, O_COLOR, O_SALT };
    bool allow_unknown_joints = false;
    static const am_cli_opt opts[] = {
        {"mesh", required_argument, O_MESH, 0},
        {"texture", required_argument, O_TEXTURE, 0},
        {"anim", required_argument, O_ANIM, 0},
        {"play", required_argument, O_PLAY, 0},
        {"at", required_argument, O_AT, 0},
        {"scale", required_argument, O_SCALE, 0},
        {"object-name", required_argument, O_NAME, 0},
        {"skeleton", required_argument, O_SKEL, 0},
        {"allow-unknown-joints", no_argument, O_ALLOW_UNKNOWN, 0},
        {"color", required_argument, O_COLOR, 0},
        {"salt", required_argument, O_SALT, 0},
        {"output", required_argument, 'o', 'o'}};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "oar", NULL, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_MESH: mesh = op.arg; break;
        case O_TEXTURE: texture = op.arg; break;
        case O_ANIM: {
            char *eq = strchr(op.arg, '=');
            if (!eq || eq == op.arg || !eq[1])
                return am_cli_usage("oar", "--anim expects NAME=FILE.anim, got '%s'", op.arg);
            *eq = '\0';
            am_error nerr;
            if (am_oar_check_name("--anim", op.arg, &nerr))
                return am_cli_usage("oar", "%s", nerr.msg);
            for (size_t i = 0; i < f.anim_count; i++)
                if (strcmp(names[i], op.arg) == 0)
                    return am_cli_usage("oar", "two --anim are named '%s'", op.arg);
            names[f.anim_count] = op.arg;
            paths[f.anim_count++] = eq + 1;
            break;
        }
        case O_PLAY: play = op.arg; break;
        case O_ALLOW_UNKNOWN: allow_unknown_joints = true; break;
        case O_COLOR:
            if (!am_cli_parse_xyz(op.arg, in.color) || in.color[0] < 0 || in.color[0] > 1 || in.color[1] < 0 ||
                in.color[1] > 1 || in.color[2] < 0 || in.color[2] > 1)
                return am_cli_usage("oar", "--color expects R,G,B each 0..1 (the rig's material rgb), got '%s'", op.arg);
            in.has_color = true;
            break;
        case O_AT:
            if (!am_cli_parse_xyz(op.arg, in.position))
                return am_cli_usage("oar", "--at expects X,Y,Z in metres, got '%s'", op.arg);
            break;
        case O_SCALE:
            if (!am_cli_parse_xyz(op.arg, in.scale) || !(in.scale[0] > 0 && in.scale[1] > 0 && in.scale[2] > 0))
                return am_cli_usage("oar", "--scale expects three positive numbers X,Y,Z, got '%s'", op.arg);
            break;
        case O_NAME: {
            am_error nerr;
            if (op.arg[0] && am_oar_check_name("--object-name", op.arg, &nerr))
                return am_cli_usage("oar", "%s", nerr.msg);
            object_name = op.arg;
            break;
        }
        case O_SKEL: skel_path = op.arg; break;
        case O_SALT: {
            am_error serr;
            if (am_oar_check_salt(op.arg, &serr))
                return am_cli_usage("oar", "--salt: %s", serr.msg);
            in.uuid_salt = op.arg;
            break;
        }
        case 'o': out = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc)
        return am_cli_usage("oar", "unexpected argument '%s'", argv[op.first]);
    if (!mesh)
        return am_cli_usage("oar", "--mesh NAME.llmesh is required");
    if (!out)
        return am_cli_usage("oar", "-o CREATURE.oar is required");
    if (play) {
        bool known = false;
        for (size_t i = 0; i < f.anim_count; i++)
            known |= strcmp(names[i], play) == 0;
        if (!known)
            return am_cli_usage("oar", "--play %s names no --anim", play);
    }
    long long epoch = 0;
    if (!am_cli_source_date_epoch(&epoch))
        return am_cli_usage("oar", "SOURCE_DATE_EPOCH must be a number of seconds, got '%s'", getenv("SOURCE_DATE_EPOCH"));
    in.creation_time = epoch;

    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    bool have_skel = false;
    if (skel_path || getenv("ANIMESH_SKELETON") || getenv("ANIMESH_VIEWER_DIR")) {
        if (am_cli_load_skeleton(skel_path, &skel, &err))
            return am_cli_report(&err);
        have_skel = true;
    }
    f.mesh_path = mesh;
    f.texture_path = texture;
    f.skel = have_skel ? &skel : NULL;
    f.allow_unknown_joints = allow_unknown_joints;
    in.play = play;
    in.object_name = object_name;
    am_oar_files_report rep; /* freed at the end: a failed write after a good plan must not leak it */
    am_status st = am_oar_write_files(&f, &in, out, &rep, &err);
    for (size_t i = 0; i < f.anim_count; i++)
        if (rep.unknown_joints && rep.unknown_joints[i])
            fprintf(stderr, "%s: warning: %zu joint(s) not in the viewer's skeleton: the viewer drops them in-world "
                            "(an upload would refuse the file); see animesh anim check\n", f.anim_paths[i],
                    rep.unknown_joints[i]);
    int rc = st ? am_cli_report(&err) : AM_EXIT_OK;
    if (!st)
        print_written(out, &f, &in, &rep);
    am_oar_files_report_free(&rep);
    if (have_skel)
        am_skeleton_free(&skel);
    return rc;
}

int am_cmd_oar(int argc, char **argv)
{
    if (am_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return AM_EXIT_OK;
    }
    size_t room = argc > 0 ? (size_t)argc : 1;
    const char **names = calloc(room, sizeof *names), **paths = calloc(room, sizeof *paths);
    int rc;
    if (!names || !paths) {
        fprintf(stderr, "animesh oar: out of memory\n");
        rc = AM_EXIT_IO;
    } else
        rc = oar_run(argc, argv, names, paths);
    free(names);
    free(paths);
    return rc;
}
