/* libFuzzer target for BVH -> scene (src/readers/bvh/bvh_scene.h) and what reads any scene's
 * hierarchy without a skeleton file: validation, the body plan (body.h) and the axis and
 * unit detection (axes.h), then the clip evaluator. Properties: no crash, no leak, no UB on
 * any input; a detected frame is a proper rotation. Seeds: tests/fuzz/corpus/bvh_scene/. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map/axes.h"
#include "map/body.h"
#include "readers/bvh/bvh_scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_scene s;
    memset(&s, 0, sizeof s);
    am_error err;
    am_error_clear(&err);
    if (am_scene_read_bvh(data, size, "fuzz.bvh", ".", &s, &err) != AM_OK || am_scene_finish(&s, &err) != AM_OK) {
        am_scene_free(&s);
        return 0;
    }
    am_body b;
    if (am_body_analyse(&s, &b, &err) == AM_OK) {
        am_axes ax;
        const am_axes_options tries[] = {{0, 0, 0}, {3, 1, 0.01}, {2, 0, 0}};
        for (size_t i = 0; i < sizeof tries / sizeof *tries; i++)
            if (am_axes_resolve(&s, &b, &tries[i], &ax, &err) == AM_OK) {
                am_vec3 x = am_quat_rotate(ax.rot, am_v3(1, 0, 0)), y = am_quat_rotate(ax.rot, am_v3(0, 1, 0)),
                        z = am_quat_rotate(ax.rot, am_v3(0, 0, 1));
                if (fabs(am_v3_dot(am_v3_cross(x, y), z) - 1) > 1e-9)
                    abort(); /* never a mirror */
                am_body_set_sides(&b, ax.rot);
            }
        am_body_free(&b);
    }
    am_scene_trs *trs = malloc((s.node_count ? s.node_count : 1) * sizeof *trs);
    am_mat4 *local = malloc((s.node_count ? s.node_count : 1) * sizeof *local);
    if (trs && local && s.clip_count)
        for (int k = 0; k < 3; k++)
            am_scene_eval_clip(&s, &s.clips[0], s.clips[0].end_s * k / 2.0, trs, local);
    free(trs);
    free(local);
    am_scene_free(&s);
    return 0;
}
