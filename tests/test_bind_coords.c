/* Coordinates and units at the door of `animesh bind` (issue 31 items 1 and 11).
 *
 * Item 1: a box plus one triangle at x = 1e20 aborted bind inside Embree (ray.valid(),
 * SIGABRT) with either method and as a --like model; at 1e15 it was refused only after
 * binding. Now the scene is refused where it enters (am_scene_finish: 1e7 file units),
 * and a vertex beyond the rig's 1000 m once in metres (5e6) before any work: exit 1, the file
 * and the vertex named, no output folder.
 *
 * Item 11: a rig JSON in centimetres beside a mesh in centimetres left every bone 100x
 * too far (the creature rigid on one joint, reported as "major"). The rig is now brought
 * into the mesh's units (or its declared "unit_m"), and a bone outside the mesh is a
 * blocker. Everything is generated in TMPDIR: a 0.4 x 1.6 x 1.8 m box and five joints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "readers/scene_load.h"
#include "support/test_support.h"

static char out[65536];

/* The box (12 triangles), scaled, and when `far` is not 0 one more triangle at x = far. */
static void write_box(const char *path, double scale, const char *far)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    const double v[8][3] = {{-0.2, -0.8, 0}, {0.2, -0.8, 0}, {0.2, 0.8, 0}, {-0.2, 0.8, 0},
                            {-0.2, -0.8, 1.8}, {0.2, -0.8, 1.8}, {0.2, 0.8, 1.8}, {-0.2, 0.8, 1.8}};
    for (int i = 0; i < 8; i++)
        fprintf(f, "v %g %g %g\n", scale * v[i][0], scale * v[i][1], scale * v[i][2]);
    fputs("f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\n"
          "f 4 1 5\nf 4 5 8\n", f);
    if (far)
        fprintf(f, "v %s 0 0\nv %s 1 0\nv %s 0 1\nf 9 10 11\n", far, far, far);
    assert_int_equal(fclose(f), 0);
}

/* Five spine joints inside the box, scaled; `unit` adds a declared "unit_m". */
static void write_rig(const char *path, double scale, const char *unit)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    const char *names[5] = {"mPelvis", "mTorso", "mChest", "mNeck", "mHead"};
    const double z[6] = {1.0, 1.15, 1.3, 1.45, 1.55, 1.7};
    fprintf(f, "{%s%s%s\"joints\": [", unit ? "\"unit_m\": " : "", unit ? unit : "", unit ? ", " : "");
    for (int i = 0; i < 5; i++)
        fprintf(f, "%s{\"name\": \"%s\", \"head\": [0, 0, %g], \"tail\": [0, 0, %g]}", i ? ", " : "", names[i],
                scale * z[i], scale * z[i + 1]);
    fputs("]}\n", f);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void far_vertex_refused_before_any_work(void **state)
{
    (void)state;
    char dir[4096], box[4200], far20[4200], far6[4200], rig[4200], skel[4200], o[4200];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    am_test_skip_unless_readable_at(skel, __FILE__, __LINE__);
    snprintf(box, sizeof box, "%s/box.obj", dir);
    snprintf(far20, sizeof far20, "%s/far20.obj", dir);
    snprintf(far6, sizeof far6, "%s/far6.obj", dir);
    snprintf(rig, sizeof rig, "%s/rig.json", dir);
    snprintf(o, sizeof o, "%s/out", dir);
    write_box(box, 1, NULL);
    write_box(far20, 1, "1e20");
    write_box(far6, 1, "5e6");
    write_rig(rig, 1, NULL);

    /* the scene itself: refused where it enters, naming the vertex */
    am_scene sc;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_scene_load(far20, &sc, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "vertex 8"));
    assert_non_null(strstr(err.where, "far20.obj"));

    const char *methods[2] = {"heat", "segment"};
    for (int m = 0; m < 2; m++) {
        int rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --method %s --out '%s' --skeleton '%s'",
                                 far20, rig, methods[m], o, skel);
        assert_int_equal(rc, 1); /* not 134 (SIGABRT) */
        assert_non_null(strstr(out, "far20.obj"));
        assert_non_null(strstr(out, "vertex 8"));
        assert_null(strstr(out, "Assertion"));
        assert_false(exists(o));
    }
    /* as the --like model */
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --like '%s' --out '%s' --skeleton '%s'", box, far20, o, skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "far20.obj"));
    assert_false(exists(o));
    /* 5e6 is inside the scene's bound in file units (1e7) but 5000 km in the bind frame:
     * refused before binding ("binding" is never announced) */
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s' --skeleton '%s'", far6, rig, o, skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "far6.obj"));
    assert_non_null(strstr(out, "vertex 8"));
    assert_non_null(strstr(out, "beyond +-1000 m"));
    assert_null(strstr(out, "binding ("));
    assert_false(exists(o));
    am_test_rmtree(dir);
}

/* The rig's first joint as written in NAME.rig.json: "world": [x, y, z]. */
static double pelvis_z(const char *rig_json)
{
    size_t n = 0;
    char *text = (char *)am_test_slurp(rig_json, &n);
    if (!text)
        fail_msg("%s was not written: %s", rig_json, out);
    const char *at = strstr(text, "\"mPelvis\"");
    assert_non_null(at);
    at = strstr(at, "\"world\"");
    assert_non_null(at);
    double x, y, z;
    assert_int_equal(sscanf(strchr(at, '[') + 1, "%lf , %lf , %lf", &x, &y, &z), 3);
    free(text);
    return z;
}

static void rig_in_the_mesh_units_and_bones_outside_block(void **state)
{
    (void)state;
    char dir[4096], box[4200], rig[4200], bad[4200], neg[4200], skel[4200], path[4300];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    am_test_skip_unless_readable_at(skel, __FILE__, __LINE__);
    snprintf(box, sizeof box, "%s/box_cm.obj", dir);
    snprintf(rig, sizeof rig, "%s/rig_cm.json", dir);
    snprintf(bad, sizeof bad, "%s/rig_declared_m.json", dir);
    snprintf(neg, sizeof neg, "%s/rig_bad_unit.json", dir);
    write_box(box, 100, NULL);
    write_rig(rig, 100, NULL);
    write_rig(bad, 100, "1");
    write_rig(neg, 100, "-1");

    /* both in centimetres: the rig follows the mesh into metres, every bone inside */
    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/c' --skeleton '%s'", box, rig,
                             dir, skel);
    if (rc != 0)
        fail_msg("rc %d: %s", rc, out);
    assert_non_null(strstr(out, "1 rig unit = 0.01 m (the mesh's unit"));
    assert_null(strstr(out, "outside every island"));
    snprintf(path, sizeof path, "%s/c/box_cm.rig.json", dir);
    assert_float_equal(pelvis_z(path), 1.0, 1e-5);
    snprintf(path, sizeof path, "%s/c/box_cm.report.txt", dir);
    size_t n = 0;
    char *report = (char *)am_test_slurp(path, &n);
    assert_non_null(report);
    assert_non_null(strstr(report, "pass     bones outside     0"));
    free(report);

    /* declared metres (wrongly): every bone 100x too far, outside the mesh: a blocker, exit 1 */
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/m' --skeleton '%s'", box, bad, dir,
                         skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "1 rig unit = 1 m (declared)"));
    snprintf(path, sizeof path, "%s/m/box_cm.report.txt", dir);
    report = (char *)am_test_slurp(path, &n);
    assert_non_null(report);
    assert_non_null(strstr(report, "blocker  bones outside     5 (outside the mesh: mPelvis, mTorso"));
    assert_non_null(strstr(report, "1 blocker"));
    free(report);

    /* a unit that is not one: refused, naming the field */
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/n' --skeleton '%s'", box, neg, dir,
                         skel);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "unit_m"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(far_vertex_refused_before_any_work),
        cmocka_unit_test(rig_in_the_mesh_units_and_bones_outside_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
