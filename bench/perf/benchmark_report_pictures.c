/* Benchmark of the quality report's pictures (src/report/quality.h; issue 22): the pose
 * sheet and the three close-ups `animesh bind` and `animesh report` draw, per creature size.
 * The creature of bench/support (10k as read; 50k; bigger ones subdivided from the 50k) with
 * Blender's weights is skinned in memory and measured as the report does
 * (am_report_bench_rig, am_quality_run); then, best of --repeats: the sheet drawn, the
 * close-ups drawn, each picture PNG-encoded, and am_report_write as a whole (drawing and
 * encoding every picture into an output set that is not committed). Wall and CPU seconds
 * (CPU counts every thread: above wall when the pictures share the cores).
 *
 *   benchmark_report_pictures [--sizes 10k,50k,200k] [--repeats N] [--keep DIR]
 *
 * --keep DIR writes the pictures of the last size into DIR (to look at them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/perf/support/test_creature.h"
#include "core/clock.h"
#include "bench/render.h"
#include "core/io.h"
#include "core/outset.h"
#include "report/quality.h"
#include "report/report.h"

static int fail(const char *what, const am_error *err)
{
    fprintf(stderr, "benchmark_report_pictures: %s: %s%s%s\n", what, err->where, err->where[0] ? ": " : "", err->msg);
    return 1;
}

typedef struct timing {
    double wall, cpu;
} timing;

static void keep_best(timing *best, double w0, double c0)
{
    double w = am_clock_wall_s() - w0, c = am_clock_cpu_s() - c0;
    if (best->wall == 0 || w < best->wall)
        best->wall = w;
    if (best->cpu == 0 || c < best->cpu)
        best->cpu = c;
}

static int run_size(size_t n, const am_skeleton *skel, int repeats, const char *keep)
{
    char dir[4096], name[64];
    snprintf(dir, sizeof dir, "%s/data/creature", AM_SHARED_DIR);
    snprintf(name, sizeof name, "creature_%zuk", (n + 500) / 1000);
    am_error err;
    am_error_clear(&err);
    am_rig big;
    if (am_test_creature_sized(dir, n, &big, &err))
        return fail("creature", &err);
    am_bench b;
    if (am_report_bench_rig(&big, skel, name, &b, &err))
        return fail("bench", &err);
    am_quality_report q;
    if (am_quality_run(&b, NULL, 0, &q, &err))
        return fail("quality", &err);
    timing sheet = {0}, closeups = {0}, encode = {0}, whole = {0};
    size_t bytes = 0, pictures = 0;
    for (int r = 0; r < repeats; r++) {
        am_image img[4];
        memset(img, 0, sizeof img);
        double w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        if (am_quality_render_sheet(&b, &q, NULL, 0, &img[0], &err))
            return fail("sheet", &err);
        keep_best(&sheet, w0, c0);
        w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        size_t ni = 1;
        for (size_t rank = 0; rank < 3; rank++) {
            bool found = false;
            if (am_quality_render_closeup(&b, &q, NULL, 0, rank, &img[ni], &found, NULL, &err))
                return fail("close-up", &err);
            ni += found;
        }
        keep_best(&closeups, w0, c0);
        w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        bytes = 0;
        for (size_t i = 0; i < ni; i++) {
            am_buf png = {0};
            if (am_tex_png_encode_picture(&img[i], &png, &err))
                return fail("encode", &err);
            bytes += png.size;
            am_buf_free(&png);
            am_image_free(&img[i]);
        }
        pictures = ni;
        keep_best(&encode, w0, c0);
        char out[4200];
        const char *tmp = getenv("TMPDIR");
        snprintf(out, sizeof out, "%s", keep && r == repeats - 1 ? keep : tmp && tmp[0] ? tmp : "/tmp");
        am_outset *set = NULL;
        w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        if (am_mkdir_p(out, &err) || am_outset_begin(&set, out, NULL, 0, &err) ||
            am_report_write(&b, &q, NULL, 0, set, name, "", NULL, NULL, &err))
            return fail("report", &err);
        keep_best(&whole, w0, c0);
        if (keep && r == repeats - 1 && am_outset_commit(set, &err))
            return fail("keep", &err);
        am_outset_free(set); /* uncommitted: its temporary files removed */
    }
    printf("%-14s %8zu vertices %8zu tris | sheet %6.3f s (cpu %6.3f) | close-ups %6.3f (%6.3f) | encode %zu "
           "%6.3f (%6.3f), %7zu bytes | report_write %6.3f (%6.3f)\n",
           name, b.vertex_count, b.triangle_count, sheet.wall, sheet.cpu, closeups.wall, closeups.cpu, pictures,
           encode.wall, encode.cpu, bytes, whole.wall, whole.cpu);
    am_quality_free(&q);
    am_bench_free(&b);
    am_rig_free(&big);
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[8] = {10072, 50080, 200000}, ns = 3;
    int repeats = 3;
    const char *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
            keep = argv[++i];
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0;
            for (char *t = strtok(argv[++i], ","); t && ns < 8; t = strtok(NULL, ","))
                sizes[ns++] = (size_t)(strtod(t, NULL) * (strchr(t, 'k') ? 1000 : 1));
        } else {
            fprintf(stderr, "usage: benchmark_report_pictures [--sizes 10k,50k,200k] [--repeats N] [--keep DIR]\n");
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
        return fail(skel_path, &err);
    int rc = 0;
    for (size_t i = 0; i < ns && !rc; i++)
        rc = run_size(sizes[i], &skel, repeats, keep);
    am_skeleton_free(&skel);
    return rc;
}
