/* libFuzzer target for the skeleton JSON of `animesh bind --skeleton-rig` (both shapes:
 * name/parent/head/tail and name/world): any bytes either fail with an error naming the
 * field, or give joints that are viewer joints with finite heads and tails, parents that
 * come from the viewer hierarchy. The viewer skeleton is a small one written here (the
 * parser needs the viewer's names, not its whole file). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bind/bind_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char VIEWER[] =
    "<linden_skeleton num_bones=\"4\" num_collision_volumes=\"0\" version=\"2.0\">"
    "<bone aliases=\"hip\" connected=\"false\" end=\"0 0 0.084\" group=\"Torso\" name=\"mPelvis\" pivot=\"0 0 1.067\""
    " pos=\"0 0 1.067\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\">"
    "<bone aliases=\"abdomen\" connected=\"true\" end=\"0 0 0.2\" group=\"Torso\" name=\"mTorso\" pivot=\"0 0 0.084\""
    " pos=\"0 0 0.084\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\"/>"
    "<bone aliases=\"lThigh\" connected=\"false\" end=\"0 0 -0.4\" group=\"Legs\" name=\"mHipLeft\" pivot=\"0 0.1 -0.04\""
    " pos=\"0 0.1 -0.04\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\">"
    "<bone aliases=\"lShin\" connected=\"true\" end=\"0 0 -0.4\" group=\"Legs\" name=\"mKneeLeft\" pivot=\"0 0 -0.49\""
    " pos=\"0 0 -0.49\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\"/>"
    "</bone></bone></linden_skeleton>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_skeleton viewer;
    am_error err;
    if (am_skeleton_parse(VIEWER, sizeof VIEWER - 1, "fuzz viewer", &viewer, &err) != AM_OK)
        abort(); /* the fixture itself must parse */
    am_bind_skeleton s;
    if (am_bind_skeleton_parse_json((const char *)data, size, "fuzz.json", &viewer, 1.8, &s, &err) == AM_OK) {
        for (size_t j = 0; j < s.joint_count; j++) {
            const am_bind_joint *J = &s.joints[j];
            if (J->skel_joint < 0 || (size_t)J->skel_joint >= viewer.joint_count || J->parent >= (int)s.joint_count ||
                !isfinite(J->head.x + J->head.y + J->head.z + J->tail.x + J->tail.y + J->tail.z))
                abort();
            if (J->parent >= 0 && !am_skeleton_is_ancestor(&viewer, s.joints[J->parent].skel_joint, J->skel_joint))
                abort();
        }
        am_bind_skeleton_free(&s);
    }
    am_skeleton_free(&viewer);
    return 0;
}
