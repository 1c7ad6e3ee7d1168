/* The asset's 16-bit quantisation and the weight decode, in the viewer's F32 steps
 * (docs/reference/mesh-asset.md#quantisation and #weights). The one copy used by the encoder, the decoder, the skin builder
 * and the bench. Each step is its own statement so no FMA contraction can change a bit. */
#include "mesh/mesh_asset.h"

uint16_t am_mesh_quantize(float v, float min, float range)
{
    if (!(range > 0.0f)) /* the zero-range trap: write 0 */
        return 0;
    float t = v - min;
    t = t / range;
    t = t * 65535.0f;
    if (!(t >= 0.0f)) /* cannot happen inside the domain; keeps the cast defined */
        return 0;
    if (t >= 65535.0f)
        return 65535;
    return (uint16_t)t;
}

float am_mesh_dequantize(uint16_t q, float min, float range)
{
    float t = (float)q;
    t = t / 65535.0f;
    t = t * range;
    t = t + min;
    return t;
}

uint16_t am_mesh_quantize_normal(float n)
{
    if (!(n >= -1.0f))
        n = -1.0f;
    if (n > 1.0f)
        n = 1.0f;
    float t = n + 1.0f;
    t = t * 0.5f;
    t = t * 65535.0f;
    return (uint16_t)t;
}

float am_mesh_dequantize_normal(uint16_t q)
{
    float t = (float)q;
    t = t / 65535.0f;
    t = t * 2.0f;
    t = t - 1.0f;
    return t;
}

float am_mesh_weight_value(uint16_t code)
{
    float w = (float)code / 65535.0f;
    if (w < 0.001f)
        w = 0.001f;
    if (w > 0.999f)
        w = 0.999f;
    return w;
}
