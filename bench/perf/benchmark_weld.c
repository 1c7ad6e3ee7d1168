/* benchmark_weld: what welding and the seam-aware LODs buy, in the viewer's own figures.
 *
 *   benchmark_weld [MODEL ...]     (default: ../shared/data/realdata/rpm_avatar.fbx and .glb)
 *
 * Each model is imported twice (the import route, every part written, in a temporary
 * folder removed after): with the readers' meshes as they come (no weld: FBX through assimp
 * gives three corners per triangle) and welded (scene/weld.h, what `animesh import` does).
 * Per part: vertices, triangles, the four LODs' triangles, the .llmesh bytes and the
 * streaming cost (docs/reference/mesh-asset.md#streaming-cost); then the totals and, when both Ready Player Me files
 * are given, FBX / GLB ratios (target: within 10 %).
 *
 * Then the flat-shaded meshes of bench/perf/support/test_flat.h through the skin builder: LOD
 * triangles with the shadow index (am_skin_simplify) and, for comparison, the same chain of
 * simplifications on the indices as they are (am_skin_simplify_welded: what the LODs were
 * before), where an unwelded mesh shows no shared edge and keeps every triangle. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "readers/scene_load.h"
#include "skin/skin_build.h"
#include "skin/skin_internal.h"
#include "bench/perf/support/test_flat.h"

#define MAX_PARTS 32

typedef struct part_fig {
    char name[128];
    size_t vertices, triangles, lod[AM_LOD_COUNT];
    long bytes;
    double cost;
} part_fig;

typedef struct model_fig {
    size_t count;
    part_fig parts[MAX_PARTS];
    long bytes;
    double cost;
    size_t vertices;
} model_fig;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int import_figures(const char *model, bool weld, const am_skeleton *skel, model_fig *out)
{
    memset(out, 0, sizeof *out);
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/benchmark_weld-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("benchmark_weld: mkdtemp");
        return 1;
    }
    char out_dir[600];
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    am_error err;
    am_error_clear(&err);
    char buf[600];
    am_import_options opts;
    am_import_options_init(&opts);
    am_scene scene;
    am_scene_load_options lo = {.skeleton = skel, .weld = weld};
    am_import_plan plan;
    am_import_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = 1;
    if (am_scene_load_ex(model, &lo, &scene, &err))
        goto done;
    am_status st = am_import_plan_make(&scene, skel, &opts, &plan, &err);
    am_scene_free(&scene);
    if (st)
        goto done;
    st = am_import_run(&plan, skel, &opts, out_dir, &rep, &err);
    am_import_plan_free(&plan);
    if (st)
        goto done;
    for (size_t i = 0; i < rep.part_count && out->count < MAX_PARTS; i++) {
        const am_import_part_report *p = &rep.parts[i];
        part_fig *f = &out->parts[out->count++];
        snprintf(f->name, sizeof f->name, "%s", am_str(&p->meshes));
        f->vertices = p->vertices;
        f->triangles = p->triangles;
        memcpy(f->lod, p->skin->lod_triangles, sizeof f->lod);
        f->cost = p->skin->streaming_cost;
        char path[1024];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s.llmesh", out_dir, am_str(&p->name));
        f->bytes = stat(path, &sb) == 0 ? (long)sb.st_size : -1;
        out->bytes += f->bytes;
        out->cost += f->cost;
        out->vertices += f->vertices;
    }
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "benchmark_weld: %s\n", am_error_format(&err, buf, sizeof buf));
    am_import_report_free(&rep);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}

static void print_model(const char *model, const char *label, const model_fig *m)
{
    printf("\n%s, %s\n", model, label);
    printf("  %-24s %8s %8s %26s %9s %8s\n", "part", "vertices", "tris", "LOD tris high/med/low/lowest", "bytes",
           "cost");
    for (size_t i = 0; i < m->count; i++) {
        const part_fig *p = &m->parts[i];
        char lods[64];
        snprintf(lods, sizeof lods, "%zu/%zu/%zu/%zu", p->lod[AM_LOD_HIGH], p->lod[AM_LOD_MEDIUM], p->lod[AM_LOD_LOW],
                 p->lod[AM_LOD_LOWEST]);
        printf("  %-24s %8zu %8zu %26s %9ld %8.3f\n", p->name, p->vertices, p->triangles, lods, p->bytes, p->cost);
    }
    printf("  %-24s %8zu %8s %26s %9ld %8.3f\n", "total", m->vertices, "", "", m->bytes, m->cost);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The skin builder's LOD chain on a rig, with or without the shadow index: the high LOD's
 * triangles, then medium, low, lowest as am_skin_build makes them (default options). */
static int lod_chain(const am_rig *rig, bool shadow, size_t lods[AM_LOD_COUNT])
{
    size_t nv = rig->vertex_count, n = 3 * rig->triangle_count;
    uint8_t *count = calloc(nv ? nv : 1, 1), *joint = calloc(4 * (nv ? nv : 1), 1);
    float *weight = calloc(4 * (nv ? nv : 1), sizeof *weight);
    uint32_t *cls = malloc((nv ? nv : 1) * sizeof *cls), *cls_far = malloc((nv ? nv : 1) * sizeof *cls_far);
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!count || !joint || !weight || !cls || !cls_far || !idx) {
        free(count), free(joint), free(weight), free(cls), free(cls_far), free(idx);
        return 1;
    }
    for (size_t v = 0; v < nv; v++)
        for (size_t k = rig->weight_start[v]; k < rig->weight_start[v + 1] && count[v] < 4; k++) {
            joint[4 * v + count[v]] = (uint8_t)rig->influences[k].joint;
            weight[4 * v + count[v]] = (float)((uint16_t)(rig->influences[k].weight * 65535) / 65535.0);
            count[v]++;
        }
    memcpy(idx, rig->triangles, n * sizeof *idx);
    am_lod_mesh m = {rig->positions, nv, count, joint, weight, rig->normals};
    am_skin_options o;
    am_skin_options_init(&o);
    am_error err;
    am_error_clear(&err);
    int rc = am_skin_weight_classes(&m, true, cls, &err) || am_skin_weight_classes(&m, false, cls_far, &err);
    lods[AM_LOD_HIGH] = n / 3;
    for (int lod = AM_LOD_MEDIUM; lod >= AM_LOD_LOWEST && !rc; lod--) {
        int step = AM_LOD_HIGH - lod - 1;
        am_lod_step ls = {lod == AM_LOD_MEDIUM ? cls : cls_far, o.lod_ratio[step], o.lod_error[step],
                          o.lod_weight_tol[step], 0, false};
        uint32_t *next = NULL;
        size_t nn = 0;
        rc = shadow ? am_skin_simplify(&m, idx, n, &ls, &next, &nn, &err)
                    : am_skin_simplify_welded(&m, idx, n, &ls, &next, &nn, &err);
        if (!rc) {
            free(idx);
            idx = next;
            n = nn;
            lods[lod] = n / 3;
        }
    }
    free(count), free(joint), free(weight), free(cls), free(cls_far), free(idx);
    return rc;
}

static int flat_meshes(void)
{
    printf("\nflat-shaded meshes (every triangle its own vertices), LOD triangles high/med/low/lowest\n");
    printf("  %-34s %22s %22s\n", "mesh", "as they are (before)", "shadow index (now)");
    for (int k = 0; k < 3; k++) {
        am_rig rig;
        am_error err;
        am_error_clear(&err);
        const char *label = k == 0 ? "box 0.25 m cells (896 tris)" : k == 1 ? "tube 12 facets x 16 rings" : "tube 24 facets x 32 rings";
        am_status st = k == 0 ? am_test_flat_box_rig(&rig, 0.25, &err)
                              : am_test_faceted_tube_rig(&rig, k == 1 ? 12 : 24, k == 1 ? 16 : 32, &err);
        size_t a[AM_LOD_COUNT], b[AM_LOD_COUNT];
        if (st || lod_chain(&rig, false, a) || lod_chain(&rig, true, b)) {
            fprintf(stderr, "benchmark_weld: %s failed\n", label);
            if (!st)
                am_rig_free(&rig);
            return 1;
        }
        char sa[64], sb[64];
        snprintf(sa, sizeof sa, "%zu/%zu/%zu/%zu", a[3], a[2], a[1], a[0]);
        snprintf(sb, sizeof sb, "%zu/%zu/%zu/%zu", b[3], b[2], b[1], b[0]);
        printf("  %-34s %22s %22s   lowest/high %.2f -> %.2f\n", label, sa, sb, (double)a[0] / (double)a[3],
               (double)b[0] / (double)b[3]);
        am_rig_free(&rig);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *defaults[2] = {"../shared/data/realdata/rpm_avatar.fbx", "../shared/data/realdata/rpm_avatar.glb"};
    const char **models = argc > 1 ? (const char **)argv + 1 : defaults;
    int count = argc > 1 ? argc - 1 : 2;
    const char *skel_path = getenv("ANIMESH_SKELETON");
    am_skeleton skel;
    am_error err;
    char buf[600];
    if (am_skeleton_load(skel_path ? skel_path : "../shared/viewer/avatar_skeleton.xml", &skel, &err)) {
        fprintf(stderr, "benchmark_weld: %s (set ANIMESH_SKELETON)\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    model_fig *figs = calloc(2 * (size_t)count, sizeof *figs);
    if (!figs)
        return 1;
    int rc = 0, fbx = -1, glb = -1;
    for (int i = 0; i < count && !rc; i++) {
        for (int w = 0; w < 2 && !rc; w++) {
            rc = import_figures(models[i], w == 1, &skel, &figs[2 * i + w]);
            if (!rc)
                print_model(models[i], w ? "welded (scene/weld.h)" : "as the reader gives it", &figs[2 * i + w]);
        }
        if (ends_with(models[i], ".fbx"))
            fbx = i;
        if (ends_with(models[i], ".glb"))
            glb = i;
    }
    if (!rc && fbx >= 0 && glb >= 0)
        for (int w = 0; w < 2; w++) {
            const model_fig *a = &figs[2 * fbx + w], *b = &figs[2 * glb + w];
            printf("\nFBX / GLB, %s: vertices %.3f, bytes %.3f (%ld / %ld), streaming cost %.3f (%.3f / %.3f)\n",
                   w ? "welded" : "unwelded", (double)a->vertices / (double)b->vertices,
                   (double)a->bytes / (double)b->bytes, a->bytes, b->bytes, a->cost / b->cost, a->cost, b->cost);
        }
    if (!rc)
        rc = flat_meshes();
    free(figs);
    am_skeleton_free(&skel);
    return rc;
}
