#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"

static const char *help =
    "usage: animesh skeleton [--skeleton FILE] [--json] [--frame file|runtime] [--all]\n\n"
    "List every bone and collision volume of the viewer's avatar_skeleton.xml with its\n"
    "parent, support, group and world rest position (metres, X forward, Y left, Z up).\n\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n"
    "                   (default: $ANIMESH_SKELETON, $ANIMESH_VIEWER_DIR/character/...)\n"
    "  --frame F        file: mPelvis at its file height z 1.067 (the bind frame);\n"
    "                   runtime: relative to mRoot, mPelvis at 0 (where the viewer draws\n"
    "                   an animesh's joints around the prim). Default: file.\n"
    "  --all            also list the attachment points (valid joint names too)\n"
    "  --json           machine-readable output\n";

static json_t *vec_json(am_vec3 v) { return json_pack("[fff]", v.x, v.y, v.z); }

int am_cmd_skeleton(int argc, char **argv)
{
    const char *skel_path = NULL;
    bool as_json = false, all = false;
    am_frame frame = AM_FRAME_FILE;
    static const am_cli_opt opts[] = {
        {"skeleton", required_argument, 's', 0},
        {"json", no_argument, 'j', 0},
        {"frame", required_argument, 'f', 0},
        {"all", no_argument, 'a', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "skeleton", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        case 'j': as_json = true; break;
        case 'a': all = true; break;
        case 'f':
            if (strcmp(op.arg, "file") == 0)
                frame = AM_FRAME_FILE;
            else if (strcmp(op.arg, "runtime") == 0)
                frame = AM_FRAME_RUNTIME;
            else
                return am_cli_usage("skeleton", "--frame must be 'file' or 'runtime', not '%s'", op.arg);
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first < argc)
        return am_cli_usage("skeleton", "unexpected argument '%s'", argv[op.first]);

    am_skeleton skel;
    am_error err;
    am_error_clear(&err);
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    size_t n = all ? skel.joint_count : skel.bone_count + skel.volume_count;
    if (as_json) {
        json_t *root = json_object();
        json_t *arr = json_array();
        json_object_set_new(root, "frame", json_string(am_frame_name(frame)));
        json_object_set_new(root, "bones", json_integer((json_int_t)skel.bone_count));
        json_object_set_new(root, "collision_volumes", json_integer((json_int_t)skel.volume_count));
        for (size_t i = 0; i < n; i++) {
            const am_joint *j = &skel.joints[i];
            json_t *o = json_object();
            json_object_set_new(o, "name", json_string(j->name));
            json_object_set_new(o, "kind", json_string(am_joint_kind_name(j->kind)));
            json_object_set_new(o, "joint_num", json_integer(j->joint_num));
            json_object_set_new(o, "parent", j->parent >= 0 ? json_string(skel.joints[j->parent].name) : json_null());
            json_object_set_new(o, "support", json_string(j->support));
            json_object_set_new(o, "group", json_string(j->group));
            json_object_set_new(o, "pos", vec_json(j->pos));
            json_object_set_new(o, "rot", vec_json(j->rot_deg));
            json_object_set_new(o, "scale", vec_json(j->scale));
            json_object_set_new(o, "world", vec_json(j->world_pos[frame]));
            json_t *al = json_array();
            for (size_t k = 0; k < j->alias_count; k++)
                json_array_append_new(al, json_string(j->aliases[k]));
            json_object_set_new(o, "aliases", al);
            json_array_append_new(arr, o);
        }
        json_object_set_new(root, "joints", arr);
        char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        json_decref(root);
        if (!text) {
            am_skeleton_free(&skel);
            am_fail_nomem(&err, "JSON output");
            return am_cli_report(&err);
        }
        puts(text);
        free(text);
    } else {
        printf("%zu bones, %zu collision volumes (skeleton version %s); world rest positions in the %s frame\n",
               skel.bone_count, skel.volume_count, skel.version,
               frame == AM_FRAME_FILE ? "skeleton-file (mPelvis at z 1.067)" : "runtime (relative to mRoot)");
        printf("%4s  %-24s %-18s %-9s %-10s %9s %9s %9s\n", "#", "name", "parent", "support", "group", "x", "y", "z");
        for (size_t i = 0; i < n; i++) {
            const am_joint *j = &skel.joints[i];
            am_vec3 w = j->world_pos[frame];
            printf("%4d  %-24s %-18s %-9s %-10s %9.4f %9.4f %9.4f\n", j->joint_num, j->name,
                   j->parent >= 0 ? skel.joints[j->parent].name : "-", j->support, j->group, w.x, w.y, w.z);
        }
    }
    am_skeleton_free(&skel);
    return AM_EXIT_OK;
}
