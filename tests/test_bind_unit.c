/* animesh bind reads an OBJ's unit from the stature (an OBJ declares none): the 10k creature
 * written in centimetres is bound and reported as the same creature in metres (the same
 * quality report, word for word), the command says which unit it took and why, and
 * --unit overrides the guess. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/test_support.h"

static char out[65536];

/* The creature's OBJ with every `v` scaled by `factor`; every other line as it is. */
static void write_scaled_obj(const char *src, const char *dst, double factor)
{
    size_t n = 0;
    char *text = (char *)am_test_slurp(src, &n);
    assert_non_null(text);
    FILE *f = fopen(dst, "w");
    assert_non_null(f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        double x, y, z;
        if (sscanf(line, "v %lf %lf %lf", &x, &y, &z) == 3)
            fprintf(f, "v %.5f %.5f %.5f\n", x * factor, y * factor, z * factor);
        else
            fprintf(f, "%s\n", line);
    }
    assert_int_equal(fclose(f), 0);
    free(text);
}

/* The report's text from its "quality report:" line on (what follows the mesh, skeleton
 * and bind timings), with the creature's name replaced by NAME. */
static char *quality_text(const char *path, const char *name)
{
    size_t n = 0;
    char *text = (char *)am_test_slurp(path, &n);
    if (!text)
        fail_msg("%s was not written: %s", path, out);
    char *from = strstr(text, "quality report:");
    assert_non_null(from);
    size_t nl = strlen(name);
    char *res = malloc(strlen(from) + 1);
    assert_non_null(res);
    size_t w = 0;
    for (const char *p = from; *p;) {
        if (strncmp(p, name, nl) == 0) {
            memcpy(res + w, "NAME", 4);
            w += 4;
            p += nl;
        } else {
            res[w++] = *p++;
        }
    }
    res[w] = '\0';
    free(text);
    return res;
}

static void test_centimetre_creature_reports_as_the_metre_one(void **state)
{
    (void)state;
    char dir[256], obj[4096], skel[4096], viewer[4096], cm[512], path[600];
    am_test_tmpdir(dir, sizeof dir);
    am_test_shared_path(obj, sizeof obj, "data/creature/creature_10k.obj");
    am_test_shared_path(skel, sizeof skel, "data/creature/creature_10k.skeleton.json");
    am_test_shared_path(viewer, sizeof viewer, "viewer/avatar_skeleton.xml");
    snprintf(cm, sizeof cm, "%s/creature_cm.obj", dir);
    write_scaled_obj(obj, cm, 100.0);

    int rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/m' --skeleton '%s'", obj, skel,
                             dir, viewer);
    if (rc != 0)
        fail_msg("metres: exit %d: %s", rc, out);
    assert_non_null(strstr(out, "1 unit = 1 m (metres: stature 1.8 units"));
    snprintf(path, sizeof path, "%s/m/creature_10k.report.txt", dir);
    char *metre = quality_text(path, "creature_10k");

    rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/c' --skeleton '%s'", cm, skel, dir,
                         viewer);
    if (rc != 0)
        fail_msg("centimetres: exit %d: %s", rc, out);
    assert_non_null(strstr(out, "1 unit = 0.01 m (centimetres: stature 180 units; --unit overrides)"));
    snprintf(path, sizeof path, "%s/c/creature_cm.report.txt", dir);
    char *centimetre = quality_text(path, "creature_cm");
    assert_non_null(strstr(metre, "(height 1.800 m)"));
    assert_string_equal(centimetre, metre);
    free(centimetre);
    free(metre);

    /* --unit overrides the guess: the same file read as metres is a 180 m creature */
    rc = am_test_run_cli(out, sizeof out, "bind '%s' --skeleton-rig '%s' --out '%s/g' --unit 1 --skeleton '%s'", cm,
                         skel, dir, viewer);
    assert_non_null(strstr(out, "1 unit = 1 m (given)"));
    assert_true(rc == 0 || rc == 1); /* the skeleton sits at the feet of a 180 m mesh: a blocker may follow */
    snprintf(path, sizeof path, "%s/g/creature_cm.report.txt", dir);
    char *given = quality_text(path, "creature_cm");
    assert_non_null(strstr(given, "(height 180.000 m)"));
    free(given);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_centimetre_creature_reports_as_the_metre_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
