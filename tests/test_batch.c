/* `animesh batch` on a generated library of 40 creatures (a real Ruth prim under several
 * names and scales, with real BVH motions; broken, hostile, duplicate and junk files among
 * them): plan and its idempotence, the local engine and GNU parallel with 2 workers, the
 * catalogue's counts and records, a rerun that converts nothing, one changed file that
 * reconverts exactly one creature, a worker killed mid-job that leaves the previous set whole,
 * the Slurm array index from the environment, and manifest errors naming entry and field. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "batch/batch.h"
#include "support/batch_library.h"
#include "support/test_support.h"


typedef struct fixture {
    char dir[512], skel[1024], data[1024], lib[700];
} fixture;

/* The text holds the fragment, else the test fails showing the whole text. */
#define assert_in(text, frag)                                                           \
    do {                                                                                \
        if (!strstr((text), (frag)))                                                    \
            fail_msg("wanted '%s' in:\n%s", (frag), (text));                            \
    } while (0)

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(f->data, sizeof f->data, "data/realdata");
    am_test_batch_library(f->lib, sizeof f->lib, f->dir, f->data);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

static void plan(fixture *f, const char *catalog, char *out, size_t size)
{
    /* No --bench: the engines are under test, not the bench (test_import_* covers it). */
    assert_int_equal(am_test_run_cli(out, size, "batch plan '%s' --out '%s' --skeleton '%s' --", f->lib, catalog,
                                     f->skel),
                     0);
}

static long long sql_count(const char *catalog, const char *query)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/catalog.db", catalog);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* Every record's inode and modification time, in name order, to see which were rewritten. */
typedef struct record_stamp {
    char name[128];
    ino_t ino;
    struct timespec mtime;
} record_stamp;

static size_t stamps(const char *catalog, record_stamp *out, size_t cap)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/results", catalog);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || n == cap)
            continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        snprintf(out[n].name, sizeof out[n].name, "%s", e->d_name);
        out[n].ino = st.st_ino;
        out[n].mtime = st.st_mtim;
        n++;
    }
    closedir(d);
    return n;
}

static size_t rewritten(const record_stamp *a, size_t na, const record_stamp *b, size_t nb, char *which, size_t size)
{
    size_t changed = 0;
    for (size_t i = 0; i < nb; i++) {
        bool same = false;
        for (size_t k = 0; k < na; k++)
            if (strcmp(a[k].name, b[i].name) == 0)
                same = a[k].ino == b[i].ino && a[k].mtime.tv_sec == b[i].mtime.tv_sec &&
                       a[k].mtime.tv_nsec == b[i].mtime.tv_nsec;
        if (!same) {
            changed++;
            snprintf(which, size, "%s", b[i].name);
        }
    }
    return changed;
}

static void test_plan_sorts_the_library_and_is_idempotent(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700], p1[800], p2[800];
    snprintf(catalog, sizeof catalog, "%s/cat", f->dir);
    plan(f, catalog, out, sizeof out);
    assert_in(out, "40 creatures, 12 motions in all");
    json_error_t jerr;
    snprintf(p1, sizeof p1, "%s/plan.json", catalog);
    json_t *root = json_load_file(p1, 0, &jerr);
    assert_non_null(root);
    assert_int_equal(json_array_size(json_object_get(root, "jobs")), AM_TEST_BATCH_GOOD + AM_TEST_BATCH_BROKEN);
    /* Each skipped file with its reason. */
    const char *want[][2] = {{"copy_of_prim.dae", "the same model, motions and options as creature 'prim_01'"},
                             {"empty.glb", "empty"},
                             {"notes.txt", "not a model or motion"},
                             {"ear.dae", "not rigged"},
                             {"stray.bvh", "a motion with no model in its folder or any folder above it"}};
    json_t *skipped = json_object_get(root, "skipped");
    assert_int_equal(json_array_size(skipped), 5);
    for (size_t w = 0; w < 5; w++) {
        bool found = false;
        size_t i;
        json_t *s;
        json_array_foreach(skipped, i, s)
        {
            const char *path = json_string_value(json_object_get(s, "path"));
            const char *reason = json_string_value(json_object_get(s, "reason"));
            if (strstr(path, want[w][0]) && strstr(reason, want[w][1]))
                found = true;
        }
        if (!found)
            fail_msg("skipped: no '%s' with reason '%s'", want[w][0], want[w][1]);
    }
    json_decref(root);
    size_t n1 = 0, n2 = 0;
    uint8_t *a = am_test_slurp(p1, &n1);
    plan(f, catalog, out, sizeof out);
    snprintf(p2, sizeof p2, "%s/plan.json", catalog);
    uint8_t *b = am_test_slurp(p2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
}

static void check_catalogue(const char *catalog, const char *out)
{
    assert_in(out, "40 jobs: 36 done, 4 failed, 0 pending, 0 stale");
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM creatures"), AM_TEST_BATCH_GOOD + AM_TEST_BATCH_BROKEN);
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM creatures WHERE status='done'"), AM_TEST_BATCH_GOOD);
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM creatures WHERE status='failed' AND error LIKE "
                                        "'%bad_%.dae%'"),
                     AM_TEST_BATCH_BROKEN);
    /* Every done creature has its part, its triangles and its motion counted. */
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM creatures WHERE status='done' AND parts=1 AND "
                                        "triangles>0 AND peak_rss_kb>0 AND wall_s>0"),
                     AM_TEST_BATCH_GOOD);
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM motions"), 12);
    assert_int_equal(sql_count(catalog, "SELECT count(*) FROM parts"), AM_TEST_BATCH_GOOD);
}

static void test_local_engine_rerun_and_one_change(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700];
    snprintf(catalog, sizeof catalog, "%s/local", f->dir);
    plan(f, catalog, out, sizeof out);
    int rc = am_test_run_cli(out, sizeof out, "batch run '%s' --engine local --jobs 2", catalog);
    assert_int_equal(rc, 1); /* four broken creatures */
    check_catalogue(catalog, out);
    assert_in(out, "FAILED bad_0:");
    /* Each done creature's set is whole: its mesh, skin, archive and report. */
    char path[1500];
    snprintf(path, sizeof path, "%s/creatures/prim_05/prim_05.oar", catalog);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/creatures/prim_05/prim_05.llmesh", catalog);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/creatures/bad_0", catalog);
    assert_false(exists(path));

    record_stamp before[64], after[64];
    size_t nb = stamps(catalog, before, 64);
    assert_int_equal(nb, AM_TEST_BATCH_GOOD + AM_TEST_BATCH_BROKEN);
    rc = am_test_run_cli(out, sizeof out, "batch run '%s' --engine local --jobs 2", catalog);
    assert_int_equal(rc, 1);
    assert_in(out, "ran 0 of 40 jobs");
    char which[128] = "";
    size_t na = stamps(catalog, after, 64);
    assert_int_equal(rewritten(before, nb, after, na, which, sizeof which), 0);

    /* One creature's file changes: only it is stale, and only it is converted again. */
    snprintf(path, sizeof path, "%s/store/creature_07/prim_07.dae", f->lib);
    FILE *dae = fopen(path, "ab");
    assert_non_null(dae);
    fputs("<!-- edited -->\n", dae);
    fclose(dae);
    rc = am_test_run_cli(out, sizeof out, "batch status '%s'", catalog);
    assert_int_equal(rc, 1);
    assert_in(out, "40 jobs: 35 done, 4 failed, 0 pending, 1 stale");
    rc = am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 2", catalog);
    assert_in(out, "ran 1 of 40 jobs: 1 done, 0 failed");
    na = stamps(catalog, after, 64);
    assert_int_equal(rewritten(before, nb, after, na, which, sizeof which), 1);
    assert_string_equal(which, "prim_07.json");

    /* status --json: the same counts, each failure with its error. */
    rc = am_test_run_cli(out, sizeof out, "batch status '%s' --json", catalog);
    assert_int_equal(rc, 1);
    json_error_t jerr;
    json_t *root = json_loads(out, 0, &jerr);
    assert_non_null(root);
    assert_int_equal(json_integer_value(json_object_get(root, "done")), AM_TEST_BATCH_GOOD);
    assert_int_equal(json_integer_value(json_object_get(root, "failed")), AM_TEST_BATCH_BROKEN);
    size_t i;
    json_t *job;
    size_t errors = 0;
    json_array_foreach(json_object_get(root, "jobs"), i, job) errors +=
        json_string_length(json_object_get(job, "error")) > 0;
    assert_int_equal(errors, AM_TEST_BATCH_BROKEN);
    json_decref(root);
}

static void test_gnu_parallel_engine(void **state)
{
    fixture *f = *state;
    if (system("command -v parallel >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: GNU parallel is not installed (Debian package parallel)\n");
        skip();
    }
    char out[65536], catalog[700], path[1200];
    snprintf(catalog, sizeof catalog, "%s/par", f->dir);
    plan(f, catalog, out, sizeof out);
    int rc = am_test_run_cli(out, sizeof out, "batch run '%s' --engine parallel --jobs 2", catalog);
    assert_int_equal(rc, 1);
    check_catalogue(catalog, out);
    /* parallel's own joblog: one line per job and its header. */
    snprintf(path, sizeof path, "%s/run/parallel.joblog", catalog);
    size_t n = 0;
    char *log = (char *)am_test_slurp(path, &n);
    size_t lines = 0;
    for (size_t k = 0; k < n; k++)
        lines += log[k] == '\n';
    assert_int_equal(lines, 1 + AM_TEST_BATCH_GOOD + AM_TEST_BATCH_BROKEN);
    free(log);
    rc = am_test_run_cli(out, sizeof out, "batch run '%s' --engine parallel --jobs 2", catalog);
    assert_in(out, "ran 0 of 40 jobs");
    /* The broken four again: their old records are not this run's progress (it used to open
     * with "4/4 done, 4 failed" at thousands of jobs per second, before any had run). */
    rc = am_test_run_cli(out, sizeof out, "batch run '%s' --engine parallel --jobs 2 --retry-failed", catalog);
    assert_int_equal(rc, 1);
    assert_in(out, "4 of 40 jobs to run");
    assert_in(out, "0/4 done, 0 failed");
    assert_in(out, "ran 4 of 40 jobs: 0 done, 4 failed");
}

/* A worker killed mid-job: the creature keeps its previous set, whole; no record changes;
 * the next run finishes the job and sweeps the killed one's staging folder. */
static void test_killed_worker_leaves_the_previous_set(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700], manifest[800], path[1500];
    snprintf(catalog, sizeof catalog, "%s/kill", f->dir);
    snprintf(manifest, sizeof manifest, "%s/bear.json", f->dir);
    char text[3000];
    snprintf(text, sizeof text,
             "{\"creatures\": [{\"name\": \"bear\", \"model\": \"%s/Little Bear_90.dae\","
             " \"motions\": [\"%s/TeddyIdle.bvh\"], \"options\": [\"--bench\"]}]}",
             f->data, f->data);
    am_test_write_text(manifest, text);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch plan --manifest '%s' --out '%s' --skeleton '%s'",
                                     manifest, catalog, f->skel),
                     0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 1", catalog), 0);
    snprintf(path, sizeof path, "%s/creatures/bear/bear.llmesh", catalog);
    size_t mesh_size = 0;
    uint8_t *mesh = am_test_slurp(path, &mesh_size);
    char record[1200];
    snprintf(record, sizeof record, "%s/results/bear.json", catalog);
    size_t rec_size = 0;
    uint8_t *rec = am_test_slurp(record, &rec_size);
    int files_before = 0;
    char folder[1200];
    snprintf(folder, sizeof folder, "%s/creatures/bear", catalog);
    files_before = am_test_count_entries(folder);

    /* --force converts again; killed after the import started writing into its stage. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(AM_CLI_PATH, AM_CLI_PATH, "batch", "work", catalog, "--job", "0", "--force", (char *)NULL);
        _exit(127);
    }
    bool staged = false;
    for (int waited = 0; waited < 400 && !staged; waited++) {
        struct timespec t = {0, 10 * 1000 * 1000};
        nanosleep(&t, NULL);
        char creatures[1300];
        snprintf(creatures, sizeof creatures, "%s/creatures", catalog);
        DIR *d = opendir(creatures);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;)
            if (strncmp(e->d_name, ".bear.work-", 11) == 0) {
                char stage[1500];
                snprintf(stage, sizeof stage, "%s/%s", creatures, e->d_name);
                staged = am_test_count_entries(stage) > 2; /* the import is writing its files */
            }
        if (d)
            closedir(d);
    }
    assert_true(staged);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    size_t n = 0;
    uint8_t *now = am_test_slurp(path, &n);
    assert_int_equal(n, mesh_size);
    assert_memory_equal(now, mesh, n);
    free(now);
    assert_int_equal(am_test_count_entries(folder), files_before);
    now = am_test_slurp(record, &n);
    assert_int_equal(n, rec_size);
    assert_memory_equal(now, rec, n);
    free(now);

    /* A link planted where the creature's folder goes: the next set takes its place, the
     * link's target is left as it was. */
    char victim[1200], planted[1300];
    snprintf(victim, sizeof victim, "%s/victim", f->dir);
    mkdir(victim, 0777);
    snprintf(planted, sizeof planted, "%s/notes.txt", victim);
    am_test_write_text(planted, "mine\n");
    char aside[1300];
    snprintf(aside, sizeof aside, "%s.aside", folder);
    assert_int_equal(rename(folder, aside), 0);
    assert_int_equal(symlink(victim, folder), 0);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch work '%s' --job 0 --force", catalog), 0);
    struct stat ls;
    assert_int_equal(lstat(folder, &ls), 0);
    assert_true(S_ISDIR(ls.st_mode)); /* a real folder now, not the link */
    assert_int_equal(am_test_count_entries(victim), 1);
    am_test_rmtree(aside);

    /* Run again (forced): the stage of the killed worker is swept, the set replaced whole. */
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --force --jobs 1", catalog), 0);
    char creatures[1300];
    snprintf(creatures, sizeof creatures, "%s/creatures", catalog);
    assert_int_equal(am_test_count_entries(creatures), 1);
    assert_int_equal(am_test_count_entries(folder), files_before);
    now = am_test_slurp(path, &n);
    assert_int_equal(n, mesh_size);
    assert_memory_equal(now, mesh, n); /* the same inputs make the same bytes */
    free(now);
    free(mesh);
    free(rec);
}

/* Two runs into one catalogue: the second is refused at once (it would convert every job
 * again beside the first), saying so; the first's lock goes with it. */
static void test_a_second_run_of_one_catalogue_is_refused(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700], lock[800];
    snprintf(catalog, sizeof catalog, "%s/two", f->dir);
    plan(f, catalog, out, sizeof out);
    snprintf(lock, sizeof lock, "%s/run", catalog);
    mkdir(lock, 0777);
    snprintf(lock, sizeof lock, "%s/run/.lock", catalog);
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0); /* a run in progress */
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 2", catalog), 2);
    assert_in(out, "another batch run is running on this catalogue");
    char results[800];
    snprintf(results, sizeof results, "%s/results", catalog);
    assert_false(exists(results)); /* nothing converted */
    close(fd); /* the first run ends */
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --jobs 2", catalog), 1);
    assert_in(out, "ran 40 of 40 jobs: 36 done, 4 failed");
}

/* plan.json read from memory: a field given twice keeps the last (the first freed: the fuzz
 * target's leak), a job without a key is refused naming it, and a failed read leaves nothing. */
static void test_plan_reader_duplicates_and_damage(void **state)
{
    (void)state;
    static const char twice[] =
        "{\"version\":\"a\",\"version\":\"b\",\"skeleton\":\"/s\",\"jobs\":[{\"name\":\"x\",\"name\":\"fox\","
        "\"model\":\"/m\",\"motions\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\",\"l\",\"m\","
        "\"n\",\"o\",\"p\",\"q\",\"r\",\"s\",\"t\"],\"motions\":[\"run\"],"
        "\"key\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}]}";
    am_batch_plan plan;
    am_error err;
    assert_int_equal(am_batch_plan_parse("/cat", (const uint8_t *)twice, sizeof twice - 1, "plan.json", &plan, &err),
                     AM_OK);
    assert_string_equal(plan.version, "b");
    assert_int_equal(plan.job_count, 1);
    assert_string_equal(plan.jobs[0].name, "fox");
    assert_int_equal(plan.jobs[0].motion_count, 1); /* the second list, not appended to the first's 20 */
    assert_string_equal(plan.jobs[0].motions[0], "run");
    am_batch_plan_free(&plan);
    static const char no_key[] = "{\"version\":\"a\",\"skeleton\":\"/s\",\"jobs\":[{\"name\":\"fox\","
                                 "\"model\":\"/m\"}]}";
    assert_int_equal(am_batch_plan_parse("/cat", (const uint8_t *)no_key, sizeof no_key - 1, "plan.json", &plan, &err),
                     AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "jobs[0]: name, model or key missing or invalid"));
    assert_null(plan.jobs);
    assert_null(plan.catalog);
}

static void test_job_from_the_slurm_array_index(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700], path[1200];
    snprintf(catalog, sizeof catalog, "%s/env", f->dir);
    plan(f, catalog, out, sizeof out);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch work '%s'", catalog), 2);
    assert_in(out, "SLURM_ARRAY_TASK_ID");
    /* cd so the shell's environment assignment applies to the CLI alone. */
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "SLURM_ARRAY_TASK_ID=5 '%s' batch work '%s' >/dev/null 2>&1", AM_CLI_PATH, catalog);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "JOB_COMPLETION_INDEX=6 '%s' batch work '%s' >/dev/null 2>&1", AM_CLI_PATH, catalog);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/results", catalog);
    assert_int_equal(am_test_count_entries(path), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch work '%s' --job 40", catalog), 2);
    assert_in(out, "no job 40: the plan has 40 (0..39)");
}

static void test_manifest_errors_name_entry_and_field(void **state)
{
    fixture *f = *state;
    char out[65536], catalog[700], manifest[800], text[3000];
    snprintf(catalog, sizeof catalog, "%s/bad", f->dir);
    snprintf(manifest, sizeof manifest, "%s/m.json", f->dir);
    struct {
        const char *body;
        const char *want;
    } cases[] = {
        {"{\"creatures\": [{\"model\": \"lib/nightly/creature_00/prim_00.dae\"}, {\"motions\": []}]}",
         "m.json: creatures[1].model: required: the model file (a string)"},
        {"{\"creatures\": [{\"model\": \"lib/nightly/creature_00/prim_00.dae\", \"colour\": 1}]}",
         "m.json: creatures[0]: unknown field 'colour'"},
        {"{\"creatures\": [{\"model\": \"lib/nightly/creature_00/prim_00.dae\", \"options\": [\"--out\", \"x\"]}]}",
         "creatures[0].options: '--out' is set by batch itself"},
        {"{\"creatures\": [{\"model\": \"lib/junk/notes.txt\"}]}", "creatures[0].model: 'lib/junk/notes.txt' is not a "
                                                                   "rigged model"},
        {"{\"creatures\": [{\"model\": \"lib/nightly/creature_00/prim_00.dae\", \"position\": [1, 2]}]}",
         "creatures[0].position: expected [x, y, z]"},
        {"{\"creatures\": [{\"model\": \"lib/nightly/creature_00/prim_00.dae\", \"motions\": [\"missing.bvh\"]}]}",
         "creatures[0].motions[0]: 'missing.bvh': No such file or directory"},
        {"{\"creatures\": [", "m.json: line 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(text, sizeof text, "%s", cases[i].body);
        am_test_write_text(manifest, text);
        int rc = am_test_run_cli(out, sizeof out, "batch plan --manifest '%s' --out '%s' --skeleton '%s'", manifest,
                                 catalog, f->skel);
        assert_int_not_equal(rc, 0);
        if (!strstr(out, cases[i].want))
            fail_msg("case %zu: wanted '%s' in:\n%s", i, cases[i].want, out);
        char plan_path[900];
        snprintf(plan_path, sizeof plan_path, "%s/plan.json", catalog);
        assert_false(exists(plan_path)); /* nothing planned from a bad manifest */
    }
    /* A good manifest: names, motions with a clip, region and position kept. */
    snprintf(text, sizeof text,
             "{\"region\": \"Zoo\", \"creatures\": [{\"name\": \"fox\", \"model\": "
             "\"lib/nightly/creature_00/prim_00.dae\", \"motions\": [\"lib/nightly/creature_00/anims/idle.bvh\"],"
             " \"position\": [10, 20, 30]}]}");
    am_test_write_text(manifest, text);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch plan --manifest '%s' --out '%s' --skeleton '%s'",
                                     manifest, catalog, f->skel),
                     0);
    char plan_path[900];
    snprintf(plan_path, sizeof plan_path, "%s/plan.json", catalog);
    json_error_t jerr;
    json_t *root = json_load_file(plan_path, 0, &jerr);
    json_t *job = json_array_get(json_object_get(root, "jobs"), 0);
    assert_string_equal(json_string_value(json_object_get(job, "name")), "fox");
    assert_string_equal(json_string_value(json_object_get(job, "region")), "Zoo");
    assert_near(json_number_value(json_array_get(json_object_get(job, "position"), 2)), 30, 1e-9);
    assert_int_equal(json_array_size(json_object_get(job, "motions")), 1);
    json_decref(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plan_sorts_the_library_and_is_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_local_engine_rerun_and_one_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gnu_parallel_engine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_worker_leaves_the_previous_set, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_second_run_of_one_catalogue_is_refused, setup, teardown),
        cmocka_unit_test(test_plan_reader_duplicates_and_damage),
        cmocka_unit_test_setup_teardown(test_job_from_the_slurm_array_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_manifest_errors_name_entry_and_field, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
