/* Axes, units and frames: how a model's file frame becomes the viewer frame (metres, +Z up, +X forward, +Y
 * left; docs/reference/viewer-skeleton.md#units-axes-and-rotations), as ONE proper rotation (determinant +1,
 * never a mirror) and one uniform scale. Options, not guesses (docs/reference/house-style.md): each of up,
 * forward and scale is either given (the CLI's --up, --forward, --scale) or detected from the data, and the
 * result says which, and why.
 *
 * Detection (body.h gives the evidence):
 *  - UP: the legs hang down from their hub (the mean direction from the leg hub to the ends
 *    of the leg chains, snapped to the nearest file axis when within 37 deg of it); without
 *    legs, what the file declares; else refused.
 *  - FORWARD, once up is known: a body whose spine runs along up (within 45 deg) is upright,
 *    and faces where its toes point (ankle -> end of the leg chains, across up), else where
 *    its eyes are (head -> eyes); a horizontal body (quadruped) faces from its pelvis to its
 *    head along the long axis; else what the file declares; else refused.
 *  - UNIT: from the stature (the largest extent of the skinned mesh and the joints, file
 *    units): 0.2..10 units reads as metres, 30..1000 as centimetres, 1000..20000 as
 *    millimetres; between those it is ambiguous and refused unless the file declares a unit.
 *    A declared unit is taken when it gives a stature of 0.02..100 m.
 *  - What the file declares (scene.declared) is evidence too: agreement is reported, and a
 *    conflict with clear data is reported and the data wins (a glTF file is Y-up by the
 *    format, but a model exported Z-up into it still has its legs along -Z).
 * Ambiguous evidence is refused naming what is ambiguous and asking for the option.
 */
#ifndef AM_MAP_AXES_H
#define AM_MAP_AXES_H

#include "animesh/retarget.h"

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "map/body.h"
#include "scene/scene.h"
#include "math/am_math.h"

#define AM_AXES_MAX_CONFLICTS 4

typedef struct am_axes {
    int up, forward;       /* the file axes that become viewer +Z and +X */
    double scale;          /* metres per file unit */
    am_quat rot;           /* file -> viewer rotation (proper: det +1) */
    double stature_units;  /* largest extent, file units */
    double stature_m;
    bool upright;          /* the spine runs along up (biped); false: horizontal body */
    char up_why[200], forward_why[200], unit_why[200];
    char report[700];      /* "up +Y (declared by glTF; legs hang along -Y), forward +Z
                              (toes forward of ankles), unit 0.01 m (stature 182 units)" */
    char conflicts[AM_AXES_MAX_CONFLICTS][256]; /* declared vs data, data taken */
    size_t conflict_count;
} am_axes;

/* "+Y", "-z", "y" (= +Y), "X" -> code; AM_ERR_USAGE otherwise. */
am_status am_axes_parse(const char *text, int *axis, am_error *err);
/* "+X" .. "-Z"; "?" for 0. */
const char *am_axis_name(int axis);
/* The rotation taking file axis `up` to +Z and `forward` to +X (left = up x forward to +Y).
 * False when they are not perpendicular axes. */
bool am_axes_rotation(int up, int forward, am_quat *out);

/* The unit (metres per file unit) a stature of s file units reads as, by the UNIT rule
 * above (1, 0.01 or 0.001); 0 when ambiguous. */
double am_axes_unit_from_stature(double s);

/* Resolve every option (given or detected). AM_ERR_USAGE for inconsistent options (up and
 * forward on one axis, scale <= 0); AM_ERR_INVALID when detection is ambiguous, with a
 * message naming what is ambiguous and the option that settles it. */
am_status am_axes_resolve(const am_scene *scene, const am_body *body, const am_axes_options *opts, am_axes *out,
                          am_error *err);

/* A file-frame point or direction into the viewer frame (rotation and scale, no
 * translation: placement is the retargeter's). */
am_vec3 am_axes_point(const am_axes *a, am_vec3 p);
/* The same as an LL-layout matrix (row vectors): scale then rotation. */
am_mat4 am_axes_matrix(const am_axes *a);

#ifdef __cplusplus
}
#endif

#endif
