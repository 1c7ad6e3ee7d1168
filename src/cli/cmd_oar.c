/* animesh oar: an OpenSim archive holding one animesh object, ready for `load oar --merge`. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "anim/anim.h"
#include "mesh/mesh_asset.h"
#include "texture/texture.h"
#include "world/checks.h"
#include "world/oar.h"
#include "world/oar_check.h"

#define OAR_MAX_ANIMS 64

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
    "  --anim NAME=FILE    an animation, stored under NAME (repeatable, up to 64)\n"
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

typedef struct oar_files {
    uint8_t *mesh, *texture;
    size_t mesh_size, texture_size;
    am_oar_anim anims[OAR_MAX_ANIMS];
    const char *anim_paths[OAR_MAX_ANIMS];
    size_t anim_count;
} oar_files;

static void free_files(oar_files *f)
{
    free(f->mesh);
    free(f->texture);
    for (size_t i = 0; i < f->anim_count; i++)
        free((void *)f->anims[i].data);
}

static am_status check_inputs(const char *mesh_path, const char *texture_path, oar_files *f, const am_skeleton *skel,
                              bool allow_unknown_joints, am_error *err)
{
    am_mesh_asset asset;
    am_status s = am_mesh_asset_decode(f->mesh, f->mesh_size, &asset, err);
    if (!s) {
        bool skinned = asset.has_skin;
        am_mesh_asset_free(&asset);
        if (!skinned)
            s = am_fail(err, AM_ERR_INVALID, "the mesh has no skin block: an animesh needs a rigged mesh");
    }
    if (s) {
        am_error_where(err, "%s", mesh_path);
        return s;
    }
    if (f->texture && (s = am_world_check_texture(f->texture, f->texture_size, NULL, NULL, err))) {
        am_error_where(err, "%s", texture_path);
        return s;
    }
    for (size_t i = 0; i < f->anim_count; i++) {
        size_t unknown = 0;
        s = am_world_check_anim(f->anims[i].data, f->anims[i].size, skel, allow_unknown_joints, &unknown, err);
        if (s) {
            am_error_where(err, "%s", f->anim_paths[i]);
            return s;
        }
        if (unknown)
            fprintf(stderr, "%s: warning: %zu joint(s) not in the viewer's skeleton: the viewer drops them in-world "
                            "(an upload would refuse the file); see animesh anim check\n", f->anim_paths[i], unknown);
    }
    return AM_OK;
}

int am_cmd_oar(int argc, char **argv)
{
    if (am_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return AM_EXIT_OK;
    }
    const char *mesh = NULL, *texture = NULL, *play = NULL, *object_name = NULL, *out = NULL, *skel_path = NULL;
    am_oar_input in;
    memset(&in, 0, sizeof in);
    in.position[0] = 128;
    in.position[1] = 128;
    in.position[2] = 25;
    oar_files f;
    memset(&f, 0, sizeof f);
    const char *names[OAR_MAX_ANIMS];
    enum { O_MESH = 256, O_TEXTURE, O_ANIM, O_PLAY, O_AT, O_SCALE, O_NAME, O_SKEL, O_ALLOW_UNKNOWN, O_COLOR, O_SALT };
    bool allow_unknown_joints = false;
    static const struct option opts[] = {
        {"mesh", required_argument, 0, O_MESH},   {"texture", required_argument, 0, O_TEXTURE},
        {"anim", required_argument, 0, O_ANIM},   {"play", required_argument, 0, O_PLAY},
        {"at", required_argument, 0, O_AT},       {"scale", required_argument, 0, O_SCALE},
        {"object-name", required_argument, 0, O_NAME}, {"skeleton", required_argument, 0, O_SKEL},
        {"allow-unknown-joints", no_argument, 0, O_ALLOW_UNKNOWN}, {"color", required_argument, 0, O_COLOR},
        {"salt", required_argument, 0, O_SALT},   {"output", required_argument, 0, 'o'},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case O_MESH: mesh = optarg; break;
        case O_TEXTURE: texture = optarg; break;
        case O_ANIM: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1])
                return am_cli_usage("oar", "--anim expects NAME=FILE.anim, got '%s'", optarg);
            if (f.anim_count == OAR_MAX_ANIMS)
                return am_cli_usage("oar", "at most %d --anim", OAR_MAX_ANIMS);
            *eq = '\0';
            am_error nerr;
            if (am_oar_check_name("--anim", optarg, &nerr))
                return am_cli_usage("oar", "%s", nerr.msg);
            for (size_t i = 0; i < f.anim_count; i++)
                if (strcmp(names[i], optarg) == 0)
                    return am_cli_usage("oar", "two --anim are named '%s'", optarg);
            names[f.anim_count] = optarg;
            f.anim_paths[f.anim_count++] = eq + 1;
            break;
        }
        case O_PLAY: play = optarg; break;
        case O_ALLOW_UNKNOWN: allow_unknown_joints = true; break;
        case O_COLOR:
            if (!am_cli_parse_xyz(optarg, in.color) || in.color[0] < 0 || in.color[0] > 1 || in.color[1] < 0 ||
                in.color[1] > 1 || in.color[2] < 0 || in.color[2] > 1)
                return am_cli_usage("oar", "--color expects R,G,B each 0..1 (the rig's material rgb), got '%s'", optarg);
            in.has_color = true;
            break;
        case O_AT:
            if (!am_cli_parse_xyz(optarg, in.position))
                return am_cli_usage("oar", "--at expects X,Y,Z in metres, got '%s'", optarg);
            break;
        case O_SCALE:
            if (!am_cli_parse_xyz(optarg, in.scale) || !(in.scale[0] > 0 && in.scale[1] > 0 && in.scale[2] > 0))
                return am_cli_usage("oar", "--scale expects three positive numbers X,Y,Z, got '%s'", optarg);
            break;
        case O_NAME: {
            am_error nerr;
            if (optarg[0] && am_oar_check_name("--object-name", optarg, &nerr))
                return am_cli_usage("oar", "%s", nerr.msg);
            object_name = optarg;
            break;
        }
        case O_SKEL: skel_path = optarg; break;
        case O_SALT: {
            am_error serr;
            if (am_oar_check_salt(optarg, &serr))
                return am_cli_usage("oar", "--salt: %s", serr.msg);
            in.uuid_salt = optarg;
            break;
        }
        case 'o': out = optarg; break;
        default: return am_cli_usage("oar", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc)
        return am_cli_usage("oar", "unexpected argument '%s'", argv[optind]);
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
    int rc = AM_EXIT_OK;
    size_t loaded = 0;
    am_oar_plan plan; /* freed at done: a failed write after a good plan must not leak it */
    memset(&plan, 0, sizeof plan);
    am_buf archive = {0};
    if (skel_path || getenv("ANIMESH_SKELETON") || getenv("ANIMESH_VIEWER_DIR")) {
        if (am_cli_load_skeleton(skel_path, &skel, &err))
            return am_cli_report(&err);
        have_skel = true;
    }
    if (am_read_file_as(mesh, &am_mesh_asset_format, &f.mesh, &f.mesh_size, &err) ||
        (texture && am_read_file_as(texture, &am_j2c_file_format, &f.texture, &f.texture_size, &err))) {
        rc = am_cli_report(&err);
        goto done;
    }
    for (; loaded < f.anim_count; loaded++) {
        uint8_t *data = NULL;
        if (am_read_file_as(f.anim_paths[loaded], &am_anim_file_format, &data, &f.anims[loaded].size, &err)) {
            rc = am_cli_report(&err);
            goto done;
        }
        f.anims[loaded].data = data;
        f.anims[loaded].name = names[loaded];
    }
    if (check_inputs(mesh, texture, &f, have_skel ? &skel : NULL, allow_unknown_joints, &err)) {
        rc = am_cli_report(&err);
        goto done;
    }
    in.mesh = f.mesh;
    in.mesh_size = f.mesh_size;
    in.texture = f.texture;
    in.texture_size = f.texture_size;
    in.anims = f.anims;
    in.anim_count = f.anim_count;
    in.play = play;
    in.object_name = object_name;
    am_oar_check_report rep;
    if (am_oar_plan_make(&in, &plan, &err) || am_oar_write(&in, &archive, &err) ||
        am_oar_check_bytes(archive.data, archive.size, &rep, &err) ||
        am_write_file_atomic(out, archive.data, archive.size, &err)) {
        rc = am_cli_report(&err);
        goto done;
    }
    char u[37], path[512];
    am_oar_object_path(&in, &plan, path, sizeof path);
    printf("wrote %s\n", out);
    printf("  %s\n", path);
    am_uuid_format(&plan.mesh, u);
    printf("  mesh %s\n", u);
    if (plan.has_texture) {
        am_uuid_format(&plan.texture, u);
        printf("  texture %s\n", u);
    }
    for (size_t i = 0; i < in.anim_count; i++) {
        am_uuid_format(&plan.anim_assets[i], u);
        printf("  animation %s %s\n", in.anims[i].name, u);
    }
    if (plan.has_script) {
        am_uuid_format(&plan.script, u);
        printf("  script (plays %s) %s\n", play, u);
    }
    if (in.uuid_salt)
        printf("  UUID salt %s\n", in.uuid_salt);
    printf("  checked: read back whole, %zu asset%s decode and match their UUIDs\n",
           rep.meshes + rep.animations + rep.textures + rep.scripts,
           rep.meshes + rep.animations + rep.textures + rep.scripts == 1 ? "" : "s");
done:
    am_buf_free(&archive);
    am_oar_plan_free(&plan);
    f.anim_count = loaded;
    free_files(&f);
    if (have_skel)
        am_skeleton_free(&skel);
    return rc;
}
