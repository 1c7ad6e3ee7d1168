/* benchmark_motion: bone-direction agreement of Mixamo motions retargeted by animesh
 * (issue 18), measured on the WRITTEN .anim decoded and played the viewer's way
 * (motion_directions.h), onto the stock avatar and onto rpm_avatar.glb's rest.
 *
 *   benchmark_motion [MOTION.fbx|MOTION.bvh ...]   (default: ../shared/data/realdata/Idle.fbx,
 *                                                   Walking.fbx; a CMU BVH has Mixamo's names
 *                                                   without the prefix)
 *
 * Prints, per clip and target, the largest angle over 8 times for each major bone, then
 * p95 and max over all of them. Target: p95 <= 6 deg, max <= 15 deg.
 * Then (issue 28) the end effectors' orientation against the source's, at the same times:
 * the face's forward direction, the soles' and the palms' normals, and each limb bone's
 * roll (motion_directions.h "ORIENTATIONS"). Targets: face and soles <= 5 deg, palms <= 8,
 * roll <= 3. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "retarget/motion_file.h"
#include "retarget/retarget.h"
#include "readers/scene_load.h"
#include "bench/perf/support/motion_directions.h"

static int creature_rest(const char *model, const am_skeleton *skel, am_vec3 *rest)
{
    am_scene s;
    am_error err;
    am_error_clear(&err);
    char buf[1200];
    if (am_scene_load(model, &s, &err)) {
        fprintf(stderr, "%s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    am_retarget_options o;
    am_retarget_options_init(&o);
    am_retarget_result r;
    am_status st = am_retarget(&s, skel, &o, &r, &err);
    if (!st && r.rig_count)
        am_retarget_rest_of_rig(&r.rigs[0].rig, skel, rest);
    if (st)
        fprintf(stderr, "%s\n", am_error_format(&err, buf, sizeof buf));
    else
        am_retarget_result_free(&r);
    am_scene_free(&s);
    return st != AM_OK;
}

static int measure(const char *motion, const char *target_name, const am_vec3 *rest, const am_skeleton *skel)
{
    am_error err;
    am_error_clear(&err);
    char buf[1200];
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    mo.retarget.target_rest = rest;
    am_motion_file_result r;
    am_scene s;
    if (am_motion_file_convert(motion, skel, &mo, &r, &err) || am_scene_load(motion, &s, &err)) {
        fprintf(stderr, "%s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < r.anim_count; i++) {
        am_md_result d;
        const char *prefix = am_scene_find_node(&s, "mixamorig:Hips") >= 0 ? "mixamorig:" : "";
        if (am_md_measure(&s, 0, prefix, r.anims[i].anim.data, r.anims[i].anim.size, skel, rest, &d, &err)) {
            fprintf(stderr, "%s\n", am_error_format(&err, buf, sizeof buf));
            rc = 1;
            continue;
        }
        printf("%s clip '%s' onto %s (%zu keys, %.3f s, %s):\n", motion, am_str(&r.anims[i].clip), target_name,
               r.anims[i].keys_after, r.anims[i].duration_s, r.anims[i].loops ? "looping" : "not looping");
        for (int b = 0; b < AM_MD_BONES; b++) {
            double worst = -1;
            printf("  %-14s", d.bone[b]);
            for (int t = 0; t < AM_MD_TIMES; t++) {
                printf(" %5.1f", d.deg[b][t]);
                if (d.deg[b][t] > worst)
                    worst = d.deg[b][t];
            }
            printf("   max %5.1f deg\n", worst);
        }
        printf("  p95 %.2f deg, max %.2f deg over %zu bone-times (target p95 <= 6, max <= 15): %s\n", d.p95_deg,
               d.worst_deg, d.measured, d.p95_deg <= 6 && d.worst_deg <= 15 ? "met" : "NOT met");
        printf("  orientation against the source's:\n");
        for (int o = 0; o < AM_MD_ORIENTS; o++) {
            printf("  %-14s", d.orient[o]);
            for (int t = 0; t < AM_MD_TIMES; t++)
                printf(" %5.1f", d.orient_deg[o][t]);
            printf("\n");
        }
        printf("  limb roll against the source's:\n");
        for (int b = 0; b < AM_MD_ROLLS; b++) {
            printf("  %-14s", d.roll[b]);
            for (int t = 0; t < AM_MD_TIMES; t++)
                printf(" %5.1f", d.roll_deg[b][t]);
            printf("\n");
        }
        bool met = d.face_deg >= 0 && d.face_deg <= 5 && d.sole_deg >= 0 && d.sole_deg <= 5 && d.palm_deg >= 0 &&
                   d.palm_deg <= 8 && d.roll_worst_deg >= 0 && d.roll_worst_deg <= 3;
        printf("  face %.2f deg, soles %.2f, palms %.2f, limb roll %.2f (targets 5, 5, 8, 3): %s\n", d.face_deg,
               d.sole_deg, d.palm_deg, d.roll_worst_deg, met ? "met" : "NOT met");
    }
    am_scene_free(&s);
    am_motion_file_result_free(&r);
    return rc;
}

int main(int argc, char **argv)
{
    am_skeleton skel;
    am_error err;
    am_error_clear(&err);
    char buf[1200];
    if (am_skeleton_load(AM_SHARED_DIR "/viewer/avatar_skeleton.xml", &skel, &err)) {
        fprintf(stderr, "%s\n", am_error_format(&err, buf, sizeof buf));
        return 1;
    }
    const char *def[] = {AM_SHARED_DIR "/data/realdata/Idle.fbx", AM_SHARED_DIR "/data/realdata/Walking.fbx"};
    const char *const *motions = argc > 1 ? (const char *const *)argv + 1 : def;
    size_t n = argc > 1 ? (size_t)argc - 1 : 2;
    am_vec3 *stock = malloc(skel.joint_count * sizeof *stock), *rpm = malloc(skel.joint_count * sizeof *rpm);
    int rc = !stock || !rpm;
    if (!rc) {
        am_retarget_rest_of_rig(NULL, &skel, stock);
        rc = creature_rest(AM_SHARED_DIR "/data/realdata/rpm_avatar.glb", &skel, rpm);
    }
    for (size_t i = 0; !rc && i < n; i++) {
        rc |= measure(motions[i], "the stock avatar", stock, &skel);
        rc |= measure(motions[i], "rpm_avatar.glb", rpm, &skel);
    }
    free(stock);
    free(rpm);
    am_skeleton_free(&skel);
    return rc;
}
