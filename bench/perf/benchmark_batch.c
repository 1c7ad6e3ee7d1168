/* `animesh batch` on a generated library, whole commands as a grid runs them (issue 29; not a
 * test). For each library size (40 and 200 creatures: Ruth's root prim under as many names
 * and scales, every third with a BVH, bench_library.h) in a temporary folder:
 *
 *   shell loop   the loop a user writes today: `animesh import MODEL --out DIR --anim ... --oar`
 *                one creature after the other (the baseline)
 *   1 worker     plan, then `batch run --jobs 1`
 *   2 workers    a fresh catalogue, `batch run --jobs 2`
 *   the limit    the sum of the jobs' own wall times (their records' job_wall_s: the key, the
 *                import, the thumbnail, the swap; from the 1-worker run) divided by the cores:
 *                no engine can beat it (their imports' share printed beside it)
 *   rerun        `batch run` again with nothing changed (target under 2 s for 200)
 *
 * Then `batch status` on a catalogue of --records simulated records (default 100,000): a plan
 * of that many jobs on one real model, a record for each (done, with a small report), the
 * first status (indexes every record into SQLite) and the next (nothing changed: a stat per
 * job; target under 1 s). Peak memory: the import child's (records) against `animesh import`
 * alone on the same creature, and the worker process's own.
 *
 * Each figure is the median of --repeats runs (wall seconds). Jobs run as batch runs them by
 * default (--bench --preview: each creature benched, its pose sheet and page written), and the
 * shell loop with the same options; --no-bench runs both without (the engine's own cost laid
 * bare: a job is then a few tens of milliseconds).
 *
 * usage: benchmark_batch [--cli PATH] [--shared DIR] [--sizes N,N] [--records N] [--repeats N] [--no-bench]
 *                        [--prims] */
#define _DEFAULT_SOURCE /* wait4 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/perf/support/batch_library.h"

#ifndef AM_SHARED_DIR
#define AM_SHARED_DIR "../shared"
#endif

#define MAX_REPEATS 9

static char cli[PATH_MAX], shared[PATH_MAX], realdata[PATH_MAX + 32], skel[PATH_MAX + 64];
static bool no_bench, prims;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Run a shell command line; its wall seconds, the peak RSS (kB) of its largest process. */
static double run(const char *cmd, long *peak_kb, int *rc)
{
    double t0 = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    double wall = now_s() - t0;
    struct rusage kids;
    getrusage(RUSAGE_CHILDREN, &kids);
    if (peak_kb)
        *peak_kb = kids.ru_maxrss;
    if (rc)
        *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return wall;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void rmtree(const char *dir)
{
    nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The records' wall times summed, and the job with the largest import peak (kB): its import
 * arguments (model, motions) into `args` for the same import alone. */
static void record_sums(const char *catalog, double *sum_wall, double *sum_import, long *peak_kb, long *worker_kb,
                        char *args, size_t args_size)
{
    *sum_wall = 0;
    *sum_import = 0;
    *peak_kb = 0;
    *worker_kb = 0;
    args[0] = '\0';
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/plan.json", catalog);
    json_error_t jerr;
    json_t *plan = json_load_file(path, 0, &jerr);
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(plan, "jobs"), i, job)
    {
        snprintf(path, sizeof path, "%s/results/%s.json", catalog, json_string_value(json_object_get(job, "name")));
        json_t *rec = json_load_file(path, 0, &jerr);
        *sum_wall += json_number_value(json_object_get(rec, "job_wall_s"));
        *sum_import += json_number_value(json_object_get(rec, "wall_s"));
        long kb = (long)json_integer_value(json_object_get(rec, "peak_rss_kb"));
        long wkb = (long)json_integer_value(json_object_get(rec, "worker_rss_kb"));
        if (wkb > *worker_kb)
            *worker_kb = wkb;
        if (kb > *peak_kb) {
            *peak_kb = kb;
            int n = snprintf(args, args_size, "'%s'", json_string_value(json_object_get(job, "model")));
            size_t k;
            json_t *m;
            json_array_foreach(json_object_get(job, "motions"), k, m) if (n > 0 && (size_t)n < args_size) n +=
                snprintf(args + n, args_size - (size_t)n, " --anim '%s'", json_string_value(m));
        }
        json_decref(rec);
    }
    json_decref(plan);
}

/* The loop a user writes around `animesh import`, over the same library. */
static double shell_loop(const char *lib, const char *out)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for m in $(find . -name '*.dae' | sort); do d=$(dirname \"$m\"); n=$(basename \"$m\" .dae); "
             "a=; for b in \"$d\"/anims/*.bvh \"$d\"/*.bvh; do [ -f \"$b\" ] && a=\"$a --anim $b\"; done; "
             "'%s' import \"$m\" --out '%s'/\"$n\" --oar '%s'/\"$n\"/\"$n\".oar --skeleton '%s' %s $a >/dev/null 2>&1; done",
             lib, cli, out, out, skel, no_bench ? "" : "--bench --preview");
    return run(cmd, NULL, NULL);
}

static void library_case(const char *tmp, int size, int repeats, unsigned cores)
{
    char dir[PATH_MAX], lib[PATH_MAX + 16], why[1024], cmd[4 * PATH_MAX], cat[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/lib%d", tmp, size);
    mkdir(dir, 0777);
    bool made = prims ? am_bench_batch_library(dir, realdata, size, 0, false, lib, sizeof lib, why, sizeof why)
                      : am_bench_batch_library_mixed(dir, realdata, size, lib, sizeof lib, why, sizeof why);
    if (!made) {
        fprintf(stderr, "benchmark_batch: %s\n", why);
        exit(1);
    }
    double loop[MAX_REPEATS], one[MAX_REPEATS], two[MAX_REPEATS], rerun[MAX_REPEATS], plan_s[MAX_REPEATS];
    double limit = 0, sum_wall = 0, sum_import = 0;
    long import_peak = 0, worker_peak = 0;
    char peak_args[3 * PATH_MAX] = "";
    for (int r = 0; r < repeats; r++) {
        char out[PATH_MAX + 32];
        snprintf(out, sizeof out, "%s/loop", dir);
        rmtree(out);
        mkdir(out, 0777);
        loop[r] = shell_loop(lib, out);
        rmtree(out);
        for (int workers = 1; workers <= 2; workers++) {
            snprintf(cat, sizeof cat, "%s/cat%d", dir, workers);
            rmtree(cat);
            snprintf(cmd, sizeof cmd, "'%s' batch plan '%s' --out '%s' --skeleton '%s' %s >/dev/null 2>&1", cli, lib,
                     cat, skel, no_bench ? "--" : "");
            plan_s[r] = run(cmd, NULL, NULL);
            snprintf(cmd, sizeof cmd, "'%s' batch run '%s' --jobs %d >/dev/null 2>&1", cli, cat, workers);
            double t = run(cmd, NULL, NULL);
            (workers == 1 ? one : two)[r] = t;
            if (workers == 1) {
                record_sums(cat, &sum_wall, &sum_import, &import_peak, &worker_peak, peak_args, sizeof peak_args);
                limit = sum_wall / (double)cores;
            }
        }
        snprintf(cmd, sizeof cmd, "'%s' batch run '%s' --jobs 2 >/dev/null 2>&1", cli, cat);
        rerun[r] = run(cmd, NULL, NULL);
    }
    /* `animesh import` alone on the creature whose job took the most memory, the same options. */
    snprintf(cmd, sizeof cmd,
             "'%s' import %s --out '%s/alone' --oar '%s/alone/a.oar' --json --skeleton '%s' %s >/dev/null 2>&1",
             cli, peak_args, dir, dir, skel, no_bench ? "" : "--bench --preview");
    /* The peak moves by a tenth from run to run (the pictures' threads interleave their
     * buffers): the largest of as many runs of import alone as the library has copies of a
     * creature (at least 5) is what the largest job's peak is held against. */
    long alone_kb = 0;
    int alone_runs = prims ? size : size / 5;
    if (alone_runs < 5)
        alone_runs = 5;
    for (int k = 0; k < alone_runs; k++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            _exit(127);
        }
        struct rusage ru;
        int status;
        wait4(pid, &status, 0, &ru);
        if (ru.ru_maxrss > alone_kb)
            alone_kb = ru.ru_maxrss;
    }
    double m_loop = median(loop, repeats), m_one = median(one, repeats), m_two = median(two, repeats);
    double m_rerun = median(rerun, repeats), m_plan = median(plan_s, repeats);
    printf("library of %d creatures (%d runs, median wall seconds):\n", size, repeats);
    printf("  plan                    %8.3f s\n", m_plan);
    printf("  shell loop (baseline)   %8.3f s\n", m_loop);
    printf("  batch run, 1 worker     %8.3f s   %.2fx the shell loop's speed\n", m_one, m_loop / m_one);
    printf("  batch run, 2 workers    %8.3f s   %.2fx the shell loop's speed\n", m_two, m_loop / m_two);
    printf("  the limit               %8.3f s   (the jobs' own %.3f s / %u cores; of which their imports %.3f s); 2 "
           "workers at %.3fx the limit (target 1.15x)\n",
           limit, sum_wall, cores, sum_import, m_two / limit);
    printf("  rerun, nothing changed  %8.3f s   (target under 2 s for 200)\n", m_rerun);
    printf("  peak memory of the hungriest job: its import child %ld kB, animesh import alone on it %ld kB (the "
           "largest of %d runs); a worker process itself at most %ld kB\n",
           import_peak, alone_kb, alone_runs, worker_peak);
    rmtree(dir);
}

/* A catalogue of n simulated records: a plan of n jobs on one real model (its keys made by a
 * first status), then a done record for each (every 50th failed) with those keys. */
static void status_case(const char *tmp, long n, int repeats)
{
    char cat[PATH_MAX], path[PATH_MAX + 64], model[PATH_MAX + 64], cmd[PATH_MAX * 3];
    snprintf(cat, sizeof cat, "%s/records", tmp);
    mkdir(cat, 0777);
    snprintf(path, sizeof path, "%s/results", cat);
    mkdir(path, 0777);
    snprintf(model, sizeof model, "%s/r2ROOTPRIM_rigged.dae", realdata);
    snprintf(path, sizeof path, "%s/plan.json", cat);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fprintf(f, "{\"animesh_batch_plan\": 1, \"version\": \"bench\", \"skeleton\": \"%s\", \"jobs\": [\n", skel);
    for (long i = 0; i < n; i++)
        fprintf(f,
                "%s{\"name\": \"c%06ld\", \"model\": \"%s\", \"motions\": [], \"options\": [], \"map\": null, "
                "\"region\": null, \"position\": null, \"key\": \"%064ld\"}\n",
                i ? "," : "", i, model, i);
    fprintf(f, "], \"skipped\": []}\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' batch status '%s' >/dev/null 2>&1", cli, cat);
    double keys = run(cmd, NULL, NULL); /* the keys of the files as they are */
    json_error_t jerr;
    json_t *plan = json_load_file(path, 0, &jerr);
    size_t i;
    json_t *job;
    json_array_foreach(json_object_get(plan, "jobs"), i, job)
    {
        snprintf(path, sizeof path, "%s/results/c%06zu.json", cat, i);
        f = fopen(path, "w");
        if (!f)
            exit(1);
        bool failed = i % 50 == 0;
        fprintf(f,
                "{\"animesh_batch_record\":1,\"name\":\"c%06zu\",\"key\":\"%s\",\"version\":\"bench\","
                "\"status\":\"%s\",\"exit\":%d,\"signal\":0,\"error\":\"%s\",\"model\":\"%s\",\"motions\":[],"
                "\"started\":\"2026-12-05T00:00:00Z\",\"wall_s\":0.5,\"cpu_s\":0.4,\"peak_rss_kb\":50000,\"host\":\"h\","
                "\"report\":{\"route\":\"faithful\",\"format\":\"COLLADA\",\"parts\":[{\"name\":\"p\",\"vertices\":100,"
                "\"triangles\":%zu,\"joints\":20,\"weighted_joints\":10,\"estimated_triangles\":200.0,"
                "\"streaming_cost\":1.5,\"rest_error_m\":0.0,\"bench\":[]}],\"findings\":[],\"motion_details\":[]}}\n",
                i, json_string_value(json_object_get(job, "key")), failed ? "failed" : "done", failed ? 1 : 0,
                failed ? "simulated failure" : "", model, 100 + i);
        fclose(f);
    }
    json_decref(plan);
    snprintf(cmd, sizeof cmd, "'%s' batch index '%s' >/dev/null 2>&1", cli, cat);
    double first = run(cmd, NULL, NULL);
    double next[MAX_REPEATS];
    long peak = 0;
    snprintf(cmd, sizeof cmd, "'%s' batch status '%s' > '%s/status.txt' 2>&1", cli, cat, tmp);
    for (int r = 0; r < repeats; r++)
        next[r] = run(cmd, &peak, NULL);
    snprintf(path, sizeof path, "%s/status.txt", tmp);
    char line[256] = "";
    f = fopen(path, "r");
    if (f && fgets(line, sizeof line, f))
        line[strcspn(line, "\n")] = '\0';
    if (f)
        fclose(f);
    printf("batch status on %ld simulated records: the first keys %.3f s, the first index %.3f s; status with "
           "nothing changed %.3f s (median of %d; target under 1 s): \"%s\"\n",
           n, keys, first, median(next, repeats), repeats, line);
    rmtree(cat);
}

int main(int argc, char **argv)
{
    int repeats = 3;
    long records = 100000;
    char sizes[64] = "40,200";
    snprintf(shared, sizeof shared, "%s", AM_SHARED_DIR);
    /* the CLI beside this program (build/bench/perf/.. -> build/animesh) */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(cli, sizeof cli, "%s/animesh", self);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc)
            snprintf(cli, sizeof cli, "%s", argv[++i]);
        else if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc)
            snprintf(shared, sizeof shared, "%s", argv[++i]);
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc)
            snprintf(sizes, sizeof sizes, "%s", argv[++i]);
        else if (strcmp(argv[i], "--records") == 0 && i + 1 < argc)
            records = atol(argv[++i]);
        else if (strcmp(argv[i], "--prims") == 0)
            prims = true;
        else if (strcmp(argv[i], "--no-bench") == 0)
            no_bench = true;
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: benchmark_batch [--cli PATH] [--shared DIR] [--sizes N,N] [--records N] "
                            "[--repeats N] [--no-bench] [--prims]\n");
            return 2;
        }
    }
    if (repeats < 1 || repeats > MAX_REPEATS)
        repeats = 3;
    snprintf(skel, sizeof skel, "%s/viewer/avatar_skeleton.xml", shared);
    snprintf(realdata, sizeof realdata, "%s/data/realdata", shared);
    char tmp[] = "/tmp/animesh-benchmark-batch-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    unsigned cores = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    printf("benchmark_batch: %s, %u cores\n", cli, cores);
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ","))
        if (atoi(tok) > 0)
            library_case(tmp, atoi(tok), repeats, cores);
    if (records > 0)
        status_case(tmp, records, repeats);
    rmtree(tmp);
    return 0;
}
