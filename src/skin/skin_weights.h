/* Per-vertex skin weights for the mesh asset (docs/reference/mesh-asset.md#weights): merge, cap at 4,
 * renormalise, quantise. Functions over caller-owned arrays. */
#ifndef AM_SKIN_WEIGHTS_H
#define AM_SKIN_WEIGHTS_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "mesh/mesh_asset.h"

typedef struct am_weight_in {
    int joint;
    double weight;
} am_weight_in;

typedef struct am_vertex_weights {
    uint8_t count;                        /* 1..4 */
    int joint[AM_MAX_INFLUENCES];         /* decreasing weight; ties: higher joint first */
    double weight[AM_MAX_INFLUENCES];     /* renormalised, sum 1 */
    uint16_t code[AM_MAX_INFLUENCES];     /* stored codes, sum exactly 65535 */
    size_t merged_count;                  /* distinct joints with a positive weight, before the cap */
    size_t dropped;                       /* influences removed (cap or quantised to 0) */
    size_t dropped_small;                 /* of those, removed because their code would be 0 */
    bool renormalised;                    /* input sum differed from 1 by more than 1e-3 */
} am_vertex_weights;

/* Process one vertex's influences. Fails (AM_ERR_INVALID) on a negative or non-finite
 * weight, a joint outside [0, joint_count), or no positive weight at all. */
am_status am_weights_prepare(const am_weight_in *in, size_t n, int joint_count, am_vertex_weights *out,
                             am_error *err);

/* Quantise weights that sum to 1 into codes summing to exactly 65535: each trunc(w * 65535)
 * as the viewer's writer does, the truncation residual added to the largest (index 0 when
 * sorted). Codes that would be 0 are reported by returning how many there are. */
size_t am_weights_quantize(const double *w, size_t n, uint16_t *codes);

#ifdef __cplusplus
}
#endif

#endif
