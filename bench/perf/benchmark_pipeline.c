/* benchmark_pipeline: the whole path for big creatures, stage by stage.
 *
 *   benchmark_pipeline [--sizes 10k,50k,200k,425k] [--repeats N] [--work DIR] [--callgrind]
 *
 * The test creatures of ../shared/data/creature (10k and 50k with Blender's weights) are
 * made into the sizes asked for by subdivision with the weights carried
 * (bench/perf/support/test_creature.h; 200k and 425k come from the 50k), written as rig JSON into
 * a temporary folder (never into the repository), then each size runs in its own child
 * process (so its peak memory, getrusage ru_maxrss, is its own) through the stages:
 *
 *   rig read    am_rig_load of the rig JSON
 *   build       am_skin_build: joints, weights, faces, triangle budget, LODs (sub-stages from
 *               the summary's timings)
 *   encode      am_skin_encode (zlib level 9 blocks) + writing NAME.llmesh
 *   .dae        the COLLADA file
 *   meshdata    the WorldBridge meshdata (single-face skins only)
 *   bench load  am_bench_load of the written .llmesh and a 24-key walk clip (.anim)
 *   bench clip  24 poses of the clip, each with the full pose report (displacement, strain,
 *               leak, boxes)
 *   png strip   an 8-frame strip of the clip
 *
 * With --work DIR the generated rigs (DIR/rig_N.json) and the clip stay there, and
 * `benchmark_pipeline --child DIR/rig_N.json DIR/walk.anim DIR` runs one size once (for a
 * profiler).
 *
 * Per stage: best wall time of the repeats; with --callgrind each size also runs once under
 * `valgrind --tool=callgrind` and the instructions of each stage are printed (a figure that
 * does not depend on what else the machine is doing). Then the scaling exponent of each
 * stage between consecutive sizes: log(t2 / t1) / log(n2 / n1) (1 = linear).
 * Targets (issue 12): 425k from rig to written asset + the 24-frame bench under 4 s, peak
 * memory under 700 MB.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_DUMP_STATS_AT(x) ((void)0)
#define CALLGRIND_ZERO_STATS ((void)0)
#endif

#include "anim/anim.h"
#include "core/clock.h"
#include "bench/bench.h"
#include "bench/render.h"
#include "skin/rig.h"
#include "skin/skin_build.h"
#include "bench/perf/support/test_creature.h"
#include "bench/perf/support/test_walk.h"

#define MAX_SIZES 8
#define MAX_REPEATS 10
#define CLIP_FRAMES AM_TEST_WALK_KEYS
#define STRIP_FRAMES 8

enum {
    ST_READ,
    ST_JOINTS,
    ST_FACES,
    ST_BUDGET,
    ST_LODS,
    ST_BUILD,
    ST_ENCODE,
    ST_DAE,
    ST_MESHDATA,
    ST_BENCH_LOAD,
    ST_BENCH_CLIP,
    ST_STRIP,
    ST_COUNT
};
static const char *const stage_name[ST_COUNT] = {"rig read", "  joints+weights", "  faces", "  budget",
                                                 "  LODs",   "build",            "encode", ".dae",
                                                 "meshdata", "bench load",       "bench clip", "png strip"};
/* stages that make up the totals (sub-stages of build are inside ST_BUILD) */
static const int asset_stages[] = {ST_READ, ST_BUILD, ST_ENCODE, ST_DAE, ST_MESHDATA};
static const int bench_stages[] = {ST_BENCH_LOAD, ST_BENCH_CLIP};

typedef struct run_result {
    double sec[ST_COUNT];
    double instr[ST_COUNT];
    long maxrss_kb;
    size_t vertices, faces, tris_in, tris_high, tris_lods[AM_LOD_COUNT];
    double est_max, cost;
    double dup_share;
    int ok;
} run_result;

static int fail(const char *what, const am_error *err)
{
    char buf[512];
    fprintf(stderr, "benchmark_pipeline: %s: %s\n", what, am_error_format(err, buf, sizeof buf));
    return 1;
}

static int write_clip(const am_skeleton *skel, const char *path)
{
    am_buf b = {0};
    am_error err;
    am_error_clear(&err);
    if (am_test_walk_anim(skel, &b, &err) || am_write_file_atomic(path, b.data, b.size, &err))
        return fail("walk clip", &err);
    am_buf_free(&b);
    return 0;
}

static double mark(double *t0, double *slot, const char *name)
{
    double t = am_clock_wall_s();
    *slot = t - *t0;
    CALLGRIND_DUMP_STATS_AT(name);
    *t0 = am_clock_wall_s();
    return *slot;
}

/* One size, all stages, in this (child) process. */
static int run_one(const char *rig_path, const char *anim_path, const char *out_dir, const am_skeleton *skel,
                   run_result *r)
{
    am_error err;
    am_error_clear(&err);
    memset(r, 0, sizeof *r);
    CALLGRIND_ZERO_STATS;
    double t0 = am_clock_wall_s();
    am_rig rig;
    if (am_rig_load(rig_path, &rig, &err))
        return fail(rig_path, &err);
    mark(&t0, &r->sec[ST_READ], "rig read");
    r->vertices = rig.vertex_count;
    am_skin_options opts;
    am_skin_options_init(&opts);
    am_skin_result res;
    am_status st = am_skin_build(&rig, skel, &opts, &res, &err);
    am_rig_free(&rig);
    if (st)
        return fail("build", &err);
    mark(&t0, &r->sec[ST_BUILD], "build");
    r->sec[ST_JOINTS] = res.summary.seconds[AM_SKIN_T_JOINTS_WEIGHTS];
    r->sec[ST_BUDGET] = res.summary.seconds[AM_SKIN_T_BUDGET];
    r->sec[ST_FACES] = res.summary.seconds[AM_SKIN_T_FACES];
    r->sec[ST_LODS] = res.summary.seconds[AM_SKIN_T_LODS];
    r->faces = res.face_count;
    memcpy(r->tris_lods, res.summary.lod_triangles, sizeof r->tris_lods);
    r->tris_high = res.summary.lod_triangles[AM_LOD_HIGH];
    r->dup_share = res.summary.duplicated_share;
    r->tris_in = res.summary.tris_in;
    char path[4096];
    am_buf mesh = {0}, dae = {0}, md = {0};
    snprintf(path, sizeof path, "%s/%s.llmesh", out_dir, am_str(&res.summary.name));
    if (am_skin_encode(&res, &mesh, &err) || am_write_file_atomic(path, mesh.data, mesh.size, &err))
        return fail("encode", &err);
    am_buf_free(&mesh);
    r->est_max = res.summary.est_tris_max;
    r->cost = res.summary.streaming_cost;
    mark(&t0, &r->sec[ST_ENCODE], "encode");
    char dae_path[4096];
    snprintf(dae_path, sizeof dae_path, "%s/%s.dae", out_dir, am_str(&res.summary.name));
    if (am_skin_write_collada(&res, &dae, &err) || am_write_file_atomic(dae_path, dae.data, dae.size, &err))
        return fail(".dae", &err);
    am_buf_free(&dae);
    mark(&t0, &r->sec[ST_DAE], ".dae");
    if (res.face_count == 1) {
        char md_path[4096];
        snprintf(md_path, sizeof md_path, "%s/%s.meshdata.json", out_dir, am_str(&res.summary.name));
        if (am_skin_write_meshdata_json(&res, &md, &err) || am_write_file_atomic(md_path, md.data, md.size, &err))
            return fail("meshdata", &err);
        am_buf_free(&md);
    }
    am_skin_result_free(&res);
    mark(&t0, &r->sec[ST_MESHDATA], "meshdata");

    am_bench b;
    const char *anims[1] = {anim_path};
    if (am_bench_load(path, anims, 1, skel, NULL, &b, &err))
        return fail("bench load", &err);
    mark(&t0, &r->sec[ST_BENCH_LOAD], "bench load");
    double times[CLIP_FRAMES];
    am_render_even_times(1.0, CLIP_FRAMES, times);
    for (int f = 0; f < CLIP_FRAMES; f++) {
        am_bench_pose_report pr;
        if (am_bench_pose_report_at(&b, 0, times[f], NULL, 0, &pr, &err))
            return fail("bench clip", &err);
        am_bench_pose_report_free(&pr);
    }
    mark(&t0, &r->sec[ST_BENCH_CLIP], "bench clip");
    double st_times[STRIP_FRAMES];
    am_render_even_times(1.0, STRIP_FRAMES, st_times);
    am_render_options ro;
    am_render_options_init(&ro);
    snprintf(path, sizeof path, "%s/strip.png", out_dir);
    if (am_render_strip_png(&b, 0, st_times, STRIP_FRAMES, &ro, path, &err))
        return fail("png strip", &err);
    mark(&t0, &r->sec[ST_STRIP], "png strip");
    am_bench_free(&b);
    r->ok = 1;
    return 0;
}

static int parse_sizes(const char *s, size_t *sizes, int *n)
{
    *n = 0;
    while (*s && *n < MAX_SIZES) {
        char *e;
        double v = strtod(s, &e);
        if (e == s)
            return -1;
        if (*e == 'k' || *e == 'K')
            v *= 1000, e++;
        sizes[(*n)++] = (size_t)v;
        s = *e == ',' ? e + 1 : e;
    }
    return *n ? 0 : -1;
}

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_rf(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Make the rig JSON of one size (the 10k as read; others subdivided from the 50k). */
static int make_rig(size_t n, const char *path, char *name, size_t name_size)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/creature", AM_SHARED_DIR);
    am_error err;
    am_error_clear(&err);
    am_rig base, big;
    const char *stem = n <= 10072 ? "creature_10k" : "creature_50k";
    if (am_test_creature_load(dir, stem, &base, &err))
        return fail(stem, &err);
    snprintf(name, name_size, "creature_%zuk", (n + 500) / 1000);
    size_t target = n > base.vertex_count ? n : base.vertex_count;
    am_status st = am_test_creature_subdivide(&base, target, name, &big, &err);
    am_rig_free(&base);
    if (st)
        return fail("subdivide", &err);
    am_buf json = {0};
    if (am_rig_to_json(&big, &json, &err) || am_write_file_atomic(path, json.data, json.size, &err))
        return fail(path, &err);
    fprintf(stderr, "benchmark_pipeline: %s: %zu vertices, %zu triangles, %.1f MB rig JSON\n", name, big.vertex_count,
            big.triangle_count, json.size / 1e6);
    am_buf_free(&json);
    am_rig_free(&big);
    return 0;
}

/* Run one size in a child; results through a pipe, peak memory from wait4. */
static int run_child(const char *rig_path, const char *anim_path, const char *out_dir, const am_skeleton *skel,
                     run_result *r)
{
    int fds[2];
    if (pipe(fds))
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(fds[0]);
        run_result rr;
        int rc = run_one(rig_path, anim_path, out_dir, skel, &rr);
        if (write(fds[1], &rr, sizeof rr) != (ssize_t)sizeof rr)
            rc = 1;
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], r, sizeof *r);
    close(fds[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || got != (ssize_t)sizeof *r || !WIFEXITED(status) || WEXITSTATUS(status))
        return 1;
    r->maxrss_kb = ru.ru_maxrss;
    return 0;
}

/* Under callgrind: run this program in --child mode, then sum each dump's instructions. */
static int run_callgrind(const char *self, const char *rig_path, const char *anim_path, const char *out_dir,
                         run_result *r)
{
    char cmd[16384], cgdir[4096];
    snprintf(cgdir, sizeof cgdir, "%s/cg", out_dir);
    mkdir(cgdir, 0700);
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file='%s/cg.out' --dump-line=no --compress-strings=no "
             "'%s' --child '%s' '%s' '%s' >/dev/null 2>&1",
             cgdir, self, rig_path, anim_path, out_dir);
    if (system(cmd) != 0)
        return 1;
    DIR *d = opendir(cgdir);
    if (!d)
        return 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "cg.out", 6) != 0)
            continue;
        char p[8192], line[1024], desc[256] = "";
        snprintf(p, sizeof p, "%s/%s", cgdir, e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        double total = -1;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "desc: Trigger: Client Request: ", 31)) {
                snprintf(desc, sizeof desc, "%s", line + 31);
                desc[strcspn(desc, "\n")] = 0;
            } else if (!strncmp(line, "totals: ", 8) || !strncmp(line, "summary: ", 9))
                total = strtod(strchr(line, ' ') + 1, NULL);
        }
        fclose(f);
        for (int s = 0; s < ST_COUNT; s++) {
            const char *nm = stage_name[s];
            while (*nm == ' ')
                nm++;
            if (total >= 0 && desc[0] && !strcmp(desc, nm))
                r->instr[s] = total;
        }
    }
    closedir(d);
    rm_rf(cgdir);
    return 0;
}

static double sum_of(const double *v, const int *which, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[which[i]];
    return s;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = {10072, 50080, 200000, 425000};
    int nsizes = 4, repeats = 3;
    bool callgrind = false;
    const char *work = NULL;
    am_skeleton skel;
    am_error err;
    am_error_clear(&err);
    char skel_path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/viewer/avatar_skeleton.xml", AM_SHARED_DIR);
    if (argc == 5 && !strcmp(argv[1], "--child")) { /* under valgrind */
        if (am_skeleton_load(skel_path, &skel, &err))
            return fail(skel_path, &err);
        run_result r;
        return run_one(argv[2], argv[3], argv[4], &skel, &r);
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            if (parse_sizes(argv[++i], sizes, &nsizes)) {
                fprintf(stderr, "benchmark_pipeline: --sizes: expected e.g. 10k,50k,200k,425k\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
            if (repeats < 1 || repeats > MAX_REPEATS) {
                fprintf(stderr, "benchmark_pipeline: --repeats: 1..%d\n", MAX_REPEATS);
                return 2;
            }
        } else if (!strcmp(argv[i], "--work") && i + 1 < argc)
            work = argv[++i];
        else if (!strcmp(argv[i], "--callgrind"))
            callgrind = true;
        else {
            fprintf(stderr, "usage: benchmark_pipeline [--sizes 10k,50k,200k,425k] [--repeats N] [--work DIR] "
                            "[--callgrind]\n");
            return 2;
        }
    }
    if (am_skeleton_load(skel_path, &skel, &err))
        return fail(skel_path, &err);
    char tmp[4096];
    bool own_tmp = !work;
    if (own_tmp) {
        snprintf(tmp, sizeof tmp, "%s/animesh-pipeline-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("benchmark_pipeline: mkdtemp");
            return 3;
        }
    } else {
        snprintf(tmp, sizeof tmp, "%s", work);
        mkdir(tmp, 0755);
    }
    char anim_path[4096];
    snprintf(anim_path, sizeof anim_path, "%s/walk.anim", tmp);
    int rc = write_clip(&skel, anim_path);
    run_result best[MAX_SIZES];
    char names[MAX_SIZES][64];
    for (int s = 0; s < nsizes && !rc; s++) {
        char rig_path[4096];
        snprintf(rig_path, sizeof rig_path, "%s/rig_%zu.json", tmp, sizes[s]);
        if ((rc = make_rig(sizes[s], rig_path, names[s], sizeof names[s])))
            break;
        for (int k = 0; k < repeats && !rc; k++) {
            run_result r;
            if (run_child(rig_path, anim_path, tmp, &skel, &r)) {
                fprintf(stderr, "benchmark_pipeline: %s failed\n", names[s]);
                rc = 1;
                break;
            }
            if (k == 0)
                best[s] = r;
            for (int st = 0; st < ST_COUNT; st++)
                if (r.sec[st] < best[s].sec[st])
                    best[s].sec[st] = r.sec[st];
            if (r.maxrss_kb < best[s].maxrss_kb)
                best[s].maxrss_kb = r.maxrss_kb;
            fprintf(stderr, "benchmark_pipeline: %s run %d: asset %.2f s + bench %.2f s, %.0f MB\n", names[s], k + 1,
                    sum_of(r.sec, asset_stages, 5), sum_of(r.sec, bench_stages, 2), r.maxrss_kb / 1024.0);
        }
        if (!rc && callgrind && run_callgrind(argv[0], rig_path, anim_path, tmp, &best[s]))
            fprintf(stderr, "benchmark_pipeline: callgrind run of %s failed (is valgrind installed?)\n", names[s]);
        if (own_tmp)
            unlink(rig_path); /* with --work the rigs stay for profiling (--child RIG ANIM DIR) */
    }
    if (!rc) {
        printf("benchmark_pipeline: best of %d (wall s)%s; peak memory from ru_maxrss of each size's process\n",
               repeats, callgrind ? ", instructions (callgrind, 1 run) in 1e6" : "");
        printf("%-18s", "stage");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20s" : " %10s", names[s]);
        printf("\n");
        for (int st = 0; st < ST_COUNT; st++) {
            printf("%-18s", stage_name[st]);
            for (int s = 0; s < nsizes; s++) {
                if (callgrind)
                    printf(" %8.3f %11.1f", best[s].sec[st], best[s].instr[st] / 1e6);
                else
                    printf(" %10.3f", best[s].sec[st]);
            }
            printf("\n");
        }
        printf("%-18s", "rig->asset");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.3f" : " %10.3f", sum_of(best[s].sec, asset_stages, 5));
        printf("\n%-18s", "asset + bench");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.3f" : " %10.3f",
                   sum_of(best[s].sec, asset_stages, 5) + sum_of(best[s].sec, bench_stages, 2));
        printf("\n%-18s", "peak MB");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.1f" : " %10.1f", best[s].maxrss_kb / 1024.0);
        printf("\n%-18s", "bytes/vertex");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.0f" : " %10.0f", best[s].maxrss_kb * 1024.0 / (double)best[s].vertices);
        printf("\n%-18s", "faces");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20zu" : " %10zu", best[s].faces);
        printf("\n%-18s", "duplicated");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %19.2f%%" : " %9.2f%%", 100 * best[s].dup_share);
        printf("\n%-18s", "tris in rig");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20zu" : " %10zu", best[s].tris_in);
        printf("\n%-18s", "est tris (8.2)");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.0f" : " %10.0f", best[s].est_max);
        printf("\n%-18s", "streaming cost");
        for (int s = 0; s < nsizes; s++)
            printf(callgrind ? " %20.2f" : " %10.2f", best[s].cost);
        for (int l = AM_LOD_HIGH; l >= AM_LOD_LOWEST; l--) {
            static const char *const ln[] = {"tris lowest", "tris low", "tris medium", "tris high"};
            printf("\n%-18s", ln[l]);
            for (int s = 0; s < nsizes; s++)
                printf(callgrind ? " %20zu" : " %10zu", best[s].tris_lods[l]);
        }
        printf("\n");
        if (nsizes > 1) {
            printf("scaling exponents log(t2/t1)/log(n2/n1):\n%-18s", "stage");
            for (int s = 1; s < nsizes; s++) {
                char lab[64];
                snprintf(lab, sizeof lab, "%zuk->%zuk", sizes[s - 1] / 1000, sizes[s] / 1000);
                printf(" %12s", lab);
            }
            printf("\n");
            for (int st = -1; st < ST_COUNT; st++) {
                printf("%-18s", st < 0 ? "rig->asset+bench" : stage_name[st]);
                for (int s = 1; s < nsizes; s++) {
                    double a = st < 0 ? sum_of(best[s - 1].sec, asset_stages, 5) + sum_of(best[s - 1].sec, bench_stages, 2)
                                      : best[s - 1].sec[st];
                    double b = st < 0 ? sum_of(best[s].sec, asset_stages, 5) + sum_of(best[s].sec, bench_stages, 2)
                                      : best[s].sec[st];
                    double x = log((double)best[s].vertices / (double)best[s - 1].vertices);
                    if (a > 1e-3 && b > 1e-3 && x > 0)
                        printf(" %12.2f", log(b / a) / x);
                    else
                        printf(" %12s", "-");
                }
                printf("\n");
            }
        }
    }
    if (own_tmp)
        rm_rf(tmp);
    am_skeleton_free(&skel);
    return rc;
}
