/* BVH -> scene (bvh_scene.h). */
#include "readers/bvh/bvh_scene.h"

#include <stdlib.h>
#include <string.h>

#include "core/io.h"

#define BVH_INCH_M 0.02540005 /* the viewer's INCHES_TO_METERS (docs/reference/anim-format.md#bvh-coordinate-conversion) */

static char *clip_name(const char *source)
{
    const char *s = source ? source : "motion";
    const char *slash = strrchr(s, '/');
    s = slash ? slash + 1 : s;
    size_t n = strlen(s);
    const char *dot = strrchr(s, '.');
    if (dot && dot != s)
        n = (size_t)(dot - s);
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

am_status am_scene_from_bvh(const am_bvh *b, am_scene *s, am_error *err)
{
    size_t nj = b->joint_count, nf = b->frame_count;
    if (nj == 0 || nf == 0)
        return am_fail(err, AM_ERR_INVALID, "bvh: no joints or no frames");
    size_t first = nf > 1 ? 1 : 0, keys = nf - first;
    s->format = AM_SCENE_FORMAT_BVH;
    s->nodes = calloc(nj, sizeof *s->nodes);
    s->clips = calloc(1, sizeof *s->clips);
    if (!s->nodes || !s->clips)
        return am_fail_nomem(err, "bvh scene");
    s->node_count = nj;
    for (size_t j = 0; j < nj; j++) {
        const am_bvh_joint *bj = &b->joints[j];
        am_scene_node *n = &s->nodes[j];
        n->name = am_strdup(bj->name);
        if (!n->name)
            return am_fail_nomem(err, "bvh scene");
        n->parent = bj->parent;
        n->is_joint = true;
        /* the root rests at its reference (frame 0) position */
        am_vec3 t = bj->parent < 0 && bj->channels == 6 ? b->pos[j] : bj->offset;
        am_scene_node_set_trs(n, t, am_quat_identity(), am_v3(1, 1, 1));
    }
    am_scene_clip *c = &s->clips[0];
    s->clip_count = 1;
    c->name = clip_name(s->source);
    size_t nch = 0;
    for (size_t j = 0; j < nj; j++)
        nch += b->joints[j].channels == 6 ? 2 : 1;
    c->channels = calloc(nch, sizeof *c->channels);
    if (!c->name || !c->channels)
        return am_fail_nomem(err, "bvh scene");
    float ft = (float)b->frame_time_s;
    for (size_t j = 0; j < nj; j++) {
        for (int pass = 0; pass < (b->joints[j].channels == 6 ? 2 : 1); pass++) {
            am_scene_channel *ch = &c->channels[c->channel_count++];
            ch->node = (int)j;
            ch->path = pass == 0 ? AM_SCENE_PATH_ROTATION : AM_SCENE_PATH_TRANSLATION;
            ch->interp = AM_SCENE_INTERP_LINEAR;
            ch->key_count = keys;
            size_t w = pass == 0 ? 4 : 3;
            ch->times = malloc(keys * sizeof *ch->times);
            ch->values = malloc(keys * w * sizeof *ch->values);
            if (!ch->times || !ch->values)
                return am_fail_nomem(err, "bvh scene");
            bool root = b->joints[j].parent < 0;
            am_quat r0inv = am_quat_conj(b->rot[j]);
            am_vec3 p0 = b->pos[j];
            for (size_t k = 0; k < keys; k++) {
                size_t at = (first + k) * nj + j;
                ch->times[k] = (float)k * ft; /* frame f plays at (f - 1) x frame time */
                if (pass == 0) {
                    /* the root relative to the reference frame's heading
                     * (docs/reference/anim-format.md#bvh-coordinate-conversion) */
                    am_quat q = root ? am_quat_normalize(am_quat_mul(r0inv, b->rot[at])) : b->rot[at];
                    float v[4] = {(float)q.x, (float)q.y, (float)q.z, (float)q.w};
                    memcpy(&ch->values[4 * k], v, sizeof v);
                } else {
                    am_vec3 p = root ? am_v3_add(p0, am_quat_rotate(r0inv, am_v3_sub(b->pos[at], p0))) : b->pos[at];
                    float v[3] = {(float)p.x, (float)p.y, (float)p.z};
                    memcpy(&ch->values[3 * k], v, sizeof v);
                }
            }
        }
    }
    s->declared.up = 2;
    s->declared.forward = 3;
    s->declared.unit_m = BVH_INCH_M;
    am_scene_note(s, "BVH declares no axes or unit: taking the viewer's upload convention (+Y up, +Z forward, inches)");
    if (nf > 1)
        am_scene_note(s, "frame 0 is the reference pose (not played, as in the viewer's upload); %zu frames play", keys);
    am_scene_note(s, "the root moves relative to the reference frame: its rotation R0^-1 Rk, its position "
                     "R0^-1 (pk - p0) from p0, as the viewer's upload takes the pelvis");
    return AM_OK;
}

am_status am_scene_read_bvh(const uint8_t *data, size_t size, const char *source, const char *base_dir,
                            am_scene *out, am_error *err)
{
    (void)base_dir;
    am_bvh b;
    am_status st = am_bvh_parse((const char *)data, size, &b, err);
    if (st) {
        am_error_where(err, "%s", source);
        return st;
    }
    st = am_scene_from_bvh(&b, out, err);
    am_bvh_free(&b);
    if (st)
        am_error_where(err, "%s", source);
    return st;
}
