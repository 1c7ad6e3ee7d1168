/* The whole `animesh bind` command as a user runs it (issue 22; not a test): reading the
 * OBJ, binding, the quality report and its pictures, writing the output set.
 *
 * Sizes: the 10k and 50k creatures of ../shared/data/creature and the 50k creature with
 * every edge split in 2 (200,314 vertices) and 3 (450,704 vertices, 901,404 triangles: the
 * issue's "425k" size, a little bigger), written
 * as OBJ into a temporary folder (removed at the end). Each run fork/execs the built CLI
 * (`animesh` beside this program, or --cli PATH) with --skeleton-rig of the creature's
 * skeleton, into a fresh output folder; wait4 gives its CPU time (user + sys) and peak
 * RSS. Per size: the median of --repeats runs (wall and CPU), the target (>= 5x Blender's
 * bone heat: 0.15, 1.06, 6.6, 18 s), and the ratio to Blender (0.74, 5.3, 33, 92 s). On a
 * shared machine wall time includes waiting for a core: the CPU time is printed beside it
 * (a command that is not waiting has wall close to CPU / cores used). Then per size the
 * command's phases (median wall / CPU of each, read from NAME.bind.json's "seconds":
 * "command" and "command_cpu", bind_run.h) and the binding's own steps; "rest" is the
 * command's wall time outside the phases (start-up, the viewer skeleton, the renames, exit).
 *
 * usage: benchmark_bind_command [--repeats N] [--only 10k|50k|200k|450k] [--shared DIR]
 *                               [--cli PATH] [--keep DIR] [-- EXTRA BIND ARGS...]
 * --keep DIR writes the generated OBJs into DIR and leaves them there (for profiling). */
#define _DEFAULT_SOURCE /* wait4, getloadavg */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "bench/perf/support/creature_split.h"
#include "core/clock.h"
#include "report/bind_run.h"
#include "readers/scene_load.h"

#ifndef AM_SHARED_DIR
#define AM_SHARED_DIR "../shared"
#endif

#define MAX_REPEATS 9
#define MAX_EXTRA 16
#define MAX_CASES 4
#define KERNEL_STEPS 4

static const char *const KERNEL[KERNEL_STEPS] = {"topology", "visibility", "factor", "solve"};

/* One size's phases over its runs (from the .bind.json of each). */
typedef struct phase_runs {
    bool known;
    double wall[AM_BIND_PHASE_COUNT][MAX_REPEATS], cpu[AM_BIND_PHASE_COUNT][MAX_REPEATS];
    double kernel[KERNEL_STEPS][MAX_REPEATS];
    double command_wall[MAX_REPEATS];
} phase_runs;

typedef struct size_case {
    const char *name;
    const char *stem; /* creature of ../shared/data/creature */
    int split;        /* every edge split in this many (0: the file itself) */
    double target_s;  /* Blender / 5 */
    double blender_s;
} size_case;

static const size_case CASES[] = {
    {"10k", "creature_10k", 0, 0.15, 0.74},
    {"50k", "creature_50k", 0, 1.06, 5.3},
    {"200k", "creature_50k", 2, 6.6, 33},
    {"450k", "creature_50k", 3, 18, 92},
};
#define NCASES (sizeof CASES / sizeof CASES[0])
_Static_assert(NCASES <= MAX_CASES, "phases holds every case");

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The case's mesh as an OBJ file (a split one generated into dir once). */
static int case_obj(const size_case *c, const char *shared, const char *dir, char *path, size_t size)
{
    char src[PATH_MAX];
    snprintf(src, sizeof src, "%s/data/creature/%s.obj", shared, c->stem);
    if (!c->split) {
        snprintf(path, size, "%s", src);
        return 0;
    }
    snprintf(path, size, "%s/creature_%s.obj", dir, c->name);
    if (access(path, R_OK) == 0)
        return 0;
    am_error err;
    am_scene sc;
    if (am_scene_load(src, &sc, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        return -1;
    }
    const am_scene_mesh *m = &sc.meshes[0];
    float *pos = NULL;
    uint32_t *tri = NULL;
    size_t nv = 0, nt = 0;
    int rc = am_test_creature_split(m->positions, m->vertex_count, m->faces[0].indices, m->faces[0].index_count / 3,
                                    c->split, &pos, &nv, &tri, &nt);
    if (!rc)
        rc = am_test_creature_write_obj(path, pos, nv, tri, nt);
    if (rc)
        fprintf(stderr, "could not generate %s\n", path);
    free(pos);
    free(tri);
    am_scene_free(&sc);
    return rc;
}

/* Run r's phases from DIR/NAME.bind.json (false when it has none: an older build). */
static bool read_phases(const char *out_dir, const char *obj, int r, phase_runs *pr)
{
    const char *base = strrchr(obj, '/');
    base = base ? base + 1 : obj;
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%.*s.bind.json", out_dir, (int)(strlen(base) > 4 ? strlen(base) - 4 : strlen(base)),
             base);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *sec = json_object_get(root, "seconds");
    json_t *w = json_object_get(sec, "command"), *c = json_object_get(sec, "command_cpu");
    bool ok = w && c;
    for (int p = 0; p < AM_BIND_PHASE_COUNT && ok; p++) {
        pr->wall[p][r] = json_number_value(json_object_get(w, am_report_bind_phase_name((am_report_bind_phase)p)));
        pr->cpu[p][r] = json_number_value(json_object_get(c, am_report_bind_phase_name((am_report_bind_phase)p)));
    }
    for (int k = 0; k < KERNEL_STEPS && ok; k++)
        pr->kernel[k][r] = json_number_value(json_object_get(sec, KERNEL[k]));
    json_decref(root);
    return ok;
}

/* One run of the command: wall and CPU seconds, peak RSS in kB; its exit status. */
static int run_once(char *const argv[], double *wall, double *cpu, long *rss_kb)
{
    fflush(stdout);
    double t0 = am_clock_wall_s();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int ws = 0;
    struct rusage ru;
    if (wait4(pid, &ws, 0, &ru) < 0)
        return -1;
    *wall = am_clock_wall_s() - t0;
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
    *rss_kb = ru.ru_maxrss;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

int main(int argc, char **argv)
{
    int repeats = 3;
    const char *only = NULL, *shared = AM_SHARED_DIR, *keep = NULL;
    char cli[PATH_MAX];
    const char *slash = strrchr(argv[0], '/');
    snprintf(cli, sizeof cli, "%.*sanimesh", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    const char *extra[MAX_EXTRA];
    int n_extra = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc)
            shared = argv[++i];
        else if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc)
            snprintf(cli, sizeof cli, "%s", argv[++i]);
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else if (strcmp(argv[i], "--") == 0) {
            while (++i < argc && n_extra < MAX_EXTRA)
                extra[n_extra++] = argv[i];
        } else {
            fprintf(stderr, "usage: benchmark_bind_command [--repeats N] [--only 10k|50k|200k|450k] [--shared DIR]\n"
                            "                              [--cli PATH] [--keep DIR] [-- EXTRA BIND ARGS...]\n");
            return 2;
        }
    }
    if (repeats < 1 || repeats > MAX_REPEATS)
        repeats = 3;
    char tmpdir[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/animesh-benchmark-bind-command-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 3;
    }
    char viewer[PATH_MAX];
    snprintf(viewer, sizeof viewer, "%s/viewer/avatar_skeleton.xml", shared);
    if (!getenv("ANIMESH_SKELETON"))
        setenv("ANIMESH_SKELETON", viewer, 1);
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("machine: %ld cores online, load average %.2f %.2f %.2f at start\n", sysconf(_SC_NPROCESSORS_ONLN),
               load[0], load[1], load[2]);
    printf("%s bind, median of %d runs (wall includes waiting for a core on a shared machine)\n\n", cli, repeats);
    printf("%-5s %8s %8s %8s %8s %8s %8s %9s  %s\n", "size", "wall s", "cpu s", "target", "blender", "ratio",
           "cpu ratio", "peak MB", "runs (wall/cpu)");
    int status = 0;
    static phase_runs phases[MAX_CASES];
    int measured_runs[MAX_CASES] = {0};
    for (size_t k = 0; k < NCASES; k++) {
        const size_case *c = &CASES[k];
        if (only && strcmp(only, c->name) != 0)
            continue;
        char obj[PATH_MAX + 64], rig[PATH_MAX + 64], out[PATH_MAX + 64];
        if (case_obj(c, shared, keep ? keep : tmpdir, obj, sizeof obj)) {
            status = 1;
            continue;
        }
        snprintf(rig, sizeof rig, "%s/data/creature/%s.skeleton.json", shared, c->stem);
        snprintf(out, sizeof out, "%s/out_%s", tmpdir, c->name);
        const char *args[8 + MAX_EXTRA + 1] = {cli, "bind", obj, "--skeleton-rig", rig, "--out", out};
        int na = 7;
        for (int e = 0; e < n_extra; e++)
            args[na++] = extra[e];
        args[na] = NULL;
        double wall[MAX_REPEATS], cpu[MAX_REPEATS], runs_wall[MAX_REPEATS], runs_cpu[MAX_REPEATS];
        long rss = 0;
        int rc = 0;
        for (int r = 0; r < repeats && rc == 0; r++) {
            long kb = 0;
            remove_tree(out);
            rc = run_once((char *const *)args, &wall[r], &cpu[r], &kb);
            phases[k].command_wall[r] = wall[r];
            phases[k].known = rc == 0 && read_phases(out, obj, r, &phases[k]) && (r == 0 || phases[k].known);
            measured_runs[k] = r + 1;
            runs_wall[r] = wall[r];
            runs_cpu[r] = cpu[r];
            if (kb > rss)
                rss = kb;
        }
        remove_tree(out);
        if (rc != 0) {
            printf("%-5s the command exited %d\n", c->name, rc);
            status = 1;
            continue;
        }
        double mw = median(wall, repeats), mc = median(cpu, repeats);
        printf("%-5s %8.3f %8.3f %8.2f %8.2f %7.1fx %8.1fx %9.1f  ", c->name, mw, mc, c->target_s, c->blender_s,
               c->blender_s / mw, c->blender_s / mc, rss / 1024.0);
        for (int r = 0; r < repeats; r++)
            printf("%s%.2f/%.2f", r ? " " : "", runs_wall[r], runs_cpu[r]);
        printf("%s\n", mw <= c->target_s ? "" : "  (wall over target)");
        if (mw > c->target_s)
            status = 1;
    }
    bool header = false;
    for (size_t k = 0; k < NCASES; k++) {
        int n = measured_runs[k];
        if (!phases[k].known || n < 1)
            continue;
        if (!header) {
            printf("\nphases, median wall / cpu s (NAME.bind.json \"seconds\"; rest: outside the phases)\n%-5s", "size");
            for (int p = 0; p < AM_BIND_PHASE_COUNT; p++)
                printf(" %13s", am_report_bind_phase_name((am_report_bind_phase)p));
            printf(" %7s  bind steps:", "rest");
            for (int q = 0; q < KERNEL_STEPS; q++)
                printf(" %s", KERNEL[q]);
            printf("\n");
            header = true;
        }
        printf("%-5s", CASES[k].name);
        double rest[MAX_REPEATS];
        for (int r = 0; r < n; r++) {
            rest[r] = phases[k].command_wall[r];
            for (int p = 0; p < AM_BIND_PHASE_COUNT; p++)
                rest[r] -= phases[k].wall[p][r];
        }
        for (int p = 0; p < AM_BIND_PHASE_COUNT; p++)
            printf(" %6.3f/%6.3f", median(phases[k].wall[p], n), median(phases[k].cpu[p], n));
        printf(" %7.3f ", median(rest, n));
        for (int q = 0; q < KERNEL_STEPS; q++)
            printf(" %.3f", median(phases[k].kernel[q], n));
        printf("\n");
    }
    if (getloadavg(load, 3) == 3)
        printf("\nload average at the end %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    remove_tree(tmpdir);
    return status;
}
