/* Benchmark of the browser preview (src/preview/preview.h): page size and write time per
 * creature size. The creature of bench/support (10k as read; 50k; 425k subdivided from the
 * 50k) is skinned in memory (the skin builder's defaults: 4 LODs, the region's triangle
 * budget), given the 1 s walk clip (bench/perf/support/test_walk.h), and its page written.
 *
 *   benchmark_preview [--sizes 10k,50k,425k] [--work DIR]
 *
 * Prints per size: vertices, high-LOD triangles, page bytes, the page per 100k high-LOD
 * triangles, the frame bytes per second of clip (the page with the clip minus the page
 * without), and the write time. With --work the pages are kept in DIR (to open them,
 * or to time them in a browser: NAME.preview.html#fps=3, docs/preview.md). Target (issue
 * 20): under 2 MB per 100k triangles and 10 s of clip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/clock.h"
#include "preview/preview.h"
#include "skin/skin_build.h"
#include "bench/perf/support/test_creature.h"
#include "bench/perf/support/test_walk.h"

static int fail(const char *what, const am_error *err)
{
    fprintf(stderr, "benchmark_preview: %s: %s%s%s\n", what, err->where, err->where[0] ? ": " : "", err->msg);
    return 1;
}

static int run_size(size_t n, const am_skeleton *skel, const am_buf *walk, const char *work)
{
    char dir[4096], name[64];
    snprintf(dir, sizeof dir, "%s/data/creature", AM_SHARED_DIR);
    snprintf(name, sizeof name, "creature_%zuk", (n + 500) / 1000);
    am_error err;
    am_error_clear(&err);
    am_rig big;
    if (am_test_creature_sized(dir, n, &big, &err))
        return fail("creature", &err);
    am_skin_options so;
    am_skin_options_init(&so);
    am_skin_result res;
    am_buf mesh = {0};
    if (am_skin_build_encoded(&big, skel, &so, &res, &mesh, &err))
        return fail("skin", &err);
    am_preview_part part = {name, mesh.data, mesh.size, NULL, 0, NULL};
    am_preview_clip clips[1] = {{"walk", walk->data, walk->size, NULL}};
    am_preview_input in = {name, &part, 1, clips, 1, skel, 0};
    am_buf one = {0}, two = {0};
    am_preview_stats s1, s2;
    double t0 = am_clock_wall_s();
    if (am_preview_write(&in, &one, &s1, &err))
        return fail("preview", &err);
    double dt = am_clock_wall_s() - t0;
    in.clip_count = 0;
    if (am_preview_write(&in, &two, &s2, &err))
        return fail("preview", &err);
    double per_s = (double)(s1.page_bytes - s2.page_bytes) / s1.clip_seconds;
    printf("%-14s %8zu vertices %8zu high tris  page %9zu bytes (%.2f MB per 100k tris)  frames %7.0f bytes per "
           "clip second  written in %.2f s\n",
           name, big.vertex_count, s1.high_triangles, s1.page_bytes, s1.page_bytes / 1e6 * 1e5 / (double)s1.high_triangles,
           per_s, dt);
    if (work) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.preview.html", work, name);
        if (am_write_file_atomic(path, one.data, one.size, &err))
            return fail(path, &err);
    }
    am_buf_free(&one);
    am_buf_free(&two);
    am_buf_free(&mesh);
    am_skin_result_free(&res);
    am_rig_free(&big);
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[8] = {10072, 50080, 425000}, ns = 3;
    const char *work = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--work") && i + 1 < argc) {
            work = argv[++i];
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0;
            for (char *t = strtok(argv[++i], ","); t && ns < 8; t = strtok(NULL, ","))
                sizes[ns++] = (size_t)(strtod(t, NULL) * (strchr(t, 'k') ? 1000 : 1));
        } else {
            fprintf(stderr, "usage: benchmark_preview [--sizes 10k,50k,425k] [--work DIR]\n");
            return 2;
        }
    }
    char skel_path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/viewer/avatar_skeleton.xml", AM_SHARED_DIR);
    am_skeleton skel;
    am_error err;
    am_error_clear(&err);
    if (am_skeleton_load(skel_path, &skel, &err))
        return fail(skel_path, &err);
    am_buf walk = {0};
    if (am_test_walk_anim(&skel, &walk, &err))
        return fail("walk clip", &err);
    int rc = 0;
    for (size_t i = 0; i < ns && !rc; i++)
        rc = run_size(sizes[i], &skel, &walk, work);
    am_buf_free(&walk);
    am_skeleton_free(&skel);
    return rc;
}
