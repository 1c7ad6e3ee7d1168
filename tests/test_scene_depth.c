/* The scene's node depth limit (am_scene_finish, AM_SCENE_MAX_NODE_DEPTH; issue 19 item 3):
 * every reader's node tree is at most 512 deep after it, so no later walk can exhaust the
 * stack. A glTF chain of 65,536 nodes (the node limit; read with an explicit stack) and of
 * 513 nodes are refused naming the node, 512 reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "readers/gltf/gltf.h"
#include "scene/scene.h"
#include "support/test_support.h"

/* A .gltf whose nodes form one chain n0 > n1 > ... (no mesh). */
static am_status read_chain(size_t depth, am_scene *s, am_error *err)
{
    am_buf b = {0};
    assert_int_equal(am_buf_printf(&b, NULL, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                                             "\"nodes\":["),
                     AM_OK);
    for (size_t i = 0; i < depth; i++) {
        if (i + 1 < depth)
            assert_int_equal(am_buf_printf(&b, NULL, "%s{\"name\":\"n%zu\",\"children\":[%zu]}", i ? "," : "", i, i + 1),
                             AM_OK);
        else
            assert_int_equal(am_buf_printf(&b, NULL, "%s{\"name\":\"n%zu\"}", i ? "," : "", i), AM_OK);
    }
    assert_int_equal(am_buf_printf(&b, NULL, "]}"), AM_OK);
    memset(s, 0, sizeof *s);
    s->source = am_strdup("chain.gltf");
    s->base_dir = am_strdup(".");
    am_error_clear(err);
    am_status st = am_gltf_read(b.data, b.size, s->source, s->base_dir, s, err);
    if (!st)
        st = am_scene_finish(s, err);
    am_buf_free(&b);
    return st;
}

static void test_a_node_chain_deeper_than_512_is_refused(void **state)
{
    (void)state;
    am_scene s;
    am_error err;
    char buf[600];
    const size_t depths[] = {65536, 513};
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(read_chain(depths[k], &s, &err), AM_ERR_INVALID);
        am_error_format(&err, buf, sizeof buf);
        if (!strstr(buf, "chain.gltf") || !strstr(buf, "node 'n512' is nested 513 levels deep: at most 512 are read"))
            fail_msg("depth %zu: %s", depths[k], buf);
        am_scene_free(&s);
    }
    if (read_chain(512, &s, &err))
        fail_msg("%s", am_error_format(&err, buf, sizeof buf));
    assert_int_equal(s.node_count, 512);
    assert_int_equal(s.nodes[511].parent, 510);
    am_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_node_chain_deeper_than_512_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
