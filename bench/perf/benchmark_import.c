/* Benchmark: `animesh import` of a big COLLADA file. A ~400,000-vertex rig (a tube from the
 * feet to the head, rings of vertices weighted to the spine chain) is built and written with
 * our own writer (am_skin_build + am_skin_write_collada) into a temporary folder; then the import
 * of that .dae (read, plan, skin build with LODs, encode, writers, rest bench, commit) runs
 * REPEATS times, each in a child process so its peak RSS is its own (RUSAGE_CHILDREN: the
 * largest child's peak); the best wall time and that peak are printed with the phase times of the best run. Target: under 3 s
 * and under 1 GB. The region's triangle limit is off (the rig has ~800,000 triangles).
 *
 *   benchmark_import [VERTICES [REPEATS]]     default 400000, 3
 *   benchmark_import --write FILE.dae [VERTICES]   only write the big .dae
 *   benchmark_import --once FILE.dae OUTDIR   one import in this process (for callgrind:
 *       valgrind --tool=callgrind --callgrind-out-file=cg.out build-rel/benchmark_import --once ...)
 *
 * ANIMESH_SKELETON (or ../shared/viewer/avatar_skeleton.xml) locates the viewer skeleton. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/io.h"
#include "core/clock.h"
#include "import/import.h"
#include "readers/scene_load.h"
#include "skin/rig.h"
#include "skin/skin_build.h"

static char *copy_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

/* A tube of `rings` x `around` vertices around the z axis, 1.8 m tall, weighted to the two
 * nearest joints of the spine chain by height (smooth blend). */
static int make_rig(size_t vertices, am_rig *r)
{
    static const char *const chain[] = {"mPelvis", "mTorso", "mChest", "mNeck", "mHead"};
    static const double z[] = {1.067, 1.151, 1.356, 1.607, 1.683};
    size_t around = 400, rings = vertices / around;
    memset(r, 0, sizeof *r);
    r->name = copy_str("tube");
    r->joint_count = 5;
    r->joints = calloc(5, sizeof *r->joints);
    for (size_t j = 0; j < 5; j++) {
        r->joints[j].name = copy_str(chain[j]);
        r->joints[j].world = (am_vec3){0, 0, z[j]};
    }
    size_t n = rings * around;
    r->vertex_count = n;
    r->positions = malloc(3 * n * sizeof(float));
    r->normals = malloc(3 * n * sizeof(float));
    r->uvs = malloc(2 * n * sizeof(float));
    r->weight_start = malloc((n + 1) * sizeof(size_t));
    r->influences = malloc(2 * n * sizeof(am_rig_influence));
    r->triangle_count = 2 * (rings - 1) * around;
    r->triangles = malloc(3 * r->triangle_count * sizeof(uint32_t));
    if (!r->positions || !r->normals || !r->uvs || !r->weight_start || !r->influences || !r->triangles)
        return 1;
    size_t at = 0;
    for (size_t i = 0; i < rings; i++) {
        double h = 1.8 * (double)i / (double)(rings - 1);
        for (size_t k = 0; k < around; k++) {
            size_t v = i * around + k;
            double a = 2 * AM_PI * (double)k / (double)around, rad = 0.15 + 0.02 * sin(8 * h);
            r->positions[3 * v] = (float)(rad * cos(a));
            r->positions[3 * v + 1] = (float)(rad * sin(a));
            r->positions[3 * v + 2] = (float)h;
            r->normals[3 * v] = (float)cos(a);
            r->normals[3 * v + 1] = (float)sin(a);
            r->normals[3 * v + 2] = 0;
            r->uvs[2 * v] = (float)k / (float)around;
            r->uvs[2 * v + 1] = (float)(h / 1.8);
            size_t j = 0;
            while (j + 1 < 5 && z[j + 1] < h)
                j++;
            r->weight_start[v] = at;
            if (j + 1 < 5 && h > z[j]) {
                double u = (h - z[j]) / (z[j + 1] - z[j]);
                r->influences[at++] = (am_rig_influence){(int)j, 1 - u};
                r->influences[at++] = (am_rig_influence){(int)j + 1, u};
            } else {
                r->influences[at++] = (am_rig_influence){(int)j, 1};
            }
        }
    }
    r->weight_start[n] = at;
    size_t t = 0;
    for (size_t i = 0; i + 1 < rings; i++)
        for (size_t k = 0; k < around; k++) {
            uint32_t a = (uint32_t)(i * around + k), b = (uint32_t)(i * around + (k + 1) % around);
            uint32_t c = a + (uint32_t)around, d = b + (uint32_t)around;
            uint32_t *p = &r->triangles[3 * t];
            p[0] = a, p[1] = b, p[2] = d, p[3] = a, p[4] = d, p[5] = c;
            t += 2;
        }
    r->rgb[0] = r->rgb[1] = r->rgb[2] = 1;
    return 0;
}

static int load_skeleton(am_skeleton *skel)
{
    const char *path = getenv("ANIMESH_SKELETON");
    am_error err;
    char buf[512];
    if (am_skeleton_load(path ? path : "../shared/viewer/avatar_skeleton.xml", skel, &err)) {
        fprintf(stderr, "benchmark_import: %s (set ANIMESH_SKELETON)\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    return 0;
}

/* With --once: each progress line of the run, with the seconds since the run began. */
static void on_progress(void *user, const char *line)
{
    fprintf(stderr, "  %7.3f s  %s\n", am_clock_wall_s() - *(const double *)user, line);
}

/* One import in this process, with phase times. */
static int import_once(const char *dae, const char *out_dir, const am_skeleton *skel, double phase[3], bool verbose)
{
    am_error err;
    char buf[600];
    am_import_options opts;
    am_import_options_init(&opts);
    opts.skin.region_max_tris = AM_OPTION_ZERO;
    double t0 = am_clock_wall_s();
    if (verbose) {
        opts.progress = on_progress;
        opts.progress_user = &t0;
    }
    am_scene scene;
    am_scene_load_options lo = {.skeleton = skel};
    if (am_scene_load_ex(dae, &lo, &scene, &err)) {
        fprintf(stderr, "benchmark_import: %s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    double t1 = am_clock_wall_s();
    am_import_plan plan;
    am_status st = am_import_plan_make(&scene, skel, &opts, &plan, &err);
    am_scene_free(&scene);
    double t2 = am_clock_wall_s();
    am_import_report rep;
    if (!st)
        st = am_import_run(&plan, skel, &opts, out_dir, &rep, &err);
    double t3 = am_clock_wall_s();
    if (st) {
        fprintf(stderr, "benchmark_import: %s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    am_import_report_free(&rep);
    am_import_plan_free(&plan);
    phase[0] = t1 - t0;
    phase[1] = t2 - t1;
    phase[2] = t3 - t2;
    return 0;
}

/* The big rig through our own writer into `path`. */
static int write_dae(size_t vertices, const am_skeleton *skel, const char *path)
{
    am_rig rig;
    am_skin_result res;
    am_skin_options so;
    am_skin_options_init(&so);
    so.region_max_tris = AM_OPTION_ZERO;
    am_error err;
    char buf[600];
    if (make_rig(vertices, &rig) || am_skin_build(&rig, skel, &so, &res, &err)) {
        fprintf(stderr, "benchmark_import: %s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    am_buf dae = {0};
    if (am_skin_write_collada(&res, &dae, &err) || am_write_file_atomic(path, dae.data, dae.size, &err)) {
        fprintf(stderr, "benchmark_import: %s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    printf("benchmark_import: %zu vertices, %zu triangles, %zu faces, %zu joints; .dae %.1f MB\n", res.vertex_count,
           res.triangle_count, res.face_count, res.summary.joint_count, (double)dae.size / 1e6);
    am_buf_free(&dae);
    am_skin_result_free(&res);
    am_rig_free(&rig);
    return 0;
}

int main(int argc, char **argv)
{
    am_skeleton skel;
    if (argc >= 3 && strcmp(argv[1], "--write") == 0) {
        size_t v = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 400000;
        int rc = load_skeleton(&skel) || write_dae(v, &skel, argv[2]);
        if (!rc)
            am_skeleton_free(&skel);
        return rc;
    }
    if (argc == 4 && strcmp(argv[1], "--once") == 0) {
        double ph[3];
        if (load_skeleton(&skel) || import_once(argv[2], argv[3], &skel, ph, true))
            return 1;
        printf("read %.3f s, plan %.3f s, run %.3f s\n", ph[0], ph[1], ph[2]);
        am_skeleton_free(&skel);
        return 0;
    }
    size_t vertices = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 400000;
    int repeats = argc > 2 ? atoi(argv[2]) : 3;
    if (vertices < 4000 || repeats < 1) {
        fprintf(stderr, "usage: benchmark_import [VERTICES >= 4000 [REPEATS >= 1]] | --once FILE.dae OUTDIR\n");
        return 2;
    }
    if (load_skeleton(&skel))
        return 1;
    char dir[] = "/tmp/animesh-bench-import-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char dae_path[256];
    snprintf(dae_path, sizeof dae_path, "%s/tube.dae", dir);
    if (write_dae(vertices, &skel, dae_path))
        return 1;
    double best = INFINITY, best_phase[3] = {0, 0, 0}, best_cpu = INFINITY, cpu_before = 0;
    long peak_kb = 0;
    for (int i = 0; i < repeats; i++) {
        char out[300];
        snprintf(out, sizeof out, "%s/out%d", dir, i);
        int fd[2];
        if (pipe(fd))
            return 1;
        double t0 = am_clock_wall_s();
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            double ph[3];
            int rc = import_once(dae_path, out, &skel, ph, false);
            if (write(fd[1], ph, sizeof ph) != (ssize_t)sizeof ph)
                rc = 1;
            _exit(rc);
        }
        close(fd[1]);
        double ph[3] = {0, 0, 0};
        ssize_t got = read(fd[0], ph, sizeof ph);
        close(fd[0]);
        int status;
        struct rusage ru; /* children so far: ru_maxrss is the largest child's peak */
        if (waitpid(pid, &status, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) != 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0 || got != sizeof ph) {
            fprintf(stderr, "benchmark_import: run %d failed\n", i + 1);
            return 1;
        }
        double wall = am_clock_wall_s() - t0;
        /* CPU time of this child (the machine is shared: wall time includes waiting) */
        double cpu_all = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
                         1e-6 * (double)ru.ru_stime.tv_usec;
        double cpu = cpu_all - cpu_before;
        cpu_before = cpu_all;
        best_cpu = cpu < best_cpu ? cpu : best_cpu;
        printf("  run %d: %.3f s wall, %.3f s CPU (read %.3f, plan %.3f, build+write+bench %.3f), peak RSS %.0f MB\n",
               i + 1, wall, cpu, ph[0], ph[1], ph[2], (double)ru.ru_maxrss / 1024.0);
        if (wall < best) {
            best = wall;
            memcpy(best_phase, ph, sizeof ph);
        }
        peak_kb = ru.ru_maxrss > peak_kb ? ru.ru_maxrss : peak_kb;
    }
    printf("best of %d: %.3f s wall (target < 3 s: %s), %.3f s CPU; peak RSS %.0f MB (target < 1024 MB: %s)\n",
           repeats, best, best < 3 ? "met" : "MISSED", best_cpu, (double)peak_kb / 1024.0,
           peak_kb < 1024 * 1024 ? "met" : "MISSED");
    printf("  phases of the best run: read %.3f s, plan %.3f s, build+write+bench %.3f s\n", best_phase[0], best_phase[1],
           best_phase[2]);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "benchmark_import: could not remove %s\n", dir);
    am_skeleton_free(&skel);
    return 0;
}
