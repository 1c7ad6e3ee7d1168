/* benchmark_map_wide: joint analysis and the map suggestion on wide skeletons (issue 31
 * item 9: 35k joints under one parent took 22.6 s, 60k asked for ~14 GB).
 *
 *   benchmark_map_wide [N ...]     (default: 5000 20000 60000)
 *
 * For each N: a glTF of one root with N one-joint children (and a skin over them all) is
 * written to TMPDIR, loaded, and am_map_suggest_scene timed (wall and CPU), with the peak
 * resident memory of the process after it. Linear: time and memory grow with N. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/clock.h"
#include "map/map_suggest.h"
#include "readers/scene_load.h"

static int write_wide(const char *path, long n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    fprintf(f, "{\"name\":\"root\",\"children\":[");
    for (long i = 0; i < n; i++)
        fprintf(f, "%s%ld", i ? "," : "", i + 1);
    fprintf(f, "]}");
    for (long i = 0; i < n; i++)
        fprintf(f, ",{\"name\":\"j%ld\",\"translation\":[%g,%g,1]}", i, 0.01 * (double)(i % 100),
                0.01 * (double)(i / 100));
    fprintf(f, "],\"skins\":[{\"joints\":[");
    for (long i = 0; i <= n; i++)
        fprintf(f, "%s%ld", i ? "," : "", i);
    fprintf(f, "]}]}\n");
    return fclose(f);
}

int main(int argc, char **argv)
{
    long defaults[3] = {5000, 20000, 60000};
    int count = argc > 1 ? argc - 1 : 3;
    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    if (am_skeleton_load(AM_SHARED_DIR "/viewer/avatar_skeleton.xml", &skel, &err)) {
        fprintf(stderr, "benchmark_map_wide: %s\n", err.msg);
        return 1;
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmark_map_wide_%ld.gltf", tmp, (long)getpid());
    printf("%8s %10s %10s %12s\n", "joints", "wall s", "cpu s", "peak MB");
    for (int k = 0; k < count; k++) {
        long n = argc > 1 ? atol(argv[k + 1]) : defaults[k];
        am_scene sc;
        if (n < 1 || n > 65000 || write_wide(path, n) || am_scene_load(path, &sc, &err)) {
            fprintf(stderr, "benchmark_map_wide: %ld joints: %s\n", n, err.msg);
            remove(path);
            am_skeleton_free(&skel);
            return 1;
        }
        remove(path);
        double w0 = am_clock_wall_s(), c0 = am_clock_cpu_s();
        am_body body;
        am_axes axes;
        am_map_suggestion sug;
        am_status st = am_map_suggest_scene(&sc, &skel, NULL, NULL, &body, &axes, &sug, &err);
        double w = am_clock_wall_s() - w0, c = am_clock_cpu_s() - c0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        if (st) {
            fprintf(stderr, "benchmark_map_wide: %s\n", err.msg);
        } else {
            printf("%8ld %10.3f %10.3f %12.1f\n", n + 1, w, c, (double)ru.ru_maxrss / 1024);
            am_map_suggestion_free(&sug);
            am_body_free(&body);
        }
        am_scene_free(&sc);
    }
    am_skeleton_free(&skel);
    return 0;
}
