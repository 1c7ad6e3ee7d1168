/* A rig of many small islands (island_cloud.h). */
#include "bench/perf/support/island_cloud.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/perf/support/test_random.h"

static const char *const BONES[] = {"mPelvis",        "mTorso",    "mChest",     "mNeck",      "mHead",
                                    "mCollarLeft",    "mShoulderLeft", "mElbowLeft", "mWristLeft", "mCollarRight",
                                    "mShoulderRight", "mElbowRight",   "mWristRight", "mHipLeft",  "mKneeLeft",
                                    "mAnkleLeft",     "mHipRight",     "mKneeRight",  "mAnkleRight"};
#define BONE_COUNT (sizeof BONES / sizeof BONES[0])

am_status am_test_island_cloud_rig(const am_skeleton *skel, size_t islands, am_rig *rig, am_error *err)
{
    memset(rig, 0, sizeof *rig);
    size_t nv = 3 * islands;
    rig->name = strdup("islands");
    rig->joints = calloc(BONE_COUNT, sizeof *rig->joints);
    rig->positions = malloc(3 * (nv ? nv : 1) * sizeof(float));
    rig->normals = malloc(3 * (nv ? nv : 1) * sizeof(float));
    rig->uvs = malloc(2 * (nv ? nv : 1) * sizeof(float));
    rig->triangles = malloc(3 * (islands ? islands : 1) * sizeof(uint32_t));
    rig->weight_start = malloc((nv + 1) * sizeof(size_t));
    rig->influences = malloc((nv ? nv : 1) * sizeof(am_rig_influence));
    if (!rig->name || !rig->joints || !rig->positions || !rig->normals || !rig->uvs || !rig->triangles ||
        !rig->weight_start || !rig->influences) {
        am_rig_free(rig);
        return am_fail_nomem(err, "island cloud");
    }
    rig->joint_count = BONE_COUNT;
    for (size_t j = 0; j < BONE_COUNT; j++) {
        int k = am_skeleton_find_exact(skel, BONES[j]);
        rig->joints[j].name = strdup(BONES[j]);
        if (k < 0 || !rig->joints[j].name) {
            am_rig_free(rig);
            return k < 0 ? am_fail(err, AM_ERR_INVALID, "island cloud: the skeleton has no %s", BONES[j])
                         : am_fail_nomem(err, "island cloud");
        }
        rig->joints[j].world = am_skeleton_rest_world(skel, k, AM_FRAME_FILE);
    }
    uint32_t seed = 20261205u;
    for (size_t i = 0; i < islands; i++) {
        size_t j = i % BONE_COUNT;
        /* a direction and a distance from the joint, then a small triangle facing it */
        am_vec3 d;
        do {
            d = am_v3(2 * am_test_rand_unit(&seed) - 1, 2 * am_test_rand_unit(&seed) - 1,
                      2 * am_test_rand_unit(&seed) - 1);
        } while (am_v3_len(d) < 0.2 || am_v3_len(d) > 1);
        d = am_v3_scale(d, 1.0 / am_v3_len(d));
        am_vec3 c = am_v3_add(rig->joints[j].world, am_v3_scale(d, 0.03 + 0.05 * am_test_rand_unit(&seed)));
        am_vec3 u = fabs(d.z) < 0.9 ? am_v3_cross(d, am_v3(0, 0, 1)) : am_v3_cross(d, am_v3(1, 0, 0));
        u = am_v3_scale(u, 0.006 / am_v3_len(u));
        am_vec3 w = am_v3_cross(d, u); /* |w| = 0.006, u x w along d */
        am_vec3 corner[3] = {am_v3_add(c, u), am_v3_add(c, am_v3_scale(am_v3_add(u, am_v3_scale(w, -1.7)), -0.5)),
                             am_v3_add(c, am_v3_scale(am_v3_add(u, am_v3_scale(w, 1.7)), -0.5))};
        for (int k = 0; k < 3; k++) {
            size_t v = 3 * i + (size_t)k;
            rig->positions[3 * v] = (float)corner[k].x;
            rig->positions[3 * v + 1] = (float)corner[k].y;
            rig->positions[3 * v + 2] = (float)corner[k].z;
            rig->normals[3 * v] = (float)d.x;
            rig->normals[3 * v + 1] = (float)d.y;
            rig->normals[3 * v + 2] = (float)d.z;
            rig->uvs[2 * v] = rig->uvs[2 * v + 1] = 0.5f;
            rig->weight_start[v] = v;
            rig->influences[v] = (am_rig_influence){(int)j, 1.0};
            rig->triangles[3 * i + (size_t)k] = (uint32_t)v;
        }
    }
    rig->weight_start[nv] = nv;
    rig->vertex_count = nv;
    rig->triangle_count = islands;
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    return AM_OK;
}
