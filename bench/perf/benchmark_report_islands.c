/* Benchmark of the quality report on many small islands (issue 31 item 8: a 6.8 MB asset of
 * 100k islands ran `report` past 60 s, every vertex scanned per rigid island per pose). The
 * island cloud of bench/perf/support (one ~1 cm triangle per island, each bound to one of
 * 19 body bones) is skinned in memory and read back by the bench (am_report_bench_rig);
 * then am_quality_run whole, best of --repeats, wall and CPU seconds, and the rigid parts
 * it found. Near-linear: 10x the islands costs about 10x the time.
 *
 *   benchmark_report_islands [--islands 1k,10k,100k] [--repeats N] [--write DIR]
 *
 * --write DIR also writes DIR/islands_N.llmesh (the asset `animesh report` can be timed on). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/perf/support/island_cloud.h"
#include "core/clock.h"
#include "core/io.h"
#include "report/quality.h"
#include "report/report.h"
#include "skin/skin_build.h"

static int fail(const char *what, const am_error *err)
{
    fprintf(stderr, "benchmark_report_islands: %s: %s%s%s\n", what, err->where, err->where[0] ? ": " : "", err->msg);
    return 1;
}

static int write_asset(const am_rig *rig, const am_skeleton *skel, const char *dir, size_t n)
{
    am_error err;
    am_error_clear(&err);
    am_skin_options so;
    am_skin_options_init(&so);
    so.region_max_tris = AM_OPTION_ZERO;
    am_skin_result res;
    am_buf mesh = {0};
    char path[4200];
    snprintf(path, sizeof path, "%s/islands_%zu.llmesh", dir, n);
    if (am_skin_build_encoded(rig, skel, &so, &res, &mesh, &err) || am_mkdir_p(dir, &err) ||
        am_write_file_atomic(path, mesh.data, mesh.size, &err))
        return fail("write", &err);
    printf("wrote %s (%zu bytes)\n", path, mesh.size);
    am_buf_free(&mesh);
    am_skin_result_free(&res);
    return 0;
}

static int run(size_t n, const am_skeleton *skel, int repeats, const char *write_dir)
{
    am_error err;
    am_error_clear(&err);
    am_rig rig;
    if (am_test_island_cloud_rig(skel, n, &rig, &err))
        return fail("islands", &err);
    if (write_dir && write_asset(&rig, skel, write_dir, n))
        return 1;
    am_bench b;
    if (am_report_bench_rig(&rig, skel, "islands", &b, &err))
        return fail("bench", &err);
    double best_w = 0, best_c = 0;
    size_t rigid = 0, islands = 0;
    for (int r = 0; r < repeats; r++) {
        am_quality_report q;
        double w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        if (am_quality_run(&b, NULL, 0, &q, &err))
            return fail("quality", &err);
        double w = am_clock_wall_s() - w0, c = am_clock_cpu_s() - c0;
        best_w = r == 0 || w < best_w ? w : best_w;
        best_c = r == 0 || c < best_c ? c : best_c;
        rigid = q.rigid_parts;
        islands = q.island_count;
        am_quality_free(&q);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%8zu islands %8zu vertices | quality %7.3f s (cpu %7.3f) | %zu islands, %zu rigid parts | "
           "peak RSS %ld MB\n",
           n, b.vertex_count, best_w, best_c, islands, rigid, ru.ru_maxrss / 1024);
    am_bench_free(&b);
    am_rig_free(&rig);
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[8] = {1000, 10000, 100000}, ns = 3;
    int repeats = 1;
    const char *write_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--write") && i + 1 < argc) {
            write_dir = argv[++i];
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--islands") && i + 1 < argc) {
            ns = 0;
            for (char *t = strtok(argv[++i], ","); t && ns < 8; t = strtok(NULL, ","))
                sizes[ns++] = (size_t)(strtod(t, NULL) * (strchr(t, 'k') ? 1000 : 1));
        } else {
            fprintf(stderr, "usage: benchmark_report_islands [--islands 1k,10k,100k] [--repeats N] [--write DIR]\n");
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;
    char skel_path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/viewer/avatar_skeleton.xml", AM_SHARED_DIR);
    am_skeleton skel;
    am_error err;
    am_error_clear(&err);
    if (am_skeleton_load(skel_path, &skel, &err))
        return fail("skeleton", &err);
    int rc = 0;
    for (size_t i = 0; i < ns && !rc; i++)
        rc = run(sizes[i], &skel, repeats, write_dir);
    am_skeleton_free(&skel);
    return rc;
}
