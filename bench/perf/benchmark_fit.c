/* The voxel work of `bind --fit` (issue 19 item 11; not a test): am_bind_fit_ex on the two
 * inputs of the issue, built in memory: 40,000 copies of one triangle as tall as a figure
 * (before the bound: 23 s), and a T-pose figure of six boxes whose faces are split into
 * N x N squares (N = 204: 2,996,352 triangles). Per input: best-of-REPEATS wall time of the
 * fit, its cell tests, the budget, and what the bounds did (coincident triangles skipped,
 * triangles past the budget marked by their edges).
 *
 * usage: benchmark_fit [N [REPEATS]]   (the viewer skeleton: $ANIMESH_SKELETON, else the shared
 * folder's) */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/fit.h"
#include "core/clock.h"
#include "skeleton/skeleton.h"

typedef struct mesh {
    float *pos;
    uint32_t *tri;
    size_t nv, nt;
} mesh;

/* Six boxes (torso, head, arms, legs) in a T pose, Z up, facing +X; each face n x n. */
static int boxes(int n, mesh *m)
{
    static const float box[6][2][3] = {
        {{-0.12f, -0.2f, 0.9f}, {0.12f, 0.2f, 1.45f}},  {{-0.1f, -0.1f, 1.45f}, {0.1f, 0.1f, 1.75f}},
        {{-0.06f, 0.2f, 1.3f}, {0.06f, 0.85f, 1.42f}},  {{-0.06f, -0.85f, 1.3f}, {0.06f, -0.2f, 1.42f}},
        {{-0.07f, 0.03f, 0.0f}, {0.07f, 0.18f, 0.9f}},  {{-0.07f, -0.18f, 0.0f}, {0.07f, -0.03f, 0.9f}}};
    size_t per = (size_t)(n + 1) * (size_t)(n + 1);
    m->nv = 36 * per;
    m->nt = 36 * (size_t)n * (size_t)n * 2;
    m->pos = malloc(3 * m->nv * sizeof *m->pos);
    m->tri = malloc(3 * m->nt * sizeof *m->tri);
    if (!m->pos || !m->tri)
        return -1;
    size_t v = 0, t = 0;
    for (int b = 0; b < 6; b++)
        for (int axis = 0; axis < 3; axis++)
            for (int side = 0; side < 2; side++) {
                int a = (axis + 1) % 3, c = (axis + 2) % 3;
                size_t base = v;
                for (int i = 0; i <= n; i++)
                    for (int j = 0; j <= n; j++, v++) {
                        float *p = &m->pos[3 * v];
                        p[axis] = box[b][side][axis];
                        p[a] = box[b][0][a] + (box[b][1][a] - box[b][0][a]) * (float)i / (float)n;
                        p[c] = box[b][0][c] + (box[b][1][c] - box[b][0][c]) * (float)j / (float)n;
                    }
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        uint32_t q = (uint32_t)(base + (size_t)i * (size_t)(n + 1) + (size_t)j), r = q + (uint32_t)n + 1;
                        uint32_t f[6] = {q, r, r + 1, q, r + 1, q + 1};
                        memcpy(&m->tri[3 * t], f, sizeof f);
                        t += 2;
                    }
            }
    return 0;
}

static int coincident(size_t copies, mesh *m)
{
    m->nv = 3;
    m->nt = copies;
    m->pos = malloc(9 * sizeof *m->pos);
    m->tri = malloc(3 * copies * sizeof *m->tri);
    if (!m->pos || !m->tri)
        return -1;
    const float p[9] = {0, -0.3f, 0, 0, 0.3f, 0, 0, 0, 1.8f};
    memcpy(m->pos, p, sizeof p);
    for (size_t t = 0; t < copies; t++)
        for (int k = 0; k < 3; k++)
            m->tri[3 * t + (size_t)k] = (uint32_t)k;
    return 0;
}

static void run(const char *label, const mesh *m, const am_skeleton *viewer, int repeats)
{
    am_bind_mesh bm = {m->nv, m->pos, m->nt, m->tri};
    double best = 1e30;
    am_fit_stats st;
    am_status s = AM_OK;
    char summary[600];
    am_error err;
    for (int r = 0; r < repeats; r++) {
        am_bind_skeleton out;
        double t0 = am_clock_wall_s();
        s = am_bind_fit_ex(&bm, AM_FIT_HUMANOID, viewer, &out, summary, sizeof summary, &st, &err);
        double dt = am_clock_wall_s() - t0;
        if (!s)
            am_bind_skeleton_free(&out);
        best = dt < best ? dt : best;
    }
    printf("%-34s %9zu triangles  fit %7.3f s  tests %11llu  budget %11llu  coincident %7zu  edges only %7zu  %s\n",
           label, m->nt, best, (unsigned long long)st.voxel_tests, (unsigned long long)st.voxel_budget,
           st.coincident, st.edges_only, s ? "refused (no limbs)" : "fitted");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 204, repeats = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 1 || repeats < 1) {
        fprintf(stderr, "usage: benchmark_fit [N [REPEATS]]\n");
        return 2;
    }
    am_skeleton viewer;
    am_error err;
    const char *skel = getenv("ANIMESH_SKELETON"); /* else the shared folder's */
    if (am_skeleton_load(skel ? skel : AM_SHARED_DIR "/viewer/avatar_skeleton.xml", &viewer, &err)) {
        fprintf(stderr, "benchmark_fit: %s\n", err.msg);
        return 1;
    }
    mesh a = {0}, b = {0};
    if (coincident(40000, &a) || boxes(n, &b)) {
        fprintf(stderr, "benchmark_fit: out of memory\n");
        return 1;
    }
    run("40,000 coincident tall triangles", &a, &viewer, repeats);
    char label[64];
    snprintf(label, sizeof label, "six boxes, faces split %d x %d", n, n);
    run(label, &b, &viewer, repeats);
    free(a.pos);
    free(a.tri);
    free(b.pos);
    free(b.tri);
    am_skeleton_free(&viewer);
    return 0;
}
