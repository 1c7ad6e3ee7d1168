/* The bend box's generated parts (docs/reference/bendbox-test.md): geometry, weights, atlas, fold motion.
 * Numbers are checked against the box of docs/reference/bendbox-test.md (4 x 2 x 1 m, 1 m squares) computed here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bendbox/bendbox.h"
#include "support/test_support.h"

#define HZ AM_BENDBOX_HINGE_Z

static am_vec3 vpos(const am_rig *r, size_t v)
{
    return am_v3(r->positions[3 * v], r->positions[3 * v + 1], r->positions[3 * v + 2] - HZ);
}
static am_vec3 vnorm(const am_rig *r, size_t v)
{
    return am_v3(r->normals[3 * v], r->normals[3 * v + 1], r->normals[3 * v + 2]);
}

static void test_box_has_1m_squares_on_every_face(void **state)
{
    (void)state;
    am_rig r;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    /* Per face (quads nu x nv): +-Z 4x2 -> 15 vertices, +-Y 4x1 -> 10, +-X 2x1 -> 6. */
    assert_int_equal(r.vertex_count, 2 * 15 + 2 * 10 + 2 * 6);
    assert_int_equal(r.triangle_count, 2 * (2 * 8 + 2 * 4 + 2 * 2));
    size_t per_dir[6] = {0};
    const am_vec3 dirs[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (size_t v = 0; v < r.vertex_count; v++) {
        am_vec3 p = vpos(&r, v);
        assert_true(fabs(p.x) <= 2 + 1e-6 && fabs(p.y) <= 1 + 1e-6 && fabs(p.z) <= 0.5 + 1e-6);
        for (int d = 0; d < 6; d++)
            if (am_v3_dist(vnorm(&r, v), dirs[d]) < 1e-6)
                per_dir[d]++;
        /* Every vertex lies on the grid: x and y whole metres or on the box's faces. */
        assert_lt(fabs(p.x - round(p.x)), 1e-6);
        assert_lt(fabs(p.y - round(p.y)), 1e-6);
    }
    const size_t expect[6] = {6, 6, 10, 10, 15, 15};
    for (int d = 0; d < 6; d++)
        assert_int_equal(per_dir[d], expect[d]);
    /* Every triangle is half a 1 m square: total area 2 (4*2 + 4*1 + 2*1) = 28 m^2. */
    double area = 0;
    for (size_t t = 0; t < r.triangle_count; t++) {
        am_vec3 a = vpos(&r, r.triangles[3 * t]), b = vpos(&r, r.triangles[3 * t + 1]),
                c = vpos(&r, r.triangles[3 * t + 2]);
        double at = 0.5 * am_v3_len(am_v3_cross(am_v3_sub(b, a), am_v3_sub(c, a)));
        assert_near(at, 0.5, 1e-6); /* float positions */
        area += at;
    }
    assert_near(area, 28.0, 1e-5);
    am_rig_free(&r);
}

static void test_faces_wind_outward_with_flat_normals(void **state)
{
    (void)state;
    am_rig r;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    for (size_t t = 0; t < r.triangle_count; t++) {
        const uint32_t *tri = r.triangles + 3 * t;
        am_vec3 a = vpos(&r, tri[0]), b = vpos(&r, tri[1]), c = vpos(&r, tri[2]);
        am_vec3 gn = am_v3_normalize(am_v3_cross(am_v3_sub(b, a), am_v3_sub(c, a)));
        am_vec3 centroid = am_v3_scale(am_v3_add(a, am_v3_add(b, c)), 1.0 / 3);
        /* Outward: the geometric normal points away from the box centre. */
        assert_gt(am_v3_dot(gn, centroid), 0);
        for (int k = 0; k < 3; k++)
            assert_lt(am_v3_dist(vnorm(&r, tri[k]), gn), 1e-6);
    }
    am_rig_free(&r);
}

static void test_joints_sit_at_the_hinge_on_the_pelvis(void **state)
{
    (void)state;
    am_rig r;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    assert_int_equal(r.joint_count, 2);
    assert_string_equal(r.joints[0].name, "mHipRight");
    assert_string_equal(r.joints[1].name, "mHipLeft");
    /* The pelvis's file-frame rest position, read from the viewer's skeleton. */
    am_skeleton skel;
    am_test_load_viewer_skeleton(&skel);
    am_vec3 pelvis = am_skeleton_rest_world(&skel, am_skeleton_find(&skel, "mPelvis"), AM_FRAME_FILE);
    for (int j = 0; j < 2; j++)
        assert_lt(am_v3_dist(r.joints[j].world, pelvis), 1e-9);
    am_skeleton_free(&skel);
    am_rig_free(&r);
}

static double weight_on(const am_rig *r, size_t v, int joint)
{
    double w = 0;
    for (size_t k = r->weight_start[v]; k < r->weight_start[v + 1]; k++)
        if (r->influences[k].joint == joint)
            w += r->influences[k].weight;
    return w;
}

static void test_weights_are_smoothstep_over_the_middle_two_metres(void **state)
{
    (void)state;
    /* smoothstep(-1, 1, x) = t^2 (3 - 2t), t = (x + 1) / 2 */
    assert_near(am_bendbox_left_weight(-2), 0, 0);
    assert_near(am_bendbox_left_weight(-1), 0, 0);
    assert_near(am_bendbox_left_weight(-0.5), 0.15625, 1e-12);
    assert_near(am_bendbox_left_weight(0), 0.5, 1e-12);
    assert_near(am_bendbox_left_weight(0.5), 0.84375, 1e-12);
    assert_near(am_bendbox_left_weight(1), 1, 0);
    assert_near(am_bendbox_left_weight(2), 1, 0);

    am_rig r;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    size_t seen[5] = {0};
    for (size_t v = 0; v < r.vertex_count; v++) {
        double x = vpos(&r, v).x, right = weight_on(&r, v, 0), left = weight_on(&r, v, 1);
        assert_near(left + right, 1.0, 1e-12);
        int xi = (int)lround(x) + 2;
        seen[xi]++;
        if (x <= -1 + 1e-9) {
            assert_near(right, 1.0, 0);
            assert_int_equal(r.weight_start[v + 1] - r.weight_start[v], 1);
        } else if (x >= 1 - 1e-9) {
            assert_near(left, 1.0, 0);
            assert_int_equal(r.weight_start[v + 1] - r.weight_start[v], 1);
        } else {
            assert_near(left, 0.5, 1e-12); /* x = 0 is the only vertex column inside */
            assert_near(right, 0.5, 1e-12);
        }
    }
    for (int i = 0; i < 5; i++)
        assert_gt(seen[i], 0);
    am_rig_free(&r);
}

/* UV of a point on the box surface, interpolated inside the face triangle holding it. */
static bool uv_at(const am_rig *r, am_vec3 p, am_vec3 n, double uv[2])
{
    for (size_t t = 0; t < r->triangle_count; t++) {
        const uint32_t *tri = r->triangles + 3 * t;
        if (am_v3_dist(vnorm(r, tri[0]), n) > 1e-6)
            continue;
        am_vec3 a = vpos(r, tri[0]), b = vpos(r, tri[1]), c = vpos(r, tri[2]);
        am_vec3 e1 = am_v3_sub(b, a), e2 = am_v3_sub(c, a), q = am_v3_sub(p, a);
        double d11 = am_v3_dot(e1, e1), d12 = am_v3_dot(e1, e2), d22 = am_v3_dot(e2, e2);
        double q1 = am_v3_dot(q, e1), q2 = am_v3_dot(q, e2), det = d11 * d22 - d12 * d12;
        double s = (q1 * d22 - q2 * d12) / det, w = (q2 * d11 - q1 * d12) / det;
        if (s < -1e-9 || w < -1e-9 || s + w > 1 + 1e-9)
            continue;
        for (int k = 0; k < 2; k++)
            uv[k] = (1 - s - w) * r->uvs[2 * tri[0] + k] + s * r->uvs[2 * tri[1] + k] + w * r->uvs[2 * tri[2] + k];
        return true;
    }
    return false;
}

static const uint8_t *texel(const am_tex_image *img, const double uv[2])
{
    int x = (int)floor(uv[0] * img->width), y = (int)floor((1.0 - uv[1]) * img->height);
    assert_true(x >= 0 && x < (int)img->width && y >= 0 && y < (int)img->height);
    return img->pixels + ((size_t)y * img->width + x) * img->channels;
}

static void test_atlas_shows_red_on_the_plus_x_end(void **state)
{
    (void)state;
    am_rig r;
    am_tex_image atlas;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    assert_int_equal(am_bendbox_build_atlas(&atlas, NULL), AM_OK);
    assert_int_equal(atlas.width, 512);
    assert_int_equal(atlas.height, 256);
    assert_int_equal(am_texture_check_size(atlas.width, atlas.height, NULL), AM_OK);
    double uv[2];
    for (size_t v = 0; v < r.vertex_count; v++)
        for (int k = 0; k < 2; k++)
            assert_true(r.uvs[2 * v + k] >= 0 && r.uvs[2 * v + k] <= 1);
    /* Near a corner of the +X end (clear of label and arrow): red. */
    assert_true(uv_at(&r, am_v3(2, 0.8, -0.35), am_v3(1, 0, 0), uv));
    const uint8_t *p = texel(&atlas, uv);
    assert_true(p[0] > 200 && p[1] < 80 && p[2] < 80);
    /* The six faces show six different colours near a corner of each (clear of the
     * label, arrow and grid lines). */
    const am_vec3 dirs[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    const am_vec3 spot[6] = {{2, 0.8, -0.35},   {-2, -0.8, -0.35}, {-1.7, 1, -0.35},
                             {1.7, -1, -0.35},  {1.7, -0.8, 0.5},  {1.7, 0.8, -0.5}};
    uint8_t col[6][3];
    for (int d = 0; d < 6; d++) {
        assert_true(uv_at(&r, spot[d], dirs[d], uv));
        memcpy(col[d], texel(&atlas, uv), 3);
    }
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++)
            assert_gt(abs(col[a][0] - col[b][0]) + abs(col[a][1] - col[b][1]) + abs(col[a][2] - col[b][2]), 60);
    am_tex_image_free(&atlas);
    am_rig_free(&r);
}

static void test_atlas_arrow_points_up_on_the_ends_and_sides(void **state)
{
    (void)state;
    am_rig r;
    am_tex_image atlas;
    assert_int_equal(am_bendbox_build_rig(&r, NULL), AM_OK);
    assert_int_equal(am_bendbox_build_atlas(&atlas, NULL), AM_OK);
    /* The arrow head sits on the face's vertical centre line near the top (+Z); the
     * mirror point near the bottom shows the plain face colour. */
    const am_vec3 n[4] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int d = 0; d < 4; d++) {
        am_vec3 base = am_v3(n[d].x * 2, n[d].y * 1, 0);
        double uv_up[2], uv_down[2];
        assert_true(uv_at(&r, am_v3_add(base, am_v3(0, 0, 0.31)), n[d], uv_up));
        assert_true(uv_at(&r, am_v3_add(base, am_v3(0, 0, -0.36)), n[d], uv_down));
        const uint8_t *up = texel(&atlas, uv_up), *down = texel(&atlas, uv_down);
        int diff = abs(up[0] - down[0]) + abs(up[1] - down[1]) + abs(up[2] - down[2]);
        assert_gt(diff, 150);
    }
    am_tex_image_free(&atlas);
    am_rig_free(&r);
}

static void test_fold_angle_profile(void **state)
{
    (void)state;
    assert_near(am_bendbox_fold_deg(0), 0, 1e-12);
    assert_near(am_bendbox_fold_deg(1.5), 45, 1e-9);
    assert_near(am_bendbox_fold_deg(3), 90, 1e-9);
    assert_near(am_bendbox_fold_deg(4.5), 45, 1e-9);
    assert_near(am_bendbox_fold_deg(6), 0, 1e-9);
}

static void test_fold_motion_swings_plus_x_up_and_loops(void **state)
{
    (void)state;
    am_bendbox_motion keep;
    am_motion m;
    am_bendbox_motion_init(&keep, &m);
    assert_int_equal(m.base_priority, 4);
    assert_true(m.loop);
    assert_near(m.duration_s, 6.0, 0);
    assert_near(m.ease_in_s, 0, 0);
    assert_near(m.ease_out_s, 0, 0);
    assert_int_equal(m.track_count, 2);
    assert_string_equal(m.tracks[1].joint, "mHipLeft");
    am_quat q;
    am_vec3 p;
    am_motion_pose(&m, 1, 0.5, &q, &p);
    am_vec3 tip = am_quat_rotate(q, am_v3(2, 0, 0));
    assert_lt(am_v3_dist(tip, am_v3(0, 0, 2)), 1e-9);
    am_motion_pose(&m, 1, 0.25, &q, &p);
    tip = am_quat_rotate(q, am_v3(2, 0, 0));
    assert_lt(am_v3_dist(tip, am_v3(sqrt(2), 0, sqrt(2))), 1e-9);
    am_motion_pose(&m, 0, 0.5, &q, &p);
    assert_lt(am_quat_angle_between(q, am_quat_identity()), 1e-12);
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_motion_check_loop(&m, &err), AM_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_has_1m_squares_on_every_face),
        cmocka_unit_test(test_faces_wind_outward_with_flat_normals),
        cmocka_unit_test(test_joints_sit_at_the_hinge_on_the_pelvis),
        cmocka_unit_test(test_weights_are_smoothstep_over_the_middle_two_metres),
        cmocka_unit_test(test_atlas_shows_red_on_the_plus_x_end),
        cmocka_unit_test(test_atlas_arrow_points_up_on_the_ends_and_sides),
        cmocka_unit_test(test_fold_angle_profile),
        cmocka_unit_test(test_fold_motion_swings_plus_x_up_and_loops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
