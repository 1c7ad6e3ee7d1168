/* libFuzzer target for the glTF reader (src/readers/gltf/gltf.h), both entries: the bytes as a
 * .glb when they start with "glTF", else as .gltf JSON, which is also wrapped into a GLB
 * (header + JSON chunk) so JSON mutations reach the container code too. Whatever is read
 * must then pass or fail am_scene_finish cleanly, and a finished scene must evaluate and
 * skin without trouble: every clip at its start, middle and end, every mesh. With the
 * viewer skeleton, the joint map is then suggested (names, topology and the fallback): a
 * suggestion that succeeds must pass am_joint_map_check, as map_suggest.h promises. The
 * model's folder does not exist, so no file reference can reach the file system. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "readers/gltf/gltf.h"
#include "map/map_suggest.h"
#include "skeleton/jointmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
AM_FUZZ_INIT_WITH_SKELETON

static void suggest_map(const am_scene *s)
{
    if (!am_fuzz_skel)
        return;
    am_axes_options ao = {0, 0, 0};
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_map_suggest_scene(s, am_fuzz_skel, &ao, NULL, &body, &axes, &sug, &err) != AM_OK) {
        am_fuzz_format(&err);
        return;
    }
    am_joint_map map;
    if (am_map_suggestion_to_map(&sug, &body, am_fuzz_skel, &map, &err) == AM_OK) {
        am_joint_map_report rep;
        memset(&rep, 0, sizeof rep);
        if (am_joint_map_check(&map, am_fuzz_skel, &rep, &err) == AM_OK && rep.count > 0) {
            fprintf(stderr, "fuzz_gltf: the suggested map fails its check: %s\n", rep.problems[0]);
            abort();
        }
        am_joint_map_report_free(&rep);
        am_joint_map_free(&map);
    }
    am_map_suggestion_free(&sug);
    am_body_free(&body);
}

static void exercise(const am_scene *s)
{
    am_scene_trs *trs = malloc((s->node_count + 1) * sizeof *trs);
    am_mat4 *local = malloc((s->node_count + 1) * sizeof *local), *world = malloc((s->node_count + 1) * sizeof *world);
    if (!trs || !local || !world)
        goto done;
    for (size_t c = 0; c <= s->clip_count; c++) {
        const am_scene_clip *clip = c < s->clip_count ? &s->clips[c] : NULL;
        double t0 = clip ? clip->start_s : 0, t1 = clip ? clip->end_s : 0;
        for (int k = 0; k < 3; k++) {
            am_scene_eval_clip(s, clip, t0 + (t1 - t0) * k / 2, trs, local);
            am_scene_world_from_local(s, local, world);
            for (size_t m = 0; m < s->mesh_count; m++) {
                float *out = malloc((3 * s->meshes[m].vertex_count + 1) * sizeof *out);
                am_error err;
                if (out)
                    (void)am_scene_skin_positions(s, m, world, out, &err);
                free(out);
            }
        }
    }
    suggest_map(s);
done:
    free(trs);
    free(local);
    free(world);
}

static void read_one(const uint8_t *data, size_t size, const char *name)
{
    am_scene s;
    memset(&s, 0, sizeof s);
    am_error err;
    am_fuzz_dirty_error(&err);
    if (am_gltf_read(data, size, name, "/nonexistent-animesh-fuzz", &s, &err) == AM_OK &&
        am_scene_finish(&s, &err) == AM_OK)
        exercise(&s);
    else
        am_fuzz_format(&err);
    am_scene_free(&s);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_one(data, size, "fuzz.glb-or-gltf");
    if (size >= 4 && memcmp(data, "glTF", 4) == 0)
        return 0;
    size_t padded = (size + 3) & ~(size_t)3;
    uint8_t *glb = malloc(20 + padded);
    if (!glb)
        return 0;
    memcpy(glb, "glTF", 4);
    put32(glb + 4, 2);
    put32(glb + 8, (uint32_t)(20 + padded));
    put32(glb + 12, (uint32_t)padded);
    put32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, data, size);
    memset(glb + 20 + size, ' ', padded - size);
    read_one(glb, 20 + padded, "fuzz.glb");
    free(glb);
    return 0;
}
