/* Automatic binding against Blender's bone heat (issue 11; not a test).
 *
 * Sizes: the 10k and 50k creatures of ../shared/data/creature (with Blender 3.4.1's weights
 * for the same bones), the 50k creature subdivided (every edge split in 2 -> ~200k
 * vertices, in 3 -> ~450k: written as OBJ into a temporary folder, read back through
 * am_scene_load like a user's file, removed at the end), and "20k/60": the 50k creature
 * simplified to ~20k vertices by meshoptimizer, bound to 60 stock joints (the creature's
 * 21, mSpine1-4, 30 finger joints, mSkull, mEyeLeft/Right, mFaceRoot, mFaceJaw at the
 * viewer's rest positions).
 *
 * Per size (each in its own process, so the peak RSS is that size's): the bind time
 * (best of --repeats wall-clock runs of am_bind; loading the file is timed apart), the
 * ratio to Blender's figure for that size (0.74 s 10k, 5.3 s 50k, 33 s 200k, 92 s 400k,
 * measured on this machine class; the ~450k mesh is compared with the 400k figure, which
 * favours Blender), peak RSS, user-space instructions of the bind (perf counters when the
 * machine has them, else "n/a": run under `valgrind --tool=callgrind` with --only),
 * unweighted vertices, max influences, vertices whose sum is off 1 by more than 1e-9,
 * the cross-side weight (largest Left-bone weight on a vertex more than 1% of height
 * right of the midline, and vice versa) beside Blender's, and the agreement with
 * Blender's weights where they exist (the subdivided meshes keep the 50k creature's
 * vertices first, so they are compared there): dominant joint agreement and the mean over
 * vertices of half the L1 distance between the weight vectors (Blender's normalised).
 *
 * usage: benchmark_bind [--repeats N] [--threads N] [--method heat|segment]
 *                       [--only 10k|20k60|50k|200k|400k] [--shared DIR] [--force-proxy]
 *                       [--load-only]
 * Instruction counts where the machine has no performance counters: run the same size
 * under callgrind twice, `--repeats 1` and `--load-only`, and subtract the two totals
 * (the child process of each size writes its own callgrind.out.PID). */
/* syscall, getloadavg */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <meshoptimizer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bind/bind.h"
#include "core/clock.h"
#include "bench/perf/support/creature_split.h"
#include "bind/bind_io.h"
#include "core/io.h"
#include "readers/scene_load.h"
#include "skeleton/skeleton.h"

#ifndef AM_SHARED_DIR
#define AM_SHARED_DIR "../shared"
#endif

typedef struct size_case {
    const char *name;
    const char *obj;        /* creature file, or NULL: generated */
    int split;              /* edge split of the 50k creature (2, 3), 0 none */
    size_t simplify_to;     /* target vertices (meshoptimizer), 0 none */
    bool sixty;             /* 60 joints */
    const char *csv;        /* Blender's weights */
    const char *skeleton;
    double blender_s;       /* Blender's time, 0 = none */
} size_case;

static const size_case CASES[] = {
    {"10k", "creature_10k.obj", 0, 0, false, "creature_10k.blender-heat-weights.csv", "creature_10k.skeleton.json", 0.74},
    {"20k60", "creature_50k.obj", 0, 20000, true, NULL, "creature_50k.skeleton.json", 0},
    {"50k", "creature_50k.obj", 0, 0, false, "creature_50k.blender-heat-weights.csv", "creature_50k.skeleton.json", 5.3},
    {"200k", "creature_50k.obj", 2, 0, false, "creature_50k.blender-heat-weights.csv", "creature_50k.skeleton.json", 33},
    {"400k", "creature_50k.obj", 3, 0, false, "creature_50k.blender-heat-weights.csv", "creature_50k.skeleton.json", 92},
};
#define NCASES (sizeof CASES / sizeof CASES[0])

typedef struct figures {
    int ok, load_only;
    char error[200];
    size_t vertices, triangles, joints;
    double load_s, best_s, runs_s[8];
    int runs;
    long peak_rss_kb, base_rss_kb;
    double instructions; /* -1: not available */
    size_t unweighted, sum_off, islands;
    int max_influences;
    double leak_ours, leak_blender;
    double agreement, mad;
    size_t compared;
    int blender_max_influences;
    double blender_sum_min;
    char routes[64];
    double t_topology, t_visibility, t_factor, t_solve;
    size_t factor_nnz;
} figures;

/* --- generated meshes ------------------------------------------------------------- */

/* The mesh of a case as an OBJ file (generated ones into tmpdir). */
static int case_obj(const size_case *c, const char *shared, const char *tmpdir, char *path, size_t size, char *why)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/data/creature/%s", shared, c->obj);
    if (!c->split && !c->simplify_to) {
        snprintf(path, size, "%s", src);
        return 0;
    }
    snprintf(path, size, "%s/%s.obj", tmpdir, c->name);
    if (access(path, R_OK) == 0)
        return 0;
    am_error err;
    am_scene sc;
    if (am_scene_load(src, &sc, &err)) {
        snprintf(why, 200, "%s: %s", err.where, err.msg);
        return -1;
    }
    const am_scene_mesh *m = &sc.meshes[0];
    size_t nt = m->faces[0].index_count / 3;
    float *pos = NULL;
    uint32_t *tri = NULL;
    size_t nv2 = 0, nt2 = 0;
    int rc = 0;
    if (c->split) {
        rc = am_test_creature_split(m->positions, m->vertex_count, m->faces[0].indices, nt, c->split, &pos, &nv2, &tri, &nt2);
    } else {
        /* meshoptimizer: about twice as many triangles as vertices on a closed mesh */
        tri = malloc(3 * nt * sizeof *tri);
        nt2 = tri ? meshopt_simplify(tri, m->faces[0].indices, 3 * nt, m->positions, m->vertex_count,
                                     3 * sizeof(float), 2 * c->simplify_to * 3, 0.05f, 0, NULL) /
                        3
                  : 0;
        /* keep only the vertices still used, in order */
        uint32_t *remap = malloc(m->vertex_count * sizeof *remap);
        pos = malloc(3 * m->vertex_count * sizeof *pos);
        if (!tri || !remap || !pos)
            rc = -1;
        else {
            memset(remap, 0xff, m->vertex_count * sizeof *remap);
            for (size_t i = 0; i < 3 * nt2; i++)
                if (remap[tri[i]] == UINT32_MAX) {
                    remap[tri[i]] = (uint32_t)nv2;
                    memcpy(&pos[3 * nv2++], &m->positions[3 * tri[i]], 3 * sizeof(float));
                }
            for (size_t i = 0; i < 3 * nt2; i++)
                tri[i] = remap[tri[i]];
        }
        free(remap);
    }
    if (!rc)
        rc = am_test_creature_write_obj(path, pos, nv2, tri, nt2);
    if (rc)
        snprintf(why, 200, "could not generate %s", path);
    free(pos);
    free(tri);
    am_scene_free(&sc);
    return rc;
}

/* --- Blender's weights ---------------------------------------------------------------- */

/* Dense n x joints, by the skeleton's joint names; rows beyond the file's vertices stay 0. */
static double *read_blender(const char *path, const am_bind_skeleton *s, size_t n, size_t *rows)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t nj = s->joint_count;
    double *w = calloc(n * nj, sizeof *w);
    char line[256];
    *rows = 0;
    if (!w || !fgets(line, sizeof line, f)) {
        free(w);
        fclose(f);
        return NULL;
    }
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        size_t v = strtoul(line, NULL, 10);
        if (v >= n)
            continue;
        if (v + 1 > *rows)
            *rows = v + 1;
        for (size_t j = 0; j < nj; j++)
            if (strcmp(am_str(&s->joints[j].name), c1 + 1) == 0)
                w[v * nj + j] = strtod(c2 + 1, NULL);
    }
    fclose(f);
    return w;
}

static double cross_side(const float *pos, size_t n, double height, const am_bind_skeleton *s, const double *dense,
                         const am_bind_result *r)
{
    double worst = 0, band = 0.01 * height;
    size_t nj = s->joint_count;
    for (size_t v = 0; v < n; v++) {
        double y = pos[3 * v + 1];
        if (fabs(y) <= band)
            continue;
        if (dense) {
            double sum = 0;
            for (size_t j = 0; j < nj; j++)
                sum += dense[v * nj + j];
            for (size_t j = 0; j < nj && sum > 0; j++) {
                const char *jn = am_str(&s->joints[j].name);
                int side = strstr(jn, "Left") ? 1 : strstr(jn, "Right") ? -1 : 0;
                if ((side > 0 && y < 0) || (side < 0 && y > 0))
                    worst = fmax(worst, dense[v * nj + j] / sum);
            }
        } else {
            for (int k = 0; k < r->count[v]; k++) {
                const char *nm = am_str(&s->joints[r->joint[4 * v + k]].name);
                int side = strstr(nm, "Left") ? 1 : strstr(nm, "Right") ? -1 : 0;
                if ((side > 0 && y < 0) || (side < 0 && y > 0))
                    worst = fmax(worst, r->weight[4 * v + k]);
            }
        }
    }
    return worst;
}

/* --- 60 joints ------------------------------------------------------------------------ */

static const char *EXTRA_JOINTS[] = {
    "mSpine1", "mSpine2", "mSpine3", "mSpine4", "mSkull", "mEyeLeft", "mEyeRight", "mFaceRoot", "mFaceJaw",
    "mHandThumb1Left", "mHandThumb2Left", "mHandThumb3Left", "mHandIndex1Left", "mHandIndex2Left",
    "mHandIndex3Left", "mHandMiddle1Left", "mHandMiddle2Left", "mHandMiddle3Left", "mHandRing1Left",
    "mHandRing2Left", "mHandRing3Left", "mHandPinky1Left", "mHandPinky2Left", "mHandPinky3Left",
    "mHandThumb1Right", "mHandThumb2Right", "mHandThumb3Right", "mHandIndex1Right", "mHandIndex2Right",
    "mHandIndex3Right", "mHandMiddle1Right", "mHandMiddle2Right", "mHandMiddle3Right", "mHandRing1Right",
    "mHandRing2Right", "mHandRing3Right", "mHandPinky1Right", "mHandPinky2Right", "mHandPinky3Right"};

static int sixty_joints(const am_bind_skeleton *base, const am_skeleton *viewer, am_bind_skeleton *out, am_error *err)
{
    size_t ne = sizeof EXTRA_JOINTS / sizeof EXTRA_JOINTS[0], n = base->joint_count + ne;
    const char **names = malloc(n * sizeof *names);
    am_vec3 *heads = malloc(n * sizeof *heads);
    if (!names || !heads)
        return -1;
    for (size_t j = 0; j < base->joint_count; j++) {
        names[j] = am_str(&base->joints[j].name);
        heads[j] = base->joints[j].head;
    }
    for (size_t e = 0; e < ne; e++) {
        int sj = am_skeleton_find(viewer, EXTRA_JOINTS[e]);
        names[base->joint_count + e] = EXTRA_JOINTS[e];
        heads[base->joint_count + e] = am_skeleton_rest_world(viewer, sj < 0 ? 0 : sj, AM_FRAME_FILE);
    }
    int rc = am_bind_skeleton_from_heads(names, heads, n, viewer, 1.8, "60 joints", out, err) ? -1 : 0;
    free(names);
    free(heads);
    return rc;
}

/* --- one size, in a child process ------------------------------------------------------ */

static int open_instruction_counter(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.inherit = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void run_case(const size_case *c, const char *shared, const char *obj, int repeats, const am_bind_options *o,
                     figures *fg)
{
    memset(fg, 0, sizeof *fg);
    fg->instructions = -1;
    am_error err;
    am_skeleton viewer;
    char path[1024];
    snprintf(path, sizeof path, "%s/viewer/avatar_skeleton.xml", shared);
    if (am_skeleton_load(path, &viewer, &err)) {
        snprintf(fg->error, sizeof fg->error, "%s", err.msg);
        return;
    }
    double t0 = am_clock_wall_s();
    am_scene sc;
    am_bind_source src;
    if (am_scene_load(obj, &sc, &err) || am_bind_source_from_scene(&sc, NULL, &src, &err)) {
        snprintf(fg->error, sizeof fg->error, "%s: %s", err.where, err.msg);
        am_skeleton_free(&viewer);
        return;
    }
    am_scene_free(&sc);
    fg->load_s = am_clock_wall_s() - t0;
    am_bind_skeleton base, sk;
    snprintf(path, sizeof path, "%s/data/creature/%s", shared, c->skeleton);
    if (am_bind_skeleton_load(path, &viewer, 1.8, &base, &err) || (c->sixty && sixty_joints(&base, &viewer, &sk, &err))) {
        snprintf(fg->error, sizeof fg->error, "%s: %s", err.where, err.msg);
        return;
    }
    if (!c->sixty)
        sk = base;
    fg->vertices = src.vertex_count;
    fg->triangles = src.triangle_count;
    fg->joints = sk.joint_count;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fg->base_rss_kb = ru.ru_maxrss;
    am_bind_mesh m = am_bind_source_mesh(&src);
    am_bind_result r;
    memset(&r, 0, sizeof r);
    if (repeats == 0) {
        /* load only: the baseline a callgrind run subtracts to count the bind alone */
        fg->ok = 1;
        fg->load_only = 1;
        if (c->sixty)
            am_bind_skeleton_free(&sk);
        am_bind_skeleton_free(&base);
        am_bind_source_free(&src);
        am_skeleton_free(&viewer);
        return;
    }
    int counter = open_instruction_counter();
    fg->best_s = INFINITY;
    for (int i = 0; i < repeats && i < 8; i++) {
        am_bind_result_free(&r);
        if (counter >= 0 && i == 0) {
            ioctl(counter, PERF_EVENT_IOC_RESET, 0);
            ioctl(counter, PERF_EVENT_IOC_ENABLE, 0);
        }
        double a = am_clock_wall_s();
        if (am_bind(&m, &sk, o, &r, &err)) {
            snprintf(fg->error, sizeof fg->error, "bind: %s", err.msg);
            return;
        }
        fg->runs_s[i] = am_clock_wall_s() - a;
        if (counter >= 0 && i == 0) {
            ioctl(counter, PERF_EVENT_IOC_DISABLE, 0);
            long long count = 0;
            if (read(counter, &count, sizeof count) == (ssize_t)sizeof count)
                fg->instructions = (double)count;
        }
        fg->best_s = fmin(fg->best_s, fg->runs_s[i]);
        fg->runs++;
    }
    getrusage(RUSAGE_SELF, &ru);
    fg->peak_rss_kb = ru.ru_maxrss;
    fg->unweighted = r.unweighted;
    fg->islands = r.island_count;
    fg->t_topology = r.seconds_topology;
    fg->t_visibility = r.seconds_visibility;
    fg->t_factor = r.seconds_factor;
    fg->t_solve = r.seconds_solve;
    fg->factor_nnz = r.factor_nonzeros;
    size_t nroute[5] = {0};
    for (size_t k = 0; k < r.island_count; k++)
        nroute[r.islands[k].route]++;
    size_t len = 0;
    for (int q = 0; q < 5; q++)
        if (nroute[q])
            len += (size_t)snprintf(fg->routes + len, sizeof fg->routes - len, "%s%s x%zu", len ? ", " : "",
                                    am_bind_route_name((am_bind_route)q), nroute[q]);
    for (size_t v = 0; v < src.vertex_count; v++) {
        double s = 0;
        for (int k = 0; k < r.count[v]; k++)
            s += r.weight[4 * v + k];
        fg->sum_off += r.count[v] > 0 && fabs(s - 1.0) > 1e-9;
        fg->unweighted += r.count[v] == 0 && r.unweighted == 0;
        if (r.count[v] > fg->max_influences)
            fg->max_influences = r.count[v];
    }
    fg->leak_ours = cross_side(src.positions, src.vertex_count, r.height_m, &sk, NULL, &r);
    fg->leak_blender = -1;
    if (c->csv) {
        snprintf(path, sizeof path, "%s/data/creature/%s", shared, c->csv);
        size_t rows = 0, nj = sk.joint_count;
        double *bw = read_blender(path, &sk, src.vertex_count, &rows);
        if (bw) {
            fg->leak_blender = cross_side(src.positions, rows, r.height_m, &sk, bw, NULL);
            size_t agree = 0;
            double mad = 0, smin = INFINITY;
            for (size_t v = 0; v < rows; v++) {
                double s = 0, ours[4096] = {0};
                int bj = 0, cnt = 0;
                for (size_t j = 0; j < nj; j++) {
                    s += bw[v * nj + j];
                    cnt += bw[v * nj + j] > 0;
                    if (bw[v * nj + j] > bw[v * nj + (size_t)bj])
                        bj = (int)j;
                }
                smin = fmin(smin, s);
                if (cnt > fg->blender_max_influences)
                    fg->blender_max_influences = cnt;
                for (int k = 0; k < r.count[v]; k++)
                    ours[r.joint[4 * v + k]] = r.weight[4 * v + k];
                agree += r.count[v] && r.joint[4 * v] == bj;
                double d = 0;
                for (size_t j = 0; j < nj; j++)
                    d += fabs(ours[j] - (s > 0 ? bw[v * nj + j] / s : 0));
                mad += d / 2;
            }
            fg->compared = rows;
            fg->agreement = rows ? (double)agree / (double)rows : 0;
            fg->mad = rows ? mad / (double)rows : 0;
            fg->blender_sum_min = smin;
            free(bw);
        }
    }
    fg->ok = 1;
    am_bind_result_free(&r);
    if (c->sixty)
        am_bind_skeleton_free(&sk);
    am_bind_skeleton_free(&base);
    am_bind_source_free(&src);
    am_skeleton_free(&viewer);
}

/* Which BLAS CHOLMOD's supernodal factorisation runs on (Debian's alternatives). */
static void blas_in_use(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "openblas")) {
            snprintf(out, size, "OpenBLAS");
            break;
        }
        if (strstr(line, "/blas/libblas"))
            snprintf(out, size, "reference BLAS (netlib)");
    }
    if (f)
        fclose(f);
}

static void remove_tmp(const char *dir)
{
    for (size_t i = 0; i < NCASES; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/%s.obj", dir, CASES[i].name);
        unlink(p);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    int repeats = 3;
    const char *only = NULL, *shared = AM_SHARED_DIR;
    am_bind_options o;
    am_bind_options_init(&o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--load-only") == 0)
            repeats = 0;
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            o.threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc)
            o.method = strcmp(argv[++i], "segment") == 0 ? AM_BIND_SEGMENT : AM_BIND_HEAT;
        else if (strcmp(argv[i], "--force-proxy") == 0)
            o.force_proxy = true;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc)
            shared = argv[++i];
        else {
            fprintf(stderr,
                    "usage: benchmark_bind [--repeats N] [--threads N] [--method heat|segment]\n"
                    "                      [--only 10k|20k60|50k|200k|400k] [--shared DIR]\n"
                    "                      [--force-proxy] [--load-only]\n");
            return 2;
        }
    }
    if (repeats < 0 || repeats > 8)
        repeats = 3;
    char tmpdir[1024];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/animesh-benchmark-bind-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 3;
    }
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("machine: %ld cores online, load average %.2f %.2f %.2f at start\n", sysconf(_SC_NPROCESSORS_ONLN),
               load[0], load[1], load[2]);
    char blas[64];
    blas_in_use(blas, sizeof blas);
    printf("method %s, best of %d runs, threads %d (0 = all), BLAS: %s\n\n", am_bind_method_name(o.method), repeats,
           o.threads, blas);
    printf("%-6s %8s %5s %8s %8s %7s %9s %9s %6s %5s %7s %15s %9s %8s %9s\n", "size", "verts", "jnts", "bind s",
           "blender", "ratio", "peak MB", "Ginstr", "unwtd", "maxw", "sum!=1", "leak ours/bl", "dominant", "meanabs",
           "load s");
    int status = 0;
    for (size_t i = 0; i < NCASES; i++) {
        const size_case *c = &CASES[i];
        if (only && strcmp(only, c->name) != 0)
            continue;
        char obj[1100], why[200] = "";
        if (case_obj(c, shared, tmpdir, obj, sizeof obj, why)) {
            printf("%-6s %s\n", c->name, why);
            status = 1;
            continue;
        }
        int fd[2];
        if (pipe(fd)) {
            perror("pipe");
            break;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            figures fg;
            run_case(c, shared, obj, repeats, &o, &fg);
            ssize_t w = write(fd[1], &fg, sizeof fg);
            _exit(w == (ssize_t)sizeof fg ? 0 : 1);
        }
        close(fd[1]);
        figures fg;
        memset(&fg, 0, sizeof fg);
        ssize_t got = read(fd[0], &fg, sizeof fg);
        close(fd[0]);
        int ws;
        waitpid(pid, &ws, 0);
        if (got != (ssize_t)sizeof fg || !fg.ok) {
            printf("%-6s failed: %s\n", c->name, got == (ssize_t)sizeof fg ? fg.error : "the child process died");
            status = 1;
            continue;
        }
        if (fg.load_only) {
            printf("%-6s %8zu %5zu   loaded in %.2f s (no bind: --load-only)\n", c->name, fg.vertices, fg.joints, fg.load_s);
            continue;
        }
        char ratio[16] = "-", bl[16] = "-", instr[16] = "n/a", leak[24], dom[16] = "-", mad[16] = "-";
        if (c->blender_s > 0) {
            snprintf(ratio, sizeof ratio, "%.1fx", c->blender_s / fg.best_s);
            snprintf(bl, sizeof bl, "%.2f", c->blender_s);
        }
        if (fg.instructions >= 0)
            snprintf(instr, sizeof instr, "%.2f", fg.instructions / 1e9);
        if (fg.leak_blender >= 0)
            snprintf(leak, sizeof leak, "%.3f/%.3f", fg.leak_ours, fg.leak_blender);
        else
            snprintf(leak, sizeof leak, "%.3f/-", fg.leak_ours);
        if (fg.compared) {
            snprintf(dom, sizeof dom, "%.2f%%", 100 * fg.agreement);
            snprintf(mad, sizeof mad, "%.4f", fg.mad);
        }
        printf("%-6s %8zu %5zu %8.3f %8s %7s %9.1f %9s %6zu %5d %7zu %15s %9s %8s %9.2f\n", c->name, fg.vertices,
               fg.joints, fg.best_s, bl, ratio, fg.peak_rss_kb / 1024.0, instr, fg.unweighted, fg.max_influences,
               fg.sum_off, leak, dom, mad, fg.load_s);
        printf("       runs:");
        for (int k = 0; k < fg.runs; k++)
            printf(" %.3f", fg.runs_s[k]);
        printf(" s; phases (last run): topology+holds %.3f, visibility %.3f, factor %.3f, solve %.3f s; L nnz %zu;"
               " islands %zu (%s); mesh loaded %.1f MB RSS",
               fg.t_topology, fg.t_visibility, fg.t_factor, fg.t_solve, fg.factor_nnz, fg.islands, fg.routes,
               fg.base_rss_kb / 1024.0);
        if (fg.compared)
            printf("; compared on %zu vertices (Blender: up to %d influences, sums from %.3f)", fg.compared,
                   fg.blender_max_influences, fg.blender_sum_min);
        printf("\n");
        bool pass = fg.unweighted == 0 && fg.max_influences <= 4 && fg.sum_off == 0 &&
                    (c->blender_s <= 0 || c->blender_s / fg.best_s >= 5.0) &&
                    (!c->sixty || fg.best_s < 1.0) && (fg.leak_blender < 0 || fg.leak_ours <= fg.leak_blender) &&
                    (!fg.compared || fg.agreement >= 0.85);
        if (!pass) {
            printf("       TARGET MISSED (>= 5x Blender, 20k/60 under 1 s, 0 unweighted, <= 4 influences, exact sums,"
                   " leak <= Blender's, dominant >= 85%%)\n");
            status = 1;
        }
    }
    if (getloadavg(load, 3) == 3)
        printf("\nload average at the end %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    printf("instructions: user space, all threads, first run (perf counters); n/a when the machine has none: run\n"
           "  valgrind --tool=callgrind benchmark_bind --only SIZE with --repeats 1 and with --load-only and subtract\n"
           "  the totals of the child processes (callgrind.out of the higher pid).\n");
    remove_tmp(tmpdir);
    return status;
}
