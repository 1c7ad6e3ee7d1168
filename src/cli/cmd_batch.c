/* animesh batch plan|work|run|wait|status|index: a library of creatures converted as jobs
 * (batch/batch.h; docs/batch.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/batch.h"
#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "core/text.h"

static const char *help =
    "usage: animesh batch plan LIBRARY... --out CATALOG [--manifest FILE] [--skeleton FILE]\n"
    "                          [-- IMPORT-OPTIONS...]\n"
    "       animesh batch work CATALOG [--job N] [--force]\n"
    "       animesh batch run CATALOG [--engine local|parallel|slurm] [--jobs N] [--retry-failed]\n"
    "                         [--force] [--resume] [--sshlogin LOGIN ...] [--submit]\n"
    "                         [--sbatch-arg ARG ...]\n"
    "       animesh batch wait CATALOG [--timeout SECONDS]\n"
    "       animesh batch status CATALOG [--json]\n"
    "       animesh batch index CATALOG\n"
    "       animesh batch spawn CATALOG --grid GRID.json [--verify] [--remove]\n"
    "                           (every option: animesh batch spawn --help)\n\n"
    "Convert a whole library of creatures, each one as `animesh import` converts it, on this\n"
    "machine, with GNU parallel or on a Slurm cluster; the results gathered in a catalogue\n"
    "(docs/batch.md).\n\n"
    "plan    find every model and motion in the LIBRARY folders (by content; a model is a\n"
    "        creature, and takes the motions of its folder and of sub-folders without a model),\n"
    "        or read a manifest (JSON: per creature its model, motions, options, region,\n"
    "        position), and write CATALOG/plan.json: one job per creature, keyed by the\n"
    "        SHA-256 of its files, options, the skeleton and the animesh version. The import\n"
    "        options after -- apply to every job (default: --bench --preview); the creature's\n"
    "        OpenSim archive is always written. Files that make no creature are listed with\n"
    "        the reason.\n"
    "work    convert one job (N, or SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX) into\n"
    "        CATALOG/creatures/NAME/ (replaced whole, only when the import succeeded) and write\n"
    "        its record CATALOG/results/NAME.json (status, times, peak memory, the import's\n"
    "        report, the error). A job done for the same key is not converted again.\n"
    "run     run every job that needs it (new, changed since its record, --retry-failed the\n"
    "        failed ones, --force all): local worker processes (--jobs N, default the cores),\n"
    "        GNU parallel (its joblog in CATALOG/run, --resume, --sshlogin for machines that\n"
    "        share the catalogue's folder), or Slurm: CATALOG/run/batch.sbatch, an array of\n"
    "        the jobs throttled to --jobs (default 2) at once, submitted with --submit (then\n"
    "        'batch wait'); then index.\n"
    "wait    follow the submitted Slurm job until it ends (--timeout: give up after), then index.\n"
    "status  done, failed, pending and stale jobs (inputs changed), each failure with its\n"
    "        one-line error; updates CATALOG/catalog.db.\n"
    "index   gather the records into CATALOG/catalog.db (SQLite; schema in docs/batch.md).\n"
    "spawn   the converted creatures into a grid's regions over RemoteAdmin, merged, recorded,\n"
    "        verified; a creature converted again replaces its copy; --remove takes them out.\n\n"
    "  --out CATALOG     the catalogue folder (created)\n"
    "  --manifest FILE   creatures listed in a manifest (docs/batch.md, its schema)\n"
    "  --skeleton FILE   the viewer's character/avatar_skeleton.xml\n"
    "  --json            status as JSON on stdout\n"
    "Exit 0 ok; 1 a job failed (run, work, status); 2 usage; 3 I/O.\n";

static void on_progress(void *user, const char *line)
{
    fprintf(stderr, "animesh batch%s%s: %s\n", user ? " " : "", user ? (const char *)user : "", line);
}

/* The animesh program itself, for the workers (they run this same binary). */
static int self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) {
        fprintf(stderr, "animesh batch: cannot find the animesh program (/proc/self/exe): %s\n", strerror(errno));
        return AM_EXIT_IO;
    }
    out[n] = '\0';
    return AM_EXIT_OK;
}

static int load_plan(const char *catalog, am_batch_plan *plan)
{
    am_error err;
    am_error_clear(&err);
    if (am_batch_plan_load(catalog, plan, &err))
        return am_cli_report(&err);
    return AM_EXIT_OK;
}

/* The one CATALOG operand after the options, its plan loaded; an exit code (0 ok). */
static int catalog_operand(const am_cli_opts *op, int argc, char **argv, const char *cmd, am_batch_plan *plan)
{
    if (op->first != argc - 1)
        return am_cli_usage(cmd, "expected exactly one CATALOG folder");
    return load_plan(argv[op->first], plan);
}

static int cmd_plan(int argc, char **argv)
{
    enum { O_OUT = 256, O_MANIFEST, O_SKEL };
    static const am_cli_opt lopts[] = {{"out", required_argument, O_OUT, 0},
                                       {"manifest", required_argument, O_MANIFEST, 0},
                                       {"skeleton", required_argument, O_SKEL, 0},
                                       AM_CLI_OPT_HELP};
    /* Import options follow "--": cut them off before getopt sees them. */
    int cut = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            cut = i;
            break;
        }
    const char *out = NULL, *manifest = NULL, *skel = NULL;
    am_cli_opts op;
    am_cli_opts_begin(&op, "batch plan", help, lopts, AM_CLI_OPTS_COUNT(lopts), cut, argv);
    int c;
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_OUT: out = op.arg; break;
        case O_MANIFEST: manifest = op.arg; break;
        case O_SKEL: skel = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (!out)
        return am_cli_usage("batch plan", "--out CATALOG is required");
    if (op.first >= cut && !manifest)
        return am_cli_usage("batch plan", "give LIBRARY folders, or --manifest FILE");
    char skel_path[4096];
    am_error err;
    am_error_clear(&err);
    if (am_skeleton_locate(skel, skel_path, sizeof skel_path, &err))
        return am_cli_report(&err);
    am_batch_plan_options po = {
        .libraries = (const char *const *)(argv + op.first),
        .library_count = (size_t)(cut - op.first),
        .manifest = manifest,
        .skeleton = skel_path,
        .options = cut < argc ? (const char *const *)(argv + cut + 1) : NULL,
        .option_count = cut < argc ? (size_t)(argc - cut - 1) : 0,
        .progress = on_progress,
        .progress_user = "plan",
    };
    am_batch_plan plan;
    if (am_batch_plan_make(out, &po, &plan, &err))
        return am_cli_report(&err);
    size_t motions = 0;
    for (size_t i = 0; i < plan.job_count; i++)
        motions += plan.jobs[i].motion_count;
    printf("%s: %zu creature%s, %zu motion%s in all; %zu file%s skipped\n", plan.catalog, plan.job_count,
           plan.job_count == 1 ? "" : "s", motions, motions == 1 ? "" : "s", plan.skip_count,
           plan.skip_count == 1 ? "" : "s");
    char shown[1024], why[1024];
    for (size_t i = 0; i < plan.skip_count && i < 10; i++)
        printf("  skipped %s: %s\n", am_text_shown(plan.skipped[i].path, shown, sizeof shown),
               am_text_shown(plan.skipped[i].reason, why, sizeof why));
    if (plan.skip_count > 10)
        printf("  ... and %zu more (plan.json lists them all)\n", plan.skip_count - 10);
    printf("next: animesh batch run %s --engine local|parallel|slurm\n", plan.catalog);
    am_batch_plan_free(&plan);
    return AM_EXIT_OK;
}

static int cmd_work(int argc, char **argv)
{
    struct timespec began; /* the job's time counts the worker's own start-up and plan load */
    clock_gettime(CLOCK_MONOTONIC, &began);
    enum { O_JOB = 256, O_FORCE };
    static const am_cli_opt lopts[] = {{"job", required_argument, O_JOB, 0}, {"force", no_argument, O_FORCE, 0},
                                       AM_CLI_OPT_HELP};
    long job = -1;
    bool force = false;
    am_cli_opts op;
    am_cli_opts_begin(&op, "batch work", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    int c;
    while ((c = am_cli_opts_next(&op)) >= 0) {
        if (c == O_JOB && !am_cli_parse_long(op.arg, 0, LONG_MAX, &job))
            return am_cli_usage("batch work", "--job: expected a job number (0, 1, ...), got '%s'", op.arg);
        if (c == O_FORCE)
            force = true;
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("batch work", "expected exactly one CATALOG folder");
    size_t index = (size_t)job;
    if (job < 0 && !am_batch_job_from_env(&index))
        return am_cli_usage("batch work", "which job? --job N, or SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX");
    char self[PATH_MAX];
    int rc = self_path(self, sizeof self);
    if (rc)
        return rc;
    am_batch_plan plan;
    if ((rc = load_plan(argv[op.first], &plan)))
        return rc;
    am_batch_work_options wo = {.self = self, .force = force,
                                .started_s = (double)began.tv_sec + 1e-9 * (double)began.tv_nsec};
    am_batch_work_result r;
    am_error err;
    am_error_clear(&err);
    if (am_batch_work(&plan, index, &wo, &r, &err)) {
        am_batch_work_result_free(&r);
        am_batch_plan_free(&plan);
        return am_cli_report(&err);
    }
    char shown[1200];
    const char *name = plan.jobs[index].name;
    if (r.skipped)
        printf("%s: done already for these inputs (--force converts it again)\n", name);
    else if (r.ok)
        printf("%s: done in %.1f s (CPU %.1f s, peak %.0f MB)\n", name, r.wall_s, r.cpu_s, r.peak_rss_kb / 1024.0);
    else
        printf("%s: FAILED: %s\n", name, am_text_shown(am_str(&r.error), shown, sizeof shown));
    am_batch_work_result_free(&r);
    am_batch_plan_free(&plan);
    return r.ok ? AM_EXIT_OK : AM_EXIT_INVALID;
}

static int print_status(const am_batch_plan *plan, const am_batch_status *st, bool json)
{
    if (json) {
        json_t *root = json_pack("{s:s,s:I,s:I,s:I,s:I,s:I}", "catalog", plan->catalog, "total", (json_int_t)st->total,
                                 "done", (json_int_t)st->done, "failed", (json_int_t)st->failed, "pending",
                                 (json_int_t)st->pending, "stale", (json_int_t)st->stale);
        json_t *jobs = json_array();
        for (size_t i = 0; root && jobs && i < plan->job_count; i++) {
            am_batch_state s = st->states[i];
            json_t *o = json_pack("{s:I,s:s,s:s}", "job", (json_int_t)i, "name", plan->jobs[i].name, "state",
                                  am_batch_state_name(s));
            if (o && s == AM_BATCH_FAILED && st->errors[i])
                json_object_set_new(o, "error", json_string(st->errors[i]));
            json_array_append_new(jobs, o);
        }
        json_object_set_new(root, "jobs", jobs);
        char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(root);
        if (!text) {
            fprintf(stderr, "animesh batch status: out of memory\n");
            return AM_EXIT_INVALID;
        }
        puts(text);
        free(text);
    } else {
        printf("%s: %zu jobs: %zu done, %zu failed, %zu pending, %zu stale\n", plan->catalog, st->total, st->done,
               st->failed, st->pending, st->stale);
        char shown[1200];
        for (size_t i = 0; st->failed && i < plan->job_count; i++)
            if (st->states[i] == AM_BATCH_FAILED)
                printf("  FAILED %s: %s\n", plan->jobs[i].name,
                       am_text_shown(st->errors[i] ? st->errors[i] : "", shown, sizeof shown));
        if (st->pending || st->stale)
            printf("next: animesh batch run %s\n", plan->catalog);
    }
    return st->failed ? AM_EXIT_INVALID : AM_EXIT_OK;
}

static int cmd_status(int argc, char **argv, bool index_only)
{
    enum { O_JSON = 256 };
    static const am_cli_opt lopts[] = {{"json", no_argument, O_JSON, 0}, AM_CLI_OPT_HELP};
    bool json = false;
    const char *cmd = index_only ? "batch index" : "batch status";
    am_cli_opts op;
    am_cli_opts_begin(&op, cmd, help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    int c;
    while ((c = am_cli_opts_next(&op)) >= 0)
        if (c == O_JSON)
            json = true;
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    am_batch_plan plan;
    int rc = catalog_operand(&op, argc, argv, cmd, &plan);
    if (rc)
        return rc;
    am_error err;
    am_error_clear(&err);
    am_batch_status st;
    size_t changed = 0;
    if ((!index_only && am_batch_plan_refresh(&plan, &changed, &err)) || am_batch_index(&plan, &st, &err)) {
        am_batch_plan_free(&plan);
        return am_cli_report(&err);
    }
    if (index_only) {
        printf("%s/catalog.db: %zu creatures (%zu done, %zu failed)\n", plan.catalog, st.total, st.done, st.failed);
        am_batch_status_free(&st);
        am_batch_plan_free(&plan);
        return AM_EXIT_OK;
    }
    rc = print_status(&plan, &st, json);
    am_batch_status_free(&st);
    am_batch_plan_free(&plan);
    return rc;
}

#define BATCH_MAX_LIST 64

static int cmd_run(int argc, char **argv)
{
    enum { O_ENGINE = 256, O_JOBS, O_RETRY, O_FORCE, O_RESUME, O_SSH, O_SUBMIT, O_SBATCH };
    static const am_cli_opt lopts[] = {{"engine", required_argument, O_ENGINE, 0},
                                       {"jobs", required_argument, O_JOBS, 'j'},
                                       {"retry-failed", no_argument, O_RETRY, 0},
                                       {"force", no_argument, O_FORCE, 0},
                                       {"resume", no_argument, O_RESUME, 0},
                                       {"sshlogin", required_argument, O_SSH, 0},
                                       {"submit", no_argument, O_SUBMIT, 0},
                                       {"sbatch-arg", required_argument, O_SBATCH, 0},
                                       AM_CLI_OPT_HELP};
    char self[PATH_MAX];
    am_batch_run_options ro = {.engine = AM_BATCH_ENGINE_LOCAL, .progress = on_progress, .progress_user = "run"};
    const char *ssh[BATCH_MAX_LIST], *sbatch[BATCH_MAX_LIST];
    long v;
    am_cli_opts op;
    am_cli_opts_begin(&op, "batch run", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    int c;
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_ENGINE:
            if (strcmp(op.arg, "local") == 0)
                ro.engine = AM_BATCH_ENGINE_LOCAL;
            else if (strcmp(op.arg, "parallel") == 0)
                ro.engine = AM_BATCH_ENGINE_PARALLEL;
            else if (strcmp(op.arg, "slurm") == 0)
                ro.engine = AM_BATCH_ENGINE_SLURM;
            else
                return am_cli_usage("batch run", "--engine: local, parallel or slurm, got '%s'", op.arg);
            break;
        case O_JOBS:
            if (!am_cli_parse_long(op.arg, 1, 4096, &v))
                return am_cli_usage("batch run", "--jobs: expected 1..4096 workers, got '%s'", op.arg);
            ro.jobs = (unsigned)v;
            break;
        case O_RETRY: ro.retry_failed = true; break;
        case O_FORCE: ro.force = true; break;
        case O_RESUME: ro.resume = true; break;
        case O_SUBMIT: ro.submit = true; break;
        case O_SSH:
            if (ro.sshlogin_count == BATCH_MAX_LIST)
                return am_cli_usage("batch run", "at most %d --sshlogin", BATCH_MAX_LIST);
            ssh[ro.sshlogin_count++] = op.arg;
            break;
        case O_SBATCH:
            if (ro.sbatch_arg_count == BATCH_MAX_LIST)
                return am_cli_usage("batch run", "at most %d --sbatch-arg", BATCH_MAX_LIST);
            sbatch[ro.sbatch_arg_count++] = op.arg;
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("batch run", "expected exactly one CATALOG folder");
    if ((ro.sshlogin_count || ro.resume) && ro.engine != AM_BATCH_ENGINE_PARALLEL)
        return am_cli_usage("batch run", "--sshlogin and --resume are GNU parallel's (--engine parallel)");
    if ((ro.submit || ro.sbatch_arg_count) && ro.engine != AM_BATCH_ENGINE_SLURM)
        return am_cli_usage("batch run", "--submit and --sbatch-arg are Slurm's (--engine slurm)");
    ro.sshlogins = ssh;
    ro.sbatch_args = sbatch;
    int rc = self_path(self, sizeof self);
    if (rc)
        return rc;
    ro.self = self;
    am_batch_plan plan;
    if ((rc = load_plan(argv[op.first], &plan)))
        return rc;
    am_batch_run_result r;
    am_error err;
    am_error_clear(&err);
    if (am_batch_run(&plan, &ro, &r, &err)) {
        am_batch_run_result_free(&r);
        am_batch_plan_free(&plan);
        return am_cli_report(&err);
    }
    if (ro.engine == AM_BATCH_ENGINE_SLURM) {
        if (!r.todo)
            printf("%s: nothing to run (%zu jobs up to date)\n", plan.catalog, r.total);
        else if (!am_string_empty(&r.slurm_job))
            printf("%s: %zu jobs submitted as Slurm job %s (%s)\nnext: animesh batch wait %s\n", plan.catalog, r.todo,
                   am_str(&r.slurm_job), am_str(&r.script), plan.catalog);
        else
            printf("%s: %zu jobs in %s (submit it with sbatch, or run again with --submit)\n", plan.catalog, r.todo,
                   am_str(&r.script));
        am_batch_run_result_free(&r);
        am_batch_plan_free(&plan);
        return AM_EXIT_OK;
    }
    am_batch_status st;
    rc = am_batch_index(&plan, &st, &err) ? am_cli_report(&err) : AM_EXIT_OK;
    if (!rc) {
        printf("%s: ran %zu of %zu jobs: %zu done, %zu failed\n", plan.catalog, r.todo, r.total, r.done, r.failed);
        if (r.killed)
            printf("%zu worker%s killed mid-job: the previous sets and records stand; run again to convert what "
                   "is pending (a job rerun with --force needs --force again)\n",
                   r.killed, r.killed == 1 ? " was" : "s were");
        rc = print_status(&plan, &st, false);
        if (r.killed && !rc)
            rc = AM_EXIT_INVALID;
        am_batch_status_free(&st);
    }
    am_batch_plan_free(&plan);
    return rc;
}

static int cmd_wait(int argc, char **argv)
{
    enum { O_TIMEOUT = 256 };
    static const am_cli_opt lopts[] = {{"timeout", required_argument, O_TIMEOUT, 0}, AM_CLI_OPT_HELP};
    double timeout = 0;
    am_cli_opts op;
    am_cli_opts_begin(&op, "batch wait", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    int c;
    while ((c = am_cli_opts_next(&op)) >= 0)
        if (c == O_TIMEOUT && (!am_cli_parse_double(op.arg, &timeout) || !(timeout >= 0)))
            return am_cli_usage("batch wait", "--timeout: expected seconds, got '%s'", op.arg);
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    am_batch_plan plan;
    int rc = catalog_operand(&op, argc, argv, "batch wait", &plan);
    if (rc)
        return rc;
    am_error err;
    am_error_clear(&err);
    am_batch_status st;
    if (am_batch_wait(&plan, timeout, on_progress, "wait", &err) || am_batch_index(&plan, &st, &err)) {
        am_batch_plan_free(&plan);
        return am_cli_report(&err);
    }
    rc = print_status(&plan, &st, false);
    /* The array ended and a job has no record for its key: its task was killed or never ran. */
    if (!rc && (st.pending || st.stale)) {
        printf("%zu job%s ended without a record (a task killed or cancelled): run again to convert %s\n",
               st.pending + st.stale, st.pending + st.stale == 1 ? "" : "s", st.pending + st.stale == 1 ? "it" : "them");
        rc = AM_EXIT_INVALID;
    }
    am_batch_status_free(&st);
    am_batch_plan_free(&plan);
    return rc;
}

int am_cmd_batch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        fputs(help, stdout);
        return AM_EXIT_OK;
    }
    if (strcmp(sub, "plan") == 0)
        return cmd_plan(argc - 1, argv + 1);
    if (strcmp(sub, "work") == 0)
        return cmd_work(argc - 1, argv + 1);
    if (strcmp(sub, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(sub, "wait") == 0)
        return cmd_wait(argc - 1, argv + 1);
    if (strcmp(sub, "status") == 0)
        return cmd_status(argc - 1, argv + 1, false);
    if (strcmp(sub, "index") == 0)
        return cmd_status(argc - 1, argv + 1, true);
    if (strcmp(sub, "spawn") == 0)
        return am_cmd_batch_spawn(argc - 1, argv + 1);
    return am_cli_usage("batch", "unknown sub-command '%s' (plan, work, run, wait, status, index, spawn)", sub);
}
