/* The quality thresholds table (quality_limits.h). The numbers are docs/reference/quality-figures.md's where it
 * gives one (strain share 0.2 %, leak 0.001 H, rigidity 0.001 H, four influences) and ours
 * where it does not (strain share above 1 % is plainly visible: major). */
#include "report/quality_limits.h"

#include <stdio.h>
#include <string.h>

static const am_quality_limit limits[] = {
    {"unweighted", "unweighted vertices", -1, -1, 0, false, 1, "",
     "weight every vertex (bind it again, or paint the missing weights): the viewer binds them to the first joint"},
    {"empty_major", "major bones inside the mesh with no weight", -1, -1, 0, false, 1, "",
     "give the named joints weight (bind again) or remove them from the skin"},
    {"sum_dev", "vertices whose weights do not sum to 1", -1, 0, -1, false, 1, "",
     "normalise the weights (animesh skin renormalises them)"},
    {"max_influences", "influences on one vertex", -1, 4, -1, false, 1, "",
     "limit each vertex to 4 influences: the viewer keeps the 4 largest"},
    {"cross_side_weight", "cross-side weight (Left joints on the right side or back)", 0.01, -1, -1, false, 1, "",
     "remove the weight a Left joint holds on the right side (and back): it pulls the other side along"},
    {"mirror_err", "mirror error of a symmetric mesh's weights", 0.05, -1, -1, true, 1, "",
     "mirror the weights of one side onto the other"},
    {"rigid_parts", "rigid parts (islands holding no bone) not on one bone at 1.0", -1, 0, -1, false, 1, "",
     "bind each loose part (eye, tooth, button) to one joint at weight 1.0"},
    {"strain_share", "strain: share of edges outside 0.5..1.6 of their rest length", 0.002, 0.01, -1, false, 100, " %",
     "smooth the weights around the named joint, or check the pose sheet for a limb bent the wrong way"},
    {"leak", "cross-side leak on a one-sided pose", -1, 0.001, -1, true, 1, " x height",
     "remove the weight the moving side holds on the other side"},
    {"rigidity", "bending of a rigid part in a pose", -1, 0.001, -1, false, 1, " x height",
     "bind the part to one joint at weight 1.0 so it moves as one piece"},
    {"band", "joint band volume (the ring of flesh at the joint)", -1, -1, -1, false, 1, "",
     "blend the joint's weights over a wider band of vertices between its parent and child bones"},
};

const am_quality_limit *am_quality_limits(size_t *count)
{
    *count = sizeof limits / sizeof limits[0];
    return limits;
}

const am_quality_limit *am_quality_limit_find(const char *key)
{
    for (size_t i = 0; key && i < sizeof limits / sizeof limits[0]; i++)
        if (strcmp(limits[i].key, key) == 0)
            return &limits[i];
    return NULL;
}

static bool passes(const am_quality_limit *l, double limit, double v)
{
    return limit >= 0 && (l->at_least ? v >= limit : v > limit);
}

am_flag am_quality_limit_flag(const char *key, double value)
{
    const am_quality_limit *l = am_quality_limit_find(key);
    if (!l)
        return AM_FLAG_PASS;
    return passes(l, l->blocker, value) ? AM_FLAG_BLOCKER
           : passes(l, l->major, value) ? AM_FLAG_MAJOR
           : passes(l, l->minor, value) ? AM_FLAG_MINOR
                                        : AM_FLAG_PASS;
}

void am_quality_limit_words(const am_quality_limit *l, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (strcmp(l->key, "band") == 0) {
        snprintf(buf, size, "minor below the joint's collapse line, major below 0.9 x the linear blend skinning "
                            "reference");
        return;
    }
    const double lim[3] = {l->minor, l->major, l->blocker};
    const char *name[3] = {"minor", "major", "blocker"};
    for (int i = 0; i < 3 && n < size; i++) {
        if (lim[i] < 0)
            continue;
        int w = snprintf(buf + n, size - n, "%s%s %s %g%s", n ? ", " : "", name[i], l->at_least ? "from" : "above",
                         lim[i] * l->shown, l->unit);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

am_status am_quality_limits_text(const char *indent, am_buf *out, am_error *err)
{
    char words[200], line[512];
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        am_quality_limit_words(&limits[i], words, sizeof words);
        int n = snprintf(line, sizeof line, "%s%s: %s\n", indent, limits[i].figure, words);
        am_status s = am_buf_append(out, line, n > 0 ? (size_t)n : 0, err);
        if (s)
            return s;
    }
    return AM_OK;
}

const char *am_quality_limit_remedy(const char *key)
{
    const am_quality_limit *l = am_quality_limit_find(key);
    return l ? l->remedy : "open the report's pose sheet and fix what it shows";
}

json_t *am_quality_limits_json(void)
{
    json_t *a = json_array();
    char words[200];
    for (size_t i = 0; a && i < sizeof limits / sizeof limits[0]; i++) {
        const am_quality_limit *l = &limits[i];
        am_quality_limit_words(l, words, sizeof words);
        json_t *o = json_object();
        if (!o)
            break;
        json_object_set_new(o, "figure", json_string(l->key));
        json_object_set_new(o, "what", json_string(l->figure));
        json_object_set_new(o, "words", json_string(words));
        json_object_set_new(o, "minor", l->minor >= 0 ? json_real(l->minor) : json_null());
        json_object_set_new(o, "major", l->major >= 0 ? json_real(l->major) : json_null());
        json_object_set_new(o, "blocker", l->blocker >= 0 ? json_real(l->blocker) : json_null());
        json_object_set_new(o, "compare", json_string(l->at_least ? "at_least" : "above"));
        json_object_set_new(o, "remedy", json_string(l->remedy));
        json_array_append_new(a, o);
    }
    return a;
}
