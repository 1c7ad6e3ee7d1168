/* Mesh-asset fixtures shared by the tests: values of docs/reference/mesh-asset.md#worked-example, built once. */
#ifndef AM_TESTS_SUPPORT_MESH_FIXTURES_H
#define AM_TESTS_SUPPORT_MESH_FIXTURES_H

#include "mesh/mesh_asset.h"

/* The skin of docs/reference/mesh-asset.md#worked-example (one triangle, two joints): joint names mPelvis and mTorso,
 * inverse binds translating z by -1.067 / -1.167, alternates carrying the overrides 1.067
 * and 0.100 (F32 values widened to F64, as the viewer writes them), identity bind shape.
 * Overwrites *s; free with am_mesh_skin_free. */
void am_test_worked_example_skin(am_mesh_skin *s);

#endif
