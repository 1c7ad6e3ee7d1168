/* The bend box rig: subdivided box, per-face normals, atlas UVs, two hips, smoothstep
 * weights (layout and frames in bendbox.h). */
#include <stdlib.h>
#include <string.h>

#include "bendbox/bendbox.h"
#include "bendbox/bendbox_internal.h"

/* One face: outward normal n, tile axes u (image right) and v (image up) with u x v = n,
 * so a tile reads upright seen from outside; nu x nv squares of 1 m; tile column/row. */
typedef struct face_def {
    const char *label;
    am_vec3 n, u, v;
    int nu, nv;
    int tile_col, tile_row;
} face_def;

static const am_vec3 half = {2.0, 1.0, 0.5};

static const face_def faces[6] = {
    {"+X", {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, 2, 1, 0, 0},
    {"-X", {-1, 0, 0}, {0, -1, 0}, {0, 0, 1}, 2, 1, 1, 0},
    {"+Y", {0, 1, 0}, {-1, 0, 0}, {0, 0, 1}, 4, 1, 2, 0},
    {"-Y", {0, -1, 0}, {1, 0, 0}, {0, 0, 1}, 4, 1, 3, 0},
    {"+Z", {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, 4, 2, 0, 1},
    {"-Z", {0, 0, -1}, {1, 0, 0}, {0, -1, 0}, 4, 2, 1, 1},
};

/* Pixels kept clear at a tile's edge so low-resolution mip levels do not bleed tiles. */
#define TILE_INSET 4.0

am_vec3 am_bendbox_hinge(void)
{
    return am_v3(0, 0, AM_BENDBOX_HINGE_Z);
}

double am_bendbox_left_weight(double x)
{
    double t = (x + 1.0) / 2.0;
    if (t <= 0)
        return 0;
    if (t >= 1)
        return 1;
    return t * t * (3.0 - 2.0 * t);
}

/* Extent of the box along a unit axis (one of +-X, +-Y, +-Z). */
static double extent(am_vec3 a)
{
    return (a.x != 0 ? half.x : a.y != 0 ? half.y : half.z);
}

am_status am_bendbox_build_rig(am_rig *rig, am_error *err)
{
    memset(rig, 0, sizeof *rig);
    const size_t nv = AM_BENDBOX_VERTICES, nt = AM_BENDBOX_TRIANGLES;
    rig->name = strdup("bendbox");
    rig->joints = calloc(2, sizeof *rig->joints);
    rig->positions = calloc(3 * nv, sizeof(float));
    rig->normals = calloc(3 * nv, sizeof(float));
    rig->uvs = calloc(2 * nv, sizeof(float));
    rig->triangles = calloc(3 * nt, sizeof(uint32_t));
    rig->weight_start = calloc(nv + 1, sizeof(size_t));
    rig->influences = calloc(2 * nv, sizeof(am_rig_influence));
    if (!rig->name || !rig->joints || !rig->positions || !rig->normals || !rig->uvs || !rig->triangles ||
        !rig->weight_start || !rig->influences) {
        am_rig_free(rig);
        return am_fail_nomem(err, "bend box rig");
    }
    rig->joint_count = 2;
    const char *names[2] = {"mHipRight", "mHipLeft"};
    for (int j = 0; j < 2; j++) {
        rig->joints[j].name = strdup(names[j]);
        rig->joints[j].world = am_bendbox_hinge();
        if (!rig->joints[j].name) {
            am_rig_free(rig);
            return am_fail_nomem(err, "bend box joint");
        }
    }
    rig->rgb[0] = rig->rgb[1] = rig->rgb[2] = 1.0;
    rig->textured = true;

    const am_vec3 hinge = am_bendbox_hinge();
    size_t v = 0, t = 0, w = 0;
    for (int f = 0; f < 6; f++) {
        const face_def *fd = &faces[f];
        double eu = extent(fd->u), ev = extent(fd->v), en = extent(fd->n);
        am_vec3 centre = am_v3_scale(fd->n, en);
        size_t first = v;
        double x0 = fd->tile_col * AM_BENDBOX_TILE + TILE_INSET, y0 = fd->tile_row * AM_BENDBOX_TILE + TILE_INSET;
        double span = AM_BENDBOX_TILE - 2 * TILE_INSET;
        for (int j = 0; j <= fd->nv; j++) {
            for (int i = 0; i <= fd->nu; i++) {
                double a = (double)i / fd->nu, b = (double)j / fd->nv; /* 0..1 along u, v */
                am_vec3 p = am_v3_add(centre, am_v3_add(am_v3_scale(fd->u, (2 * a - 1) * eu),
                                                         am_v3_scale(fd->v, (2 * b - 1) * ev)));
                am_vec3 bind = am_v3_add(p, hinge);
                rig->positions[3 * v] = (float)bind.x;
                rig->positions[3 * v + 1] = (float)bind.y;
                rig->positions[3 * v + 2] = (float)bind.z;
                rig->normals[3 * v] = (float)fd->n.x;
                rig->normals[3 * v + 1] = (float)fd->n.y;
                rig->normals[3 * v + 2] = (float)fd->n.z;
                /* Image rows grow downward; v = 1 is the top row. */
                double px = x0 + a * span, py = y0 + (1 - b) * span;
                rig->uvs[2 * v] = (float)(px / AM_BENDBOX_ATLAS_W);
                rig->uvs[2 * v + 1] = (float)(1.0 - py / AM_BENDBOX_ATLAS_H);
                double s = am_bendbox_left_weight(p.x);
                rig->weight_start[v] = w;
                if (s < 1.0)
                    rig->influences[w++] = (am_rig_influence){0, 1.0 - s};
                if (s > 0.0)
                    rig->influences[w++] = (am_rig_influence){1, s};
                v++;
            }
        }
        for (int j = 0; j < fd->nv; j++) {
            for (int i = 0; i < fd->nu; i++) {
                uint32_t a = (uint32_t)(first + (size_t)j * (fd->nu + 1) + i), b = a + 1;
                uint32_t d = a + (uint32_t)(fd->nu + 1), c = d + 1;
                uint32_t tri[6] = {a, b, c, a, c, d}; /* counter-clockwise in (u, v): outward */
                memcpy(rig->triangles + 3 * t, tri, sizeof tri);
                t += 2;
            }
        }
    }
    rig->weight_start[v] = w;
    rig->vertex_count = v;
    rig->triangle_count = t;
    if (v != nv || t != nt) {
        am_rig_free(rig);
        return am_fail(err, AM_ERR_INVALID, "bend box: built %zu vertices / %zu triangles", v, t);
    }
    return AM_OK;
}

size_t am_bendbox_face_info(int face, const char **label, int *nu, int *nv, int *col, int *row)
{
    if (face < 0 || face >= 6)
        return 0;
    *label = faces[face].label;
    *nu = faces[face].nu;
    *nv = faces[face].nv;
    *col = faces[face].tile_col;
    *row = faces[face].tile_row;
    return 6;
}
