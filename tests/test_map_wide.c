/* Joint analysis and the map suggestion on a wide skeleton (issue 31 item 9): one joint
 * with 30,000 children (inside the 65,536-node limit) used to cost the square of its
 * children, in time (every pair of branches compared, every name compared with all) and in
 * memory (a path of joint_count ints per branch: 60k children asked for ~14 GB). The
 * smallest reproduction, a glTF of nodes and one skin, read from TMPDIR: the analysis
 * must finish and still find the one real pair of legs among the fur, keep the children
 * in file order, and name the two nodes that share a name "#N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map_suggest.h"
#include "readers/scene_load.h"
#include "support/test_support.h"

enum { FUR = 30000 };

static am_skeleton g_skel;
static int setup(void **state) { return (void)state, am_test_load_viewer_skeleton(&g_skel), 0; }
static int teardown(void **state) { return (void)state, am_skeleton_free(&g_skel), 0; }

/* hips (node 0) -> leg.L -> foot.L, leg.R -> foot.R, then FUR one-joint tufts, two of them
 * named alike; the skin names every node. */
static void write_wide(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    fprintf(f, "{\"name\":\"hips\",\"translation\":[0,1,0],\"children\":[1,3");
    for (int i = 0; i < FUR; i++)
        fprintf(f, ",%d", 5 + i);
    fprintf(f, "]},");
    fprintf(f, "{\"name\":\"leg.L\",\"translation\":[0.1,-0.05,0],\"children\":[2]},"
               "{\"name\":\"foot.L\",\"translation\":[0,-0.9,0]},"
               "{\"name\":\"leg.R\",\"translation\":[-0.1,-0.05,0],\"children\":[4]},"
               "{\"name\":\"foot.R\",\"translation\":[0,-0.9,0]}");
    for (int i = 0; i < FUR; i++) {
        char name[32];
        snprintf(name, sizeof name, i == 7 || i == 9 ? "tuft" : "tuft%d", i);
        fprintf(f, ",{\"name\":\"%s\",\"translation\":[%g,0.01,%g]}", name, 0.001 * (i % 100),
                0.001 * (i / 100));
    }
    fprintf(f, "],\"skins\":[{\"joints\":[");
    for (int i = 0; i < 5 + FUR; i++)
        fprintf(f, "%s%d", i ? "," : "", i);
    fprintf(f, "]}]}\n");
    assert_int_equal(fclose(f), 0);
}

static void wide_skeleton_is_analysed_in_linear_memory(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/wide.gltf", dir);
    write_wide(path);
    am_error err;
    am_error_clear(&err);
    am_scene sc;
    assert_int_equal(am_scene_load(path, &sc, &err), AM_OK);
    am_test_rmtree(dir);
    am_body body;
    am_axes axes;
    am_map_suggestion sug;
    am_status st = am_map_suggest_scene(&sc, &g_skel, NULL, NULL, &body, &axes, &sug, &err);
    if (st)
        fail_msg("%s", err.msg);
    assert_int_equal(body.joint_count, 5 + FUR);
    assert_int_equal(body.root, 0);
    assert_int_equal(body.joints[0].child_count, 2 + FUR);
    /* children in file order, every one once */
    int n = 0, last = -1;
    for (int c = body.joints[0].first_child; c >= 0; c = body.joints[c].next_sibling, n++) {
        assert_true(c > last);
        last = c;
    }
    assert_int_equal(n, 2 + FUR);
    /* the legs are still the pair at the hips, whatever fur hangs beside them */
    assert_int_equal(body.leg_hub, 0);
    int legs = 0;
    for (size_t i = 0; i < body.chain_count; i++)
        if (body.chains[i].kind == AM_CHAIN_LEG) {
            legs++;
            assert_int_equal(body.chains[i].count, 2);
            assert_true(body.chains[i].mirror >= 0);
        }
    assert_int_equal(legs, 2);
    /* rig names: unique names as written, the shared one by number (am_map_rig_name) */
    assert_int_equal(sug.count, 5 + FUR);
    char want[128];
    for (size_t j = 0; j < 16; j++) { /* (am_map_rig_name itself compares with every node) */
        am_map_rig_name(&sc, sug.joints[j].node, want, sizeof want);
        assert_string_equal(am_str(&sug.joints[j].rig_name), want);
    }
    assert_string_equal(am_str(&sug.joints[5 + 7].rig_name), "#12");
    assert_string_equal(am_str(&sug.joints[5 + 8].rig_name), "tuft8");
    am_map_suggestion_free(&sug);
    am_body_free(&body);
    am_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wide_skeleton_is_analysed_in_linear_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
