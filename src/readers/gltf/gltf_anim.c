/* glTF animations (gltf.h): one clip per animation, one channel per (node, path), sampler
 * values kept in glTF layout for the scene's clip evaluator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/gltf/gltf_internal.h"

/* `seen` has a bit per path for each scene node: one channel per (node, path) and clip. */
static am_status read_channel(am_gltf_ctx *c, json_t *anim, size_t a, size_t h, am_scene_clip *clip, uint8_t *seen)
{
    char where[64];
    snprintf(where, sizeof where, "animations[%zu].channels[%zu]", a, h);
    json_t *ch = json_array_get(json_object_get(anim, "channels"), h);
    json_t *target = json_object_get(ch, "target");
    if (!json_is_object(ch) || !json_is_object(target))
        return am_gltf_fail(c, "%s: not a channel with a target", where);
    json_t *samplers = json_object_get(anim, "samplers");
    int si, node;
    am_status st;
    if ((st = am_gltf_get_index(c, ch, "sampler", json_array_size(samplers), "samplers in this animation", true, where,
                             &si)) ||
        (st = am_gltf_get_index(c, target, "node", c->node_count, "nodes", false, where, &node)))
        return st;
    const char *path = am_gltf_get_string(target, "path");
    am_scene_path p;
    if (strcmp(path, "translation") == 0)
        p = AM_SCENE_PATH_TRANSLATION;
    else if (strcmp(path, "rotation") == 0)
        p = AM_SCENE_PATH_ROTATION;
    else if (strcmp(path, "scale") == 0)
        p = AM_SCENE_PATH_SCALE;
    else if (strcmp(path, "weights") == 0) {
        am_scene_note(c->scene, "animations[%zu]: morph target weights channels skipped", a);
        return AM_OK;
    } else
        return am_gltf_fail(c, "%s.target.path: '%s' is not translation, rotation, scale or weights", where, path);
    if (node < 0) {
        am_scene_note(c->scene, "%s: no target node (an extension's pointer?): skipped", where);
        return AM_OK;
    }
    if (c->node_map[node] < 0) {
        am_scene_note(c->scene, "animations[%zu]: channels on nodes outside the scene read skipped", a);
        return AM_OK;
    }
    if (seen[c->node_map[node]] & (1u << p)) {
        am_scene_note(c->scene, "%s: a second %s channel on nodes[%d] skipped (the first is used)", where, path, node);
        return AM_OK;
    }
    json_t *sampler = json_array_get(samplers, (size_t)si);
    char sw[64];
    snprintf(sw, sizeof sw, "animations[%zu].samplers[%d]", a, si);
    if (!json_is_object(sampler))
        return am_gltf_fail(c, "%s: not an object", sw);
    const char *interp = am_gltf_get_string(sampler, "interpolation");
    am_scene_interp ip;
    if (!interp[0] || strcmp(interp, "LINEAR") == 0)
        ip = AM_SCENE_INTERP_LINEAR;
    else if (strcmp(interp, "STEP") == 0)
        ip = AM_SCENE_INTERP_STEP;
    else if (strcmp(interp, "CUBICSPLINE") == 0)
        ip = AM_SCENE_INTERP_CUBICSPLINE;
    else
        return am_gltf_fail(c, "%s.interpolation: '%s' is not LINEAR, STEP or CUBICSPLINE", sw, interp);
    int in, out;
    if ((st = am_gltf_get_index(c, sampler, "input", am_gltf_count(c, "accessors"), "accessors", true, sw, &in)) ||
        (st = am_gltf_get_index(c, sampler, "output", am_gltf_count(c, "accessors"), "accessors", true, sw, &out)))
        return st;
    char what[2][96];
    snprintf(what[0], sizeof what[0], "input of %s", sw);
    snprintf(what[1], sizeof what[1], "output of %s", sw);
    am_gltf_accessor ai, ao;
    float *times = NULL, *values = NULL;
    unsigned vtypes = p == AM_SCENE_PATH_ROTATION ? GLTF_VEC4 : GLTF_VEC3;
    unsigned ctypes = p == AM_SCENE_PATH_ROTATION ? GLTF_C_ANY & ~GLTF_C(GLTF_UNSIGNED_INT) : GLTF_C_ANY;
    if ((st = am_gltf_read_floats(c, (size_t)in, what[0], GLTF_SCALAR, GLTF_C(GLTF_FLOAT), &ai, &times)) ||
        (st = am_gltf_read_floats(c, (size_t)out, what[1], vtypes, ctypes, &ao, &values))) {
        free(times);
        return st;
    }
    size_t per = ip == AM_SCENE_INTERP_CUBICSPLINE ? 3 : 1;
    if (ao.count != per * ai.count)
        st = am_gltf_fail(c, "%s: %zu output values for %zu key times (%s needs %zu)", sw, ao.count, ai.count,
                       interp[0] ? interp : "LINEAR", per * ai.count);
    for (size_t k = 0; !st && k < ai.count; k++) {
        if (!isfinite(times[k]))
            st = am_gltf_fail(c, "%s: key %zu time is not a finite number", what[0], k);
        else if (k && times[k] < times[k - 1])
            st = am_gltf_fail(c, "%s: key %zu time %g s is before key %zu (%g s)", what[0], k, (double)times[k], k - 1,
                           (double)times[k - 1]);
    }
    for (size_t k = 0; !st && k < ao.count * ao.comps; k++)
        if (!isfinite(values[k]))
            st = am_gltf_fail(c, "%s: value %zu of key %zu (%s of nodes[%d]) is not a finite number", what[1],
                           k % ao.comps, k / ao.comps / per, path, node);
    if (st) {
        free(times);
        free(values);
        return st;
    }
    am_scene_channel *dst = &clip->channels[clip->channel_count++];
    dst->node = c->node_map[node];
    dst->path = p;
    dst->interp = ip;
    dst->key_count = ai.count;
    dst->times = times;
    dst->values = values;
    seen[dst->node] |= (uint8_t)(1u << p);
    return AM_OK;
}

am_status am_gltf_read_animations(am_gltf_ctx *c)
{
    json_t *list = am_gltf_array(c, "animations");
    size_t n = list ? json_array_size(list) : 0;
    if (!n)
        return AM_OK;
    c->scene->clips = calloc(n, sizeof *c->scene->clips);
    size_t nodes = c->scene->node_count ? c->scene->node_count : 1;
    uint8_t *seen = malloc(nodes);
    if (!c->scene->clips || !seen) {
        free(seen);
        return am_fail_nomem(c->err, "scene clips");
    }
    am_status st = AM_OK;
    for (size_t a = 0; a < n && !st; a++) {
        json_t *anim = json_array_get(list, a);
        json_t *channels = json_object_get(anim, "channels");
        if (!json_is_object(anim) || !json_is_array(channels)) {
            st = am_gltf_fail(c, "animations[%zu]: not an animation with channels", a);
            break;
        }
        am_scene_clip *clip = &c->scene->clips[c->scene->clip_count++];
        size_t nc = json_array_size(channels);
        clip->channels = calloc(nc ? nc : 1, sizeof *clip->channels);
        if (!clip->channels) {
            st = am_fail_nomem(c->err, "clip channels");
            break;
        }
        memset(seen, 0, nodes);
        const char *name = am_gltf_get_string(anim, "name");
        char fallback[32];
        if (!name[0]) {
            snprintf(fallback, sizeof fallback, "clip%zu", a);
            name = fallback;
        }
        st = am_gltf_strdup(c, name, &clip->name);
        for (size_t h = 0; !st && h < nc; h++)
            st = read_channel(c, anim, a, h, clip, seen);
        if (!st && clip->channel_count == 0) {
            am_scene_note(c->scene, "animations[%zu] '%s': no translation/rotation/scale channel left: dropped", a,
                          clip->name);
            free(clip->channels);
            free(clip->name);
            memset(clip, 0, sizeof *clip);
            c->scene->clip_count--;
        }
    }
    free(seen);
    return st;
}
