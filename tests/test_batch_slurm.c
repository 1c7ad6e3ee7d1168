/* `animesh batch run --engine slurm --submit` and `batch wait` on a real single-node Slurm
 * cluster (Debian's slurm-wlm and munge) that the test starts in its temporary folder
 * (tests/batch/slurm_cluster.sh) and stops: the 40-creature library as one job array,
 * throttled to 2 at once; the catalogue's counts; a second run submits nothing. Skipped,
 * saying why, where the cluster cannot run (not root, packages missing). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <jansson.h>

#include "support/batch_library.h"
#include "support/test_support.h"

typedef struct fixture {
    char dir[512], skel[1024], data[1024], lib[700], cluster[700];
    bool started;
} fixture;

#define assert_in(text, frag)                                                           \
    do {                                                                                \
        if (!strstr((text), (frag)))                                                    \
            fail_msg("wanted '%s' in:\n%s", (frag), (text));                            \
    } while (0)

static int cluster(fixture *f, const char *verb)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "bash '%s/tests/batch/slurm_cluster.sh' %s '%s' > '%s.out' 2>&1", AM_SOURCE_DIR, verb,
             f->cluster, f->cluster);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    am_test_shared_path(f->data, sizeof f->data, "data/realdata");
    snprintf(f->cluster, sizeof f->cluster, "%s/slurm", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->started)
        cluster(f, "stop");
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

static void test_library_as_a_slurm_job_array(void **state)
{
    fixture *f = *state;
    int rc = cluster(f, "start");
    char out[65536], path[1400];
    snprintf(path, sizeof path, "%s.out", f->cluster);
    size_t n = 0;
    char *said = (char *)am_test_slurp(path, &n);
    if (rc == 77) {
        fprintf(stderr, "%s", said);
        free(said);
        skip();
    }
    f->started = true;
    if (rc != 0)
        fail_msg("the Slurm test cluster did not start (exit %d):\n%s", rc, said);
    free(said);
    char conf[900];
    snprintf(conf, sizeof conf, "%s/slurm.conf", f->cluster);
    setenv("SLURM_CONF", conf, 1); /* sbatch and squeue, run by the CLI, find the cluster */

    am_test_batch_library(f->lib, sizeof f->lib, f->dir, f->data);
    char catalog[700];
    snprintf(catalog, sizeof catalog, "%s/cat", f->dir);
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch plan '%s' --out '%s' --skeleton '%s' --", f->lib, catalog,
                                     f->skel),
                     0);
    /* Without --submit: the script only. */
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --engine slurm --jobs 2", catalog), 0);
    assert_in(out, "40 jobs in");
    snprintf(path, sizeof path, "%s/run/batch.sbatch", catalog);
    char *script = (char *)am_test_slurp(path, &n);
    assert_in(script, "#SBATCH --array=0-39%2\n");
    assert_in(script, "batch work");
    free(script);

    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --engine slurm --jobs 2 --submit", catalog), 0);
    assert_in(out, "40 jobs submitted as Slurm job ");
    rc = am_test_run_cli(out, sizeof out, "batch wait '%s' --timeout 400", catalog);
    assert_int_equal(rc, 1); /* the broken creatures failed */
    assert_in(out, "40 jobs: 36 done, 4 failed, 0 pending, 0 stale");
    /* Each array task's own log, from Slurm. */
    int logs = 0;
    for (int i = 0; i < 40; i++) {
        char log[1200];
        snprintf(log, sizeof log, "%s/run/slurm-1_%d.out", catalog, i);
        FILE *fl = fopen(log, "r");
        if (fl) {
            logs++;
            fclose(fl);
        }
    }
    assert_int_equal(logs, 40);
    /* Nothing left to do: nothing submitted. */
    assert_int_equal(am_test_run_cli(out, sizeof out, "batch run '%s' --engine slurm --submit", catalog), 0);
    assert_in(out, "nothing to run (40 jobs up to date)");
    assert_int_equal(cluster(f, "stop"), 0);
    f->started = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_library_as_a_slurm_job_array, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
