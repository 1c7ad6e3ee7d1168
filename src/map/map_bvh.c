/* A BVH's joint map (map_bvh.h). */
#include "map/map_bvh.h"

#include <string.h>

#include "core/io.h"
#include "map/axes.h"
#include "map/body.h"
#include "readers/bvh/bvh_scene.h"

am_status am_map_suggest_bvh(const am_bvh *b, const char *source, const am_skeleton *skel, am_joint_map *out,
                             am_map_suggestion *sug_out, am_error *err)
{
    memset(out, 0, sizeof *out);
    am_scene s;
    memset(&s, 0, sizeof s);
    s.source = am_strdup(source ? source : "bvh");
    if (!s.source)
        return am_fail_nomem(err, "bvh map");
    am_status st = am_scene_from_bvh(b, &s, err);
    if (!st)
        st = am_scene_finish(&s, err);
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    am_axes_options ao = {0};
    if (!st && !(st = am_map_suggest_scene(&s, skel, &ao, NULL, &body, &axes, &sug, err))) {
        st = am_map_suggestion_to_map(&sug, &body, skel, out, err);
        if (!st && sug_out)
            *sug_out = sug;
        else
            am_map_suggestion_free(&sug);
        am_body_free(&body);
    }
    am_scene_free(&s);
    return st;
}
