/* libFuzzer target for the COLLADA reader (src/readers/collada/collada.h): any bytes either fail
 * with an error (formatted, from a dirty am_error: fuzz_common.h) or give a scene that
 * validates (am_scene_finish) and plans (the faithful route: joints, weights by position,
 * models) without crashing. Each input is read twice: without a viewer skeleton and with one
 * (the viewer's from ../shared when it is there, else a small one built in here), so the
 * legal-joint keys, aliases and the no-<skeleton> name path are exercised. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "fuzz_common.h"
#include "readers/collada/collada.h"
#include "import/import.h"
#include "scene/scene.h"
#include "skeleton/skeleton.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* mPelvis > mTorso, a collision volume: enough for aliases (hip, abdomen, avatar_*). */
static const char mini_skeleton[] =
    "<linden_skeleton num_bones=\"2\" num_collision_volumes=\"1\" version=\"2.0\">"
    "<bone aliases=\"hip avatar_mPelvis\" connected=\"false\" end=\"0 0 0.084\" group=\"Torso\" name=\"mPelvis\" "
    "pivot=\"0 0 1.067\" pos=\"0 0 1.067\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\">"
    "<collision_volume end=\"0.03 0 0.095\" group=\"Collision\" name=\"PELVIS\" pos=\"-0.01 0 -0.02\" rot=\"0 8 0\" "
    "scale=\"0.12 0.16 0.17\" support=\"base\"/>"
    "<bone aliases=\"abdomen avatar_mTorso\" connected=\"true\" end=\"-0.015 0 0.205\" group=\"Torso\" name=\"mTorso\" "
    "pivot=\"0 0 0.084\" pos=\"0 0 0.084\" rot=\"0 0 0\" scale=\"1 1 1\" support=\"base\"/>"
    "</bone></linden_skeleton>";

static am_skeleton g_mini;
static const am_skeleton *g_skel;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    am_fuzz_load_skeleton();
    g_skel = am_fuzz_skel;
    am_error err;
    if (!g_skel && am_skeleton_parse(mini_skeleton, sizeof mini_skeleton - 1, "mini", &g_mini, &err) == AM_OK)
        g_skel = &g_mini;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int pass = 0; pass < 1 + (g_skel != NULL); pass++) {
        am_scene s;
        memset(&s, 0, sizeof s);
        s.source = am_strdup("fuzz.dae");
        s.base_dir = am_strdup(".");
        s.format = AM_SCENE_FORMAT_COLLADA;
        s.skeleton = pass ? g_skel : NULL;
        am_error err;
        am_fuzz_dirty_error(&err);
        if (!s.source || !s.base_dir) {
            am_scene_free(&s);
            return 0;
        }
        if (am_collada_read(data, size, s.source, s.base_dir, &s, &err) != AM_OK) {
            am_fuzz_format(&err);
        } else {
            s.skeleton = NULL;
            am_fuzz_dirty_error(&err);
            if (am_scene_finish(&s, &err) != AM_OK) {
                am_fuzz_format(&err);
            } else if (pass) {
                am_import_options opts;
                am_import_options_init(&opts);
                am_import_plan plan;
                am_fuzz_dirty_error(&err);
                if (am_import_plan_make(&s, g_skel, &opts, &plan, &err) == AM_OK)
                    am_import_plan_free(&plan);
                else
                    am_fuzz_format(&err);
            }
        }
        am_scene_free(&s);
    }
    return 0;
}
