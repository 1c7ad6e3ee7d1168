/* Influence cleanup (bind_internal.h): left/right hygiene, the smooth top-4 cut, the
 * threshold, exact sums. The order matters: hygiene first (a stripped cross-side weight
 * must not hold one of the four lanes), then the cut, then the threshold. */
#include <math.h>
#include <string.h>

#include "bind/bind_internal.h"

int am_bind_joint_side(const char *n)
{
    /* The bench's rule (bench_measure.c joint_side): bones ...Left.../...Right..., collision
     * volumes L_/R_, attachment points "Left ..."/"Right ...". */
    if (strstr(n, "Left") || strncmp(n, "L_", 2) == 0)
        return 1;
    if (strstr(n, "Right") || strncmp(n, "R_", 2) == 0)
        return -1;
    return 0;
}

/* How much of a side bone's weight a vertex at y keeps: all of it on its own side, none
 * beyond the band on the other side, a linear fade across the band (no seam at its edge).
 * Measured on the creatures, fading further into the own side only stretches the crotch
 * more (squat 2.1% of edges outside 0.5..1.6 against 1.4%). */
static double side_keep(int side, double y, double band)
{
    double other = side > 0 ? -y : y; /* > 0 on the other side */
    if (side == 0 || other <= 0)
        return 1.0;
    if (band <= 0 || other >= band)
        return 0.0;
    return 1.0 - other / band;
}

int am_bind_influence_clean(const bind_candidates *in, double y_m, const int *joint_side,
                            const bind_influence_options *o, uint16_t *joint, double *weight)
{
    double w[BIND_CANDIDATES];
    uint16_t j[BIND_CANDIDATES];
    int n = 0;
    for (int k = 0; k < in->count; k++) {
        double keep = o->side_hygiene ? side_keep(joint_side[in->joint[k]], y_m, o->midline_band_m) : 1.0;
        double x = in->weight[k] * keep;
        if (!(x > 0))
            continue;
        /* keep sorted, largest first */
        int at = n;
        while (at > 0 && w[at - 1] < x) {
            w[at] = w[at - 1];
            j[at] = j[at - 1];
            at--;
        }
        w[at] = x;
        j[at] = in->joint[k];
        n++;
    }
    if (n == 0)
        return 0;
    int lanes = o->max_influences < 1 ? 1 : o->max_influences > 4 ? 4 : o->max_influences;
    if (n > lanes) {
        /* Smooth cut: subtract the first dropped weight from the kept ones, so a weight
         * reaches zero exactly when it leaves the top set (no jump between neighbours). */
        double cut = w[lanes];
        double sum = 0;
        for (int k = 0; k < lanes; k++)
            sum += w[k] - cut;
        if (sum > 1e-12 * w[0]) {
            for (int k = 0; k < lanes; k++)
                w[k] -= cut;
        } /* else: all tied; a plain cut keeps them equal */
        n = lanes;
    }
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += w[k];
    for (int k = 0; k < n; k++)
        w[k] /= sum;
    /* Threshold (the largest always stays). */
    int m = 0;
    for (int k = 0; k < n; k++)
        if (k == 0 || w[k] >= o->min_weight)
            m = k + 1;
        else
            break;
    n = m;
    sum = 0;
    for (int k = 0; k < n; k++)
        sum += w[k];
    /* Exact sum: the largest takes the rounding remainder. */
    double rest = 0;
    for (int k = 1; k < n; k++) {
        weight[k] = w[k] / sum;
        rest += weight[k];
        joint[k] = j[k];
    }
    weight[0] = 1.0 - rest;
    joint[0] = j[0];
    return n;
}
