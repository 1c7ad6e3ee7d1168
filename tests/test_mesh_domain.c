/* A mesh asset's PositionDomain is bounded where the asset enters (issue 31 item 1, the
 * report's door): every decoded position lies in its face's domain, so a domain beyond
 * AM_MESH_MAX_DOMAIN (or not finite) is refused by the decoder, naming the block, face and
 * key, and no kernel after it (the bench's rasteriser, the quality measures) sees such a
 * coordinate. The real .slm re-encoded with one face's domain at -1e20 m is the smallest
 * reproduction; the same asset as it is still decodes. */
#include <stdlib.h>
#include <string.h>

#include "mesh/mesh_asset.h"
#include "support/test_support.h"

static void domain_beyond_the_bound_is_refused(void **state)
{
    (void)state;
    char path[4096];
    am_test_shared_path(path, sizeof path, "data/mesh/hippolyzer-testslm.slm");
    am_test_skip_if_missing(path);
    am_error err;
    am_error_clear(&err);
    am_mesh_asset a, b;
    assert_int_equal(am_mesh_asset_load(path, &a, &err), AM_OK);
    int lod = -1;
    for (int l = AM_LOD_COUNT - 1; l >= 0 && lod < 0; l--)
        if (a.lods[l].face_count)
            lod = l;
    assert_true(lod >= 0);
    am_mesh_face *f = &a.lods[lod].faces[0];
    assert_non_null(f->position_codes); /* written from the codes and this domain */
    am_buf ok = {0}, bad = {0};
    assert_int_equal(am_mesh_asset_encode(&a, &ok, &err), AM_OK);
    assert_int_equal(am_mesh_asset_decode(ok.data, ok.size, &b, &err), AM_OK);
    am_mesh_asset_free(&b);
    f->pos_min.x = -1e20;
    assert_int_equal(am_mesh_asset_encode(&a, &bad, &err), AM_OK);
    assert_int_equal(am_mesh_asset_decode(bad.data, bad.size, &b, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "beyond +-1e+07 m"));
    assert_non_null(strstr(err.where, "PositionDomain"));
    am_buf_free(&ok);
    am_buf_free(&bad);
    am_mesh_asset_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(domain_beyond_the_bound_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
