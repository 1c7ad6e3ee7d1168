/* Ray tests for binding through Embree 3 (bind_internal.h): Blender's bone visibility and
 * the inside test that decides which bones an island holds. One scene over every welded
 * triangle; filter functions read the triangle's island and orientation from our arrays. */
#include <embree3/rtcore.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_internal.h"
#include "bind/embree_lib.h"

struct am_bind_vis {
    am_embree_api rtc;      /* Embree, loaded with the first scene (embree_lib.h) */
    RTCDevice device;
    RTCScene scene;
    const float *pos;
    const uint32_t *tris;
    const uint32_t *tri_island;
    float *unit_normal;  /* 3 per triangle */
};

enum { MODE_VISIBLE = 0, MODE_COUNT = 1 };
#define MAX_COUNTED 64

typedef struct vis_context {
    struct RTCIntersectContext ctx; /* first: Embree hands back a pointer to it */
    const struct am_bind_vis *vis;
    int mode;
    uint32_t island;
    float dir[3];            /* unit ray direction */
    unsigned counted[MAX_COUNTED];
    int count;
    bool overflow;
} vis_context;

static void filter(const struct RTCFilterFunctionNArguments *args)
{
    vis_context *vc = (vis_context *)args->context;
    const struct am_bind_vis *v = vc->vis;
    for (unsigned i = 0; i < args->N; i++) {
        if (args->valid[i] != -1)
            continue;
        /* RTCHitN is SOA: Ng_x, Ng_y, Ng_z, u, v, primID, ... each N wide (Embree's
         * RTCHitN_primID, which is C++ only). */
        unsigned prim = ((const unsigned *)args->hit)[5 * args->N + i];
        if (vc->mode == MODE_VISIBLE) {
            /* Only a face met from its front blocks (Blender: dot(n, dir) < -1e-5). */
            const float *n = &v->unit_normal[3 * prim];
            float d = n[0] * vc->dir[0] + n[1] * vc->dir[1] + n[2] * vc->dir[2];
            if (!(d < -1e-5f))
                args->valid[i] = 0;
        } else {
            /* Count each crossing of the island once, and keep going. */
            args->valid[i] = 0;
            if (v->tri_island[prim] != vc->island)
                continue;
            bool seen = false;
            int n = vc->count < MAX_COUNTED ? vc->count : MAX_COUNTED;
            for (int k = 0; k < n && !seen; k++)
                seen = vc->counted[k] == prim;
            if (seen)
                continue;
            if (vc->count < MAX_COUNTED)
                vc->counted[vc->count] = prim;
            else
                vc->overflow = true;
            vc->count++;
        }
    }
}

am_status am_bind_vis_build(const float *pos, size_t nv, const uint32_t *tris, size_t nt, const uint32_t *tri_island,
                            int threads, am_bind_vis **out, am_error *err)
{
    *out = NULL;
    am_bind_vis *v = calloc(1, sizeof *v);
    if (!v)
        return am_fail_nomem(err, "ray scene");
    am_status s = am_embree_open(&v->rtc, err);
    if (s) {
        free(v);
        return s;
    }
    v->pos = pos;
    v->tris = tris;
    v->tri_island = tri_island;
    v->unit_normal = malloc((nt ? 3 * nt : 1) * sizeof *v->unit_normal);
    if (!v->unit_normal) {
        free(v);
        return am_fail_nomem(err, "ray scene");
    }
    for (size_t t = 0; t < nt; t++) {
        const float *a = &pos[3 * tris[3 * t]], *b = &pos[3 * tris[3 * t + 1]], *c = &pos[3 * tris[3 * t + 2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            v->unit_normal[3 * t + k] = len > 0 ? (float)(n[k] / len) : 0.0f;
    }
    char config[64];
    snprintf(config, sizeof config, "threads=%d,verbose=0", threads > 0 ? threads : 0);
    v->device = v->rtc.new_device(config);
    if (!v->device) {
        int code = (int)v->rtc.get_device_error(NULL);
        free(v->unit_normal);
        free(v);
        return am_fail(err, AM_ERR_INVALID, "Embree: cannot create a device (error %d)", code);
    }
    v->scene = v->rtc.new_scene(v->device);
    v->rtc.set_scene_flags(v->scene, RTC_SCENE_FLAG_ROBUST);
    /* The low quality (Morton) build, for the scene and its geometry alike (a geometry's own
     * quality, MEDIUM by default, decides its build): 3 ms instead of 10 for the 10k
     * creature's 20k triangles, and faster over the whole bind at every size, its rays
     * included (450k: 7.1 s against 8.3). A hit is the triangle test's, not the tree's: the
     * weights are the same bytes. */
    v->rtc.set_scene_build_quality(v->scene, RTC_BUILD_QUALITY_LOW);
    if (nt > 0) {
        RTCGeometry g = v->rtc.new_geometry(v->device, RTC_GEOMETRY_TYPE_TRIANGLE);
        v->rtc.set_geometry_build_quality(g, RTC_BUILD_QUALITY_LOW);
        float *vb = v->rtc.set_new_geometry_buffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), nv);
        unsigned *ib = v->rtc.set_new_geometry_buffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), nt);
        if (!vb || !ib) {
            v->rtc.release_geometry(g);
            am_bind_vis_free(v);
            return am_fail_nomem(err, "Embree buffers");
        }
        memcpy(vb, pos, nv * 3 * sizeof(float));
        for (size_t i = 0; i < 3 * nt; i++)
            ib[i] = tris[i];
        v->rtc.set_geometry_intersect_filter(g, filter);
        v->rtc.set_geometry_occluded_filter(g, filter);
        v->rtc.commit_geometry(g);
        v->rtc.attach_geometry(v->scene, g);
        v->rtc.release_geometry(g);
    }
    v->rtc.commit_scene(v->scene);
    enum RTCError e = v->rtc.get_device_error(v->device);
    if (e != RTC_ERROR_NONE) {
        am_bind_vis_free(v);
        return e == RTC_ERROR_OUT_OF_MEMORY ? am_fail_nomem(err, "Embree scene")
                                            : am_fail(err, AM_ERR_INVALID, "Embree: building the ray scene failed (error %d)", (int)e);
    }
    *out = v;
    return AM_OK;
}

void am_bind_vis_free(am_bind_vis *v)
{
    if (!v)
        return;
    if (v->scene)
        v->rtc.release_scene(v->scene);
    if (v->device)
        v->rtc.release_device(v->device);
    free(v->unit_normal);
    free(v);
}

bool am_bind_vis_clear(const am_bind_vis *v, const float from[3], const float to[3])
{
    float d[3] = {to[0] - from[0], to[1] - from[1], to[2] - from[2]};
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0))
        return true;
    vis_context vc;
    memset(&vc, 0, sizeof vc);
    rtcInitIntersectContext(&vc.ctx);
    vc.vis = v;
    vc.mode = MODE_VISIBLE;
    for (int k = 0; k < 3; k++)
        vc.dir[k] = d[k] / len;
    struct RTCRay ray;
    memset(&ray, 0, sizeof ray);
    ray.org_x = from[0] + 1e-5f * d[0];
    ray.org_y = from[1] + 1e-5f * d[1];
    ray.org_z = from[2] + 1e-5f * d[2];
    ray.dir_x = vc.dir[0];
    ray.dir_y = vc.dir[1];
    ray.dir_z = vc.dir[2];
    ray.tnear = 0.0f;
    ray.tfar = len * (1.0f - 2e-5f);
    ray.mask = UINT32_MAX;
    ray.flags = 0;
    v->rtc.occluded1(v->scene, &vc.ctx, &ray);
    return ray.tfar >= 0.0f; /* Embree sets tfar = -inf on a hit */
}

bool am_bind_vis_inside(const am_bind_vis *v, uint32_t island, const float p[3])
{
    /* Three fixed, unrelated directions: a ray grazing an edge on one rarely grazes on all. */
    static const float dirs[3][3] = {{0.5773503f, 0.5773503f, 0.5773503f},
                                     {-0.3015113f, 0.9045340f, -0.3015113f},
                                     {0.2672612f, -0.5345225f, -0.8017837f}};
    int odd = 0;
    for (int r = 0; r < 3; r++) {
        vis_context vc;
        memset(&vc, 0, sizeof vc);
        rtcInitIntersectContext(&vc.ctx);
        vc.vis = v;
        vc.mode = MODE_COUNT;
        vc.island = island;
        struct RTCRayHit rh;
        memset(&rh, 0, sizeof rh);
        rh.ray.org_x = p[0];
        rh.ray.org_y = p[1];
        rh.ray.org_z = p[2];
        rh.ray.dir_x = dirs[r][0];
        rh.ray.dir_y = dirs[r][1];
        rh.ray.dir_z = dirs[r][2];
        rh.ray.tnear = 0.0f;
        rh.ray.tfar = INFINITY;
        rh.ray.mask = UINT32_MAX;
        rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
        v->rtc.intersect1(v->scene, &vc.ctx, &rh);
        odd += (vc.count & 1) && !vc.overflow;
    }
    return odd >= 2;
}
