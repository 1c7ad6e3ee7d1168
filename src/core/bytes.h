/* Fixed-width numbers in byte buffers, in the order a format stores them: little-endian for
 * the viewer's mesh and .anim assets, glTF's GLB, OpenSim's ExtraParams, the scene stream;
 * big-endian for LLSD binary, PNG and JPEG 2000. The one copy of these; callers check bounds
 * before they read (p must hold the 2, 4 or 8 bytes). */
#ifndef AM_CORE_BYTES_H
#define AM_CORE_BYTES_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>
#include <string.h>

static inline uint16_t am_le_u16(const uint8_t *p)
{
    return (uint16_t)((uint32_t)p[0] | (uint32_t)p[1] << 8);
}

static inline uint32_t am_le_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t am_le_u64(const uint8_t *p)
{
    return (uint64_t)am_le_u32(p) | (uint64_t)am_le_u32(p + 4) << 32;
}

/* An IEEE 754 single stored little-endian (its bits, whatever they are: NaN stays NaN). */
static inline float am_le_f32(const uint8_t *p)
{
    uint32_t u = am_le_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint16_t am_be_u16(const uint8_t *p)
{
    return (uint16_t)((uint32_t)p[0] << 8 | (uint32_t)p[1]);
}

static inline uint32_t am_be_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void am_le_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void am_le_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void am_be_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline void am_le_put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    am_le_put_u32(p, u);
}

#ifdef __cplusplus
}
#endif

#endif
