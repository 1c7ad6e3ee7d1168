/* am_import_options.reader_process: a program that must not fork imports with
 * AM_SCENE_READER_IN_PROCESS. The real Ready Player Me avatar (GLB) with the real Mixamo walk
 * (FBX, read by assimp) is imported twice: in process no child process ever ran (this
 * program's children's peak memory stays 0), by default (zero) the FBX is read in a child;
 * both write the same .anim and .llmesh bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "import/import.h"
#include "support/test_support.h"

static long children_peak_kb(void)
{
    struct rusage ru;
    assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
    return ru.ru_maxrss;
}

static void import_into(const char *model, const char *motion, const char *out, am_scene_reader_process where,
                        const am_skeleton *skel)
{
    am_import_options opts;
    memset(&opts, 0, sizeof opts);
    const char *motions[1] = {motion};
    opts.anim_paths = motions;
    opts.anim_count = 1;
    opts.reader_process = where;
    am_import_report rep;
    memset(&rep, 0, sizeof rep);
    am_error err;
    char msg[AM_ERROR_TEXT_MAX];
    if (am_import_file(model, skel, &opts, out, &rep, &err) != AM_OK)
        fail_msg("%s", am_error_format(&err, msg, sizeof msg));
    assert_int_equal(rep.motion_count, 1);
    am_import_report_free(&rep);
}

static void test_in_process_reads_fbx_without_a_child_and_writes_the_same_files(void **state)
{
    (void)state;
    char model[1024], motion[1024], skel_path[1024];
    am_test_shared_path(model, sizeof model, "data/realdata/rpm_avatar.glb");
    am_test_shared_path(motion, sizeof motion, "data/realdata/Walking.fbx");
    am_test_shared_path(skel_path, sizeof skel_path, "viewer/avatar_skeleton.xml");
    struct stat sb;
    if (stat(model, &sb) != 0 || stat(motion, &sb) != 0 || stat(skel_path, &sb) != 0)
        skip();
    am_skeleton skel;
    am_error err;
    assert_int_equal(am_skeleton_load(skel_path, &skel, &err), AM_OK);
    char dir[512], in_process[700], in_child[700];
    assert_non_null(am_test_tmpdir(dir, sizeof dir));
    snprintf(in_process, sizeof in_process, "%s/in_process", dir);
    snprintf(in_child, sizeof in_child, "%s/in_child", dir);

    assert_int_equal(children_peak_kb(), 0); /* nothing has run a child yet */
    import_into(model, motion, in_process, AM_SCENE_READER_IN_PROCESS, &skel);
    assert_int_equal(children_peak_kb(), 0); /* and the import did not either */
    import_into(model, motion, in_child, 0, &skel);
    assert_true(children_peak_kb() > 0); /* the default read the FBX in a child */

    char a[800], b[800];
    snprintf(a, sizeof a, "%s/Walking.anim", in_process);
    snprintf(b, sizeof b, "%s/Walking.anim", in_child);
    am_test_assert_same_file(a, b);
    snprintf(a, sizeof a, "%s/rpm_avatar.import.txt", in_process);
    assert_int_equal(stat(a, &sb), 0);
    am_skeleton_free(&skel);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_process_reads_fbx_without_a_child_and_writes_the_same_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
