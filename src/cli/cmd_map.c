#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "skeleton/jointmap.h"

static const char *help =
    "usage: animesh map check MAP.json [--rig RIG.json] [--skeleton FILE]\n"
    "       animesh map suggest MODEL|BVH [--out MAP.json] [--json] ...   (map suggest --help)\n\n"
    "Check a joint map against the viewer's skeleton. MAP.json:\n"
    "  {\"joints\": {\"rig_joint\": \"mStockName\", ...},\n"
    "   \"rig_parents\": {\"rig_child\": \"rig_parent\", ...}}   (optional)\n"
    "Checks: every target is a viewer joint (bone, alias, collision volume or attachment\n"
    "point); no two rig joints on one stock joint; every rig chain parent -> child maps to\n"
    "ancestor -> descendant in the viewer's hierarchy; at most 110 joints in one mesh\n"
    "(counting the viewer ancestors the skin must add).\n\n"
    "  --rig RIG.json   take the rig's own parents from this file instead\n"
    "                   ({\"rig_parents\": {...}} or {\"joints\": [{\"name\", \"parent\"}]})\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n\n"
    "Exit 0 with a one-line summary when valid; 1 with every problem listed when not.\n";

int am_cmd_map(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(help, argc < 2 ? stderr : stdout);
        return argc < 2 ? AM_EXIT_USAGE : AM_EXIT_OK;
    }
    if (strcmp(argv[1], "suggest") == 0)
        return am_cmd_map_suggest(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") != 0)
        return am_cli_usage("map", "unknown subcommand '%s' (expected 'check' or 'suggest')", argv[1]);
    argc--;
    argv++;
    const char *skel_path = NULL, *rig_path = NULL;
    static const am_cli_opt opts[] = {
        {"skeleton", required_argument, 's', 0},
        {"rig", required_argument, 'r', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "map check", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        case 'r': rig_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("map check", "expected exactly one MAP.json");
    const char *map_path = argv[op.first];

    am_error err;
    am_error_clear(&err);
    am_joint_map map;
    if (am_joint_map_load(map_path, &map, &err))
        return am_cli_report(&err);
    if (rig_path && am_joint_map_load_rig_parents(&map, rig_path, &err)) {
        am_joint_map_free(&map);
        return am_cli_report(&err);
    }
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err)) {
        am_joint_map_free(&map);
        return am_cli_report(&err);
    }
    am_joint_map_report rep;
    int rc = AM_EXIT_OK;
    if (am_joint_map_check(&map, &skel, &rep, &err)) {
        rc = am_cli_report(&err);
    } else if (rep.count) {
        fprintf(stderr, "%s: %zu problem%s:\n", map_path, rep.count, rep.count == 1 ? "" : "s");
        for (size_t i = 0; i < rep.count; i++)
            fprintf(stderr, "  - %s\n", rep.problems[i]);
        rc = AM_EXIT_INVALID;
    } else {
        printf("%s: valid: %zu rig joints -> %zu stock joints (%zu with viewer ancestors, limit %d), "
               "%zu rig chains checked\n",
               map_path, map.count, rep.stock_joints, rep.closed_joints, AM_MAX_JOINTS_PER_MESH,
               rep.chains_checked);
    }
    am_joint_map_report_free(&rep);
    am_skeleton_free(&skel);
    am_joint_map_free(&map);
    return rc;
}
