/* The viewer's U16 quantisers and key encoder, in IEEE single precision (docs/reference/anim-format.md#quantisers).
 * Every intermediate is a float on purpose: the viewer computes in F32 and the
 * floor makes one ulp matter at code boundaries. */
#include <math.h>

#include "anim/anim.h"

/* 1.f / 65535.f in single precision, as llquantize.h's OOU16MAX. */
static const float OOU16MAX = 1.0f / 65535.0f;

uint16_t am_anim_f32_to_u16(float val, float lower, float upper)
{
    /* An empty or broken range (a 0 s duration) has nothing to quantise into; the viewer
     * would divide by zero and cast the NaN. Callers refuse it first; code 0 is safe. */
    if (!(upper > lower) || !isfinite(upper - lower))
        return 0;
    if (!(val >= lower)) /* also maps NaN to lower, as the viewer's clamp would not care */
        val = lower;
    if (val > upper)
        val = upper;
    val = val - lower;
    val = val / (upper - lower);
    float scaled = val * 65535.0f;
    float f = floorf(scaled);
    if (f < 0.0f)
        f = 0.0f;
    if (f > 65535.0f)
        f = 65535.0f;
    return (uint16_t)f;
}

float am_anim_u16_to_f32(uint16_t code, float lower, float upper)
{
    float val = (float)code * OOU16MAX;
    float delta = upper - lower;
    val = val * delta;
    val = val + lower;
    float max_error = delta * OOU16MAX;
    if (fabsf(val) < max_error)
        val = 0.0f;
    return val;
}

uint16_t am_anim_f32_to_u16_viewer(float val, float lower, float upper)
{
    float once = am_anim_u16_to_f32(am_anim_f32_to_u16(val, lower, upper), lower, upper);
    return am_anim_f32_to_u16(once, lower, upper);
}

am_quat am_anim_unpack_rot(float x, float y, float z)
{
    float t = 1.0f - (x * x + y * y + z * z);
    float w = t > 0.0f ? sqrtf(t) : 0.0f;
    return (am_quat){x, y, z, w};
}

/* LLQuaternion::packToVector3: the imaginary part of the unit quaternion with w >= 0. */
static void pack_rot(am_quat q, float v[3])
{
    float x = (float)q.x, y = (float)q.y, z = (float)q.z, w = (float)q.w;
    float mag = sqrtf(x * x + y * y + z * z + w * w);
    if (mag > 1e-7f) {
        x /= mag;
        y /= mag;
        z /= mag;
    }
    if (w >= 0.0f) {
        v[0] = x, v[1] = y, v[2] = z;
    } else {
        v[0] = -x, v[1] = -y, v[2] = -z;
    }
}

static void decode_rot_key(am_anim_rot_key *k, float duration)
{
    k->time = am_anim_u16_to_f32(k->time_code, 0.0f, duration);
    k->rot = am_anim_unpack_rot(am_anim_u16_to_f32(k->x_code, -1.0f, 1.0f),
                                am_anim_u16_to_f32(k->y_code, -1.0f, 1.0f),
                                am_anim_u16_to_f32(k->z_code, -1.0f, 1.0f));
}

static void decode_pos_key(am_anim_pos_key *k, float duration)
{
    const float r = AM_ANIM_POS_RANGE;
    k->time = am_anim_u16_to_f32(k->time_code, 0.0f, duration);
    k->pos = am_v3(am_anim_u16_to_f32(k->x_code, -r, r), am_anim_u16_to_f32(k->y_code, -r, r),
                   am_anim_u16_to_f32(k->z_code, -r, r));
}

void am_anim_rot_key_set(am_anim_rot_key *key, float time, am_quat rot, float duration)
{
    float v[3];
    pack_rot(rot, v);
    key->time_code = am_anim_f32_to_u16(time, 0.0f, duration);
    key->x_code = am_anim_f32_to_u16_viewer(v[0], -1.0f, 1.0f);
    key->y_code = am_anim_f32_to_u16_viewer(v[1], -1.0f, 1.0f);
    key->z_code = am_anim_f32_to_u16_viewer(v[2], -1.0f, 1.0f);
    decode_rot_key(key, duration);
}

void am_anim_pos_key_set(am_anim_pos_key *key, float time, am_vec3 pos_m, float duration)
{
    const float r = AM_ANIM_POS_RANGE;
    key->time_code = am_anim_f32_to_u16(time, 0.0f, duration);
    key->x_code = am_anim_f32_to_u16_viewer((float)pos_m.x, -r, r);
    key->y_code = am_anim_f32_to_u16_viewer((float)pos_m.y, -r, r);
    key->z_code = am_anim_f32_to_u16_viewer((float)pos_m.z, -r, r);
    decode_pos_key(key, duration);
}

void am_anim_redecode(am_anim *anim)
{
    for (size_t j = 0; j < anim->joint_count; j++) {
        am_anim_joint *jt = &anim->joints[j];
        for (size_t k = 0; k < jt->rot_count; k++)
            decode_rot_key(&jt->rot_keys[k], anim->duration);
        for (size_t k = 0; k < jt->pos_count; k++)
            decode_pos_key(&jt->pos_keys[k], anim->duration);
    }
}
