/* animesh batch spawn CATALOG --grid GRID.json: the catalogue's creatures into a grid's
 * regions (batch/batch.h "spawning"; docs/batch.md "Spawning"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batch/batch.h"
#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"

static const char *help =
    "usage: animesh batch spawn CATALOG --grid GRID.json [--verify] [--remove] [--per-host N]\n"
    "                           [--connect-timeout MS] [--timeout MS] [--json]\n\n"
    "Spawn every converted creature of the catalogue into the grid's regions over OpenSim's\n"
    "RemoteAdmin: each into its plan's region and position, or, without one, into the grid's\n"
    "layout region on the layout's next place. Every load merges (the region keeps its other\n"
    "objects). After a region's loads the region saves itself once into CATALOG/spawn/ (a folder\n"
    "its host sees at the grid's \"catalog\" path) and each creature's object is found there: its\n"
    "UUID is recorded in CATALOG/catalog.db (table spawns). A creature recorded under the same\n"
    "spawn key (its conversion, region and position) is not sent again; one converted again or\n"
    "moved has its earlier object deleted first (`delete object id UUID` on the region's\n"
    "console), then is loaded. A region that refuses or does not answer fails its own\n"
    "creatures only. GRID.json: docs/batch.md (Spawning); the RemoteAdmin password is read from the\n"
    "environment variable each region names, never from the file.\n\n"
    "  --grid FILE          the grid (regions, RemoteAdmin URLs, layout)\n"
    "  --verify             compare each creature with the region's save, as push --verify does:\n"
    "                       object, animesh flag, mesh, inventory, every asset byte for byte, and\n"
    "                       exactly one copy in the region\n"
    "  --remove             delete the catalogue's recorded creatures from the grid instead\n"
    "  --per-host N         regions served at once on one host (default: the grid's per_host, 1)\n"
    "  --connect-timeout MS, --timeout MS   per RemoteAdmin call (defaults as push)\n"
    "  --json               the outcome as JSON on stdout\n"
    "Exit 0 every creature spawned (or already there, or removed); 1 one failed; 2 usage;\n"
    "3 I/O.\n";

static void on_progress(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "animesh batch spawn: %s\n", line);
}

/* A result's text, or null when it holds none. */
static json_t *text_or_null(const am_string *s)
{
    return am_string_empty(s) ? json_null() : json_string(am_str(s));
}

static int print_json(const am_batch_plan *plan, const am_batch_grid *grid, const am_batch_spawn_result *r)
{
    (void)plan;
    json_t *root = json_object(), *items = json_array(), *regions = json_array();
    if (!root || !items || !regions) {
        json_decref(root);
        json_decref(items);
        json_decref(regions);
        fprintf(stderr, "animesh batch spawn: out of memory\n");
        return AM_EXIT_INVALID;
    }
    for (size_t i = 0; i < r->item_count; i++) {
        const am_batch_spawn_item *it = &r->items[i];
        const am_batch_grid_region *g = it->region >= 0 ? &grid->regions[it->region] : NULL;
        json_array_append_new(
            items, json_pack("{s:s, s:o, s:[fff], s:b, s:s, s:o, s:o, s:b, s:f, s:o}", "creature",
                             am_str(&it->creature), "region", g ? json_string(g->name ? g->name : g->id) : json_null(),
                             "position", it->position[0], it->position[1], it->position[2], "layout", it->layout,
                             "outcome", am_batch_spawn_outcome_name(it->outcome), "object", text_or_null(&it->object),
                             "replaced", text_or_null(&it->replaced), "verified", it->verified, "seconds", it->seconds,
                             "error", text_or_null(&it->error)));
    }
    for (size_t i = 0; i < grid->region_count; i++) {
        const am_batch_spawn_region *g = &r->regions[i];
        json_array_append_new(regions,
                              json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:o}", "region",
                                        grid->regions[i].name ? grid->regions[i].name : grid->regions[i].id, "loaded",
                                        (json_int_t)g->loaded, "deleted", (json_int_t)g->deleted, "failed",
                                        (json_int_t)g->failed, "seconds", g->seconds, "save_seconds", g->save_seconds,
                                        "error", text_or_null(&g->error)));
    }
    json_object_set_new(root, "creatures", items);
    json_object_set_new(root, "regions", regions);
    json_object_set_new(root, "spawned", json_integer((json_int_t)r->spawned));
    json_object_set_new(root, "replaced", json_integer((json_int_t)r->replaced));
    json_object_set_new(root, "already", json_integer((json_int_t)r->already));
    json_object_set_new(root, "removed", json_integer((json_int_t)r->removed));
    json_object_set_new(root, "skipped", json_integer((json_int_t)r->skipped));
    json_object_set_new(root, "failed", json_integer((json_int_t)r->failed));
    json_object_set_new(root, "seconds", json_real(r->seconds));
    json_dumpf(root, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(root);
    return r->failed ? AM_EXIT_INVALID : AM_EXIT_OK;
}

static int print_text(const am_batch_grid *grid, const am_batch_spawn_result *r, bool verify)
{
    for (size_t i = 0; i < r->item_count; i++) {
        const am_batch_spawn_item *it = &r->items[i];
        const am_batch_grid_region *g = it->region >= 0 ? &grid->regions[it->region] : NULL;
        printf("%-24s %-20s", am_str(&it->creature), g ? (g->name ? g->name : g->id) : "-");
        if (it->outcome != AM_SPAWN_REMOVED)
            printf(" %6.1f,%6.1f,%5.1f%s", it->position[0], it->position[1], it->position[2], it->layout ? "*" : " ");
        printf(" %s", am_batch_spawn_outcome_name(it->outcome));
        if (!am_string_empty(&it->object))
            printf(" object %s", am_str(&it->object));
        if (!am_string_empty(&it->replaced))
            printf(" (replaced %s)", am_str(&it->replaced));
        if (it->verified)
            printf(" verified");
        if (it->seconds > 0)
            printf(" %.2f s", it->seconds);
        if (!am_string_empty(&it->error))
            am_cli_print_flags(stdout, "%s%s", it->outcome == AM_SPAWN_FAILED ? ": " : "; note: ",
                               am_str(&it->error));
        printf("\n");
    }
    for (size_t i = 0; i < grid->region_count; i++) {
        const am_batch_spawn_region *g = &r->regions[i];
        if (!g->loaded && !g->deleted && !g->failed && !g->save_seconds)
            continue;
        printf("region %s: %zu loaded, %zu deleted, %zu failed in %.2f s", grid->regions[i].name ? grid->regions[i].name
                                                                                                 : grid->regions[i].id,
               g->loaded, g->deleted, g->failed, g->seconds);
        if (g->save_seconds > 0)
            printf(" (save %s %.2f s)", verify ? "and verify" : "to find the objects", g->save_seconds);
        if (!am_string_empty(&g->error))
            printf(": %s", am_str(&g->error));
        printf("\n");
    }
    printf("%zu spawned, %zu replaced, %zu already there, %zu removed, %zu skipped (not converted), %zu failed in "
           "%.2f s (* = placed by the layout)\n",
           r->spawned, r->replaced, r->already, r->removed, r->skipped, r->failed, r->seconds);
    return r->failed ? AM_EXIT_INVALID : AM_EXIT_OK;
}

int am_cmd_batch_spawn(int argc, char **argv)
{
    enum { O_GRID = 256, O_VERIFY, O_REMOVE, O_PER_HOST, O_CONNECT, O_TIMEOUT, O_JSON };
    static const am_cli_opt lopts[] = {{"grid", required_argument, O_GRID, 0},
                                       {"verify", no_argument, O_VERIFY, 0},
                                       {"remove", no_argument, O_REMOVE, 0},
                                       {"per-host", required_argument, O_PER_HOST, 0},
                                       {"connect-timeout", required_argument, O_CONNECT, 0},
                                       {"timeout", required_argument, O_TIMEOUT, 0},
                                       {"json", no_argument, O_JSON, 0},
                                       AM_CLI_OPT_HELP};
    const char *grid_path = NULL;
    bool json = false;
    am_batch_spawn_options o;
    memset(&o, 0, sizeof o);
    o.progress = on_progress;
    am_cli_opts op;
    am_cli_opts_begin(&op, "batch spawn", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    int c;
    long v;
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_GRID: grid_path = op.arg; break;
        case O_VERIFY: o.verify = true; break;
        case O_REMOVE: o.remove = true; break;
        case O_JSON: json = true; break;
        case O_PER_HOST:
            if (!am_cli_parse_long(op.arg, 1, 16, &v))
                return am_cli_usage("batch spawn", "--per-host expects 1..16, got '%s'", op.arg);
            o.per_host = (unsigned)v;
            break;
        case O_CONNECT:
        case O_TIMEOUT:
            if (!am_cli_parse_long(op.arg, 1, 86400000L, &v))
                return am_cli_usage("batch spawn", "--%s expects milliseconds (1..86400000), got '%s'",
                                    c == O_CONNECT ? "connect-timeout" : "timeout", op.arg);
            if (c == O_CONNECT)
                o.connect_timeout_ms = v;
            else
                o.total_timeout_ms = v;
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("batch spawn", "expected exactly one CATALOG folder");
    if (!grid_path)
        return am_cli_usage("batch spawn", "--grid GRID.json is required (the regions to spawn into)");
    am_error err;
    am_error_clear(&err);
    am_batch_grid grid;
    if (am_batch_grid_load(grid_path, &grid, &err))
        return am_cli_report(&err);
    am_batch_plan plan;
    if (am_batch_plan_load(argv[op.first], &plan, &err)) {
        am_batch_grid_free(&grid);
        return am_cli_report(&err);
    }
    am_batch_spawn_result r;
    int rc;
    if (am_batch_spawn(&plan, &grid, &o, &r, &err)) {
        rc = err.code == AM_ERR_USAGE ? am_cli_usage("batch spawn", "%s: %s", err.where, err.msg) : am_cli_report(&err);
    } else {
        rc = json ? print_json(&plan, &grid, &r) : print_text(&grid, &r, o.verify);
        am_batch_spawn_result_free(&r);
    }
    am_batch_plan_free(&plan);
    am_batch_grid_free(&grid);
    return rc;
}
