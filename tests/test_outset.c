/* Output sets (core/outset.h) and the atomic write built on them: all or nothing, a killed
 * run's temps swept (a live run's left alone), modes kept, symbolic links written through. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/io.h"
#include "core/outset.h"
#include "test_support.h"

static void path_of(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

/* The whole file as a string ("" when missing). */
static void slurp(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[1024];
    path_of(p, sizeof p, dir, name);
    am_test_write_text(p, text);
}

static void expect(const char *dir, const char *name, const char *text)
{
    char p[1024], got[256];
    path_of(p, sizeof p, dir, name);
    slurp(p, got, sizeof got);
    assert_string_equal(got, text);
}

static void test_nothing_is_replaced_until_every_output_is_complete(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "a.llmesh", "old mesh");
    put(dir, "a.dae", "old dae");
    const char *names[] = {"a.llmesh", "a.dae", "a.meshdata.json"};
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, names, 3, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new mesh", 8, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.dae", "new dae", 7, &err), AM_OK);
    /* written, fsync'd, readable at the temp path, but nothing in place yet */
    char got[64];
    slurp(am_outset_temp_path(set, "a.llmesh"), got, sizeof got);
    assert_string_equal(got, "new mesh");
    expect(dir, "a.llmesh", "old mesh");
    expect(dir, "a.dae", "old dae");
    assert_int_equal(am_outset_add(set, "a.meshdata.json", "{}", 2, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    expect(dir, "a.llmesh", "new mesh");
    expect(dir, "a.dae", "new dae");
    expect(dir, "a.meshdata.json", "{}");
    assert_int_equal(am_test_count_entries(dir), 3); /* no temp left */
    am_test_rmtree(dir);
}

static void test_a_set_not_committed_leaves_the_folder_as_it_was(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "a.llmesh", "old mesh");
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new", 3, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.dae", "new", 3, &err), AM_OK);
    assert_int_equal(am_test_count_entries(dir), 3);
    am_outset_free(set); /* the error path: free without commit */
    expect(dir, "a.llmesh", "old mesh");
    assert_int_equal(am_test_count_entries(dir), 1);
    am_test_rmtree(dir);
}

static void test_a_failed_add_blocks_the_commit(void **state)
{
    (void)state;
    char dir[512], sub[1024];
    am_test_tmpdir(dir, sizeof dir);
    path_of(sub, sizeof sub, dir, "a.dae");
    assert_int_equal(mkdir(sub, 0755), 0); /* a folder where a file belongs */
    am_outset *set;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new", 3, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.dae", "new", 3, &err), AM_ERR_IO);
    assert_non_null(strstr(err.where, "a.dae"));
    assert_int_not_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    char p[1024];
    path_of(p, sizeof p, dir, "a.llmesh");
    assert_int_equal(access(p, F_OK), -1);
    am_test_rmtree(dir);
}

static am_status fill_text(FILE *f, void *user, am_error *err)
{
    (void)err;
    for (int i = 0; i < 3; i++) /* several writes: the stream, not one buffer */
        fputs((const char *)user, f);
    return AM_OK;
}

static am_status fill_fails(FILE *f, void *user, am_error *err)
{
    fputs("half", f);
    (void)user;
    return am_fail(err, AM_ERR_INVALID, "the writer gave up");
}

/* A streamed output is a member of the set like any other: in place only at commit, and a
 * writer that fails blocks the commit (nothing replaced). */
static void test_a_streamed_output_joins_the_set(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "a.dae", "old dae");
    am_outset *set;
    am_error err;
    am_error_clear(&err);
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add_stream(set, "a.dae", fill_text, "ab", &err), AM_OK);
    expect(dir, "a.dae", "old dae");
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    expect(dir, "a.dae", "ababab");
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new", 3, &err), AM_OK);
    assert_int_equal(am_outset_add_stream(set, "a.dae", fill_fails, NULL, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the writer gave up"));
    assert_int_not_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    expect(dir, "a.dae", "ababab");
    char p[1024];
    path_of(p, sizeof p, dir, "a.llmesh");
    assert_int_equal(access(p, F_OK), -1);
    am_test_rmtree(dir); /* and no temp left beside them */
}

static void test_a_stale_sibling_is_removed_and_reported(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "a.meshdata.json", "old meshdata");
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new", 3, &err), AM_OK);
    assert_int_equal(am_outset_remove_stale(set, "a.meshdata.json", &err), AM_OK);
    assert_int_equal(am_outset_remove_stale(set, "never-there.json", &err), AM_OK);
    expect(dir, "a.meshdata.json", "old meshdata"); /* only at commit */
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    assert_true(am_outset_was_removed(set, "a.meshdata.json"));
    assert_false(am_outset_was_removed(set, "never-there.json"));
    am_outset_free(set);
    char p[1024];
    path_of(p, sizeof p, dir, "a.meshdata.json");
    assert_int_equal(access(p, F_OK), -1);
    am_test_rmtree(dir);
}

static void test_a_killed_runs_temps_are_swept_and_nothing_else(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    /* what a run killed between writing and renaming leaves (1-2 MB in real life) */
    put(dir, "a.llmesh.tmpAb3xYz", "half a mesh");
    put(dir, "a.dae.tmp000000", "half a dae");
    /* not ours: other names, other patterns */
    put(dir, "b.llmesh.tmpAb3xYz", "another set's");
    put(dir, "a.llmesh.tmpAb3xY", "five characters");
    put(dir, "a.llmesh.tmp-keep!", "not the pattern");
    put(dir, "a.llmesh.bak", "a backup");
    const char *names[] = {"a.llmesh", "a.dae"};
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, names, 2, &err), AM_OK);
    assert_int_equal(am_outset_swept(set), 2);
    am_outset_free(set);
    assert_int_equal(am_test_count_entries(dir), 4);
    expect(dir, "b.llmesh.tmpAb3xYz", "another set's");
    expect(dir, "a.llmesh.bak", "a backup");
    am_test_rmtree(dir);
}

static void test_a_live_runs_temp_is_left_alone(void **state)
{
    (void)state;
    char dir[512], p[1024];
    am_test_tmpdir(dir, sizeof dir);
    am_outset *live, *next;
    am_error err;
    assert_int_equal(am_outset_begin(&live, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(live, "a.llmesh", "being written", 13, &err), AM_OK);
    snprintf(p, sizeof p, "%s", am_outset_temp_path(live, "a.llmesh"));
    /* a second run into the same folder, while the first is still writing */
    const char *names[] = {"a.llmesh"};
    assert_int_equal(am_outset_begin(&next, dir, names, 1, &err), AM_OK);
    assert_int_equal(am_outset_swept(next), 0);
    am_outset_free(next);
    assert_int_equal(access(p, F_OK), 0);
    assert_int_equal(am_outset_commit(live, &err), AM_OK);
    am_outset_free(live);
    expect(dir, "a.llmesh", "being written");
    am_test_rmtree(dir);
}

static mode_t mode_of(const char *dir, const char *name)
{
    char p[1024];
    path_of(p, sizeof p, dir, name);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return st.st_mode & 0777;
}

static void test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(void **state)
{
    (void)state;
    char dir[512], p[1024];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "secret.json", "old");
    path_of(p, sizeof p, dir, "secret.json");
    assert_int_equal(chmod(p, 0600), 0);
    am_error err;
    assert_int_equal(am_write_file_atomic(p, "new", 3, &err), AM_OK);
    assert_int_equal(mode_of(dir, "secret.json"), 0600);
    expect(dir, "secret.json", "new");
    assert_int_equal(chmod(p, 0664), 0);
    assert_int_equal(am_write_file_atomic(p, "newer", 5, &err), AM_OK);
    assert_int_equal(mode_of(dir, "secret.json"), 0664);

    mode_t old = umask(027);
    path_of(p, sizeof p, dir, "fresh.json");
    am_status s = am_write_file_atomic(p, "x", 1, &err);
    umask(077);
    path_of(p, sizeof p, dir, "private.json");
    am_status s2 = am_write_file_atomic(p, "x", 1, &err);
    umask(old);
    assert_int_equal(s, AM_OK);
    assert_int_equal(s2, AM_OK);
    assert_int_equal(mode_of(dir, "fresh.json"), 0640);
    assert_int_equal(mode_of(dir, "private.json"), 0600);
    am_test_rmtree(dir);
}

static void test_a_symlinked_output_is_written_through_its_link(void **state)
{
    (void)state;
    char dir[512], out[1024], real[1024], link[1024], target[1024];
    am_test_tmpdir(dir, sizeof dir);
    path_of(out, sizeof out, dir, "out");
    path_of(real, sizeof real, dir, "real");
    assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(mkdir(real, 0755), 0);
    put(real, "a.dae", "old");
    path_of(link, sizeof link, out, "a.dae");
    assert_int_equal(symlink("../real/a.dae", link), 0);
    /* a dangling link: its file is created */
    path_of(link, sizeof link, out, "a.llmesh");
    assert_int_equal(symlink("../real/a.llmesh", link), 0);

    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, out, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.dae", "new dae", 7, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "a.llmesh", "new mesh", 8, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    struct stat st;
    path_of(link, sizeof link, out, "a.dae");
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* still a link */
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = '\0';
    assert_string_equal(target, "../real/a.dae");
    expect(real, "a.dae", "new dae");
    expect(real, "a.llmesh", "new mesh");
    assert_int_equal(am_test_count_entries(out), 2);
    assert_int_equal(am_test_count_entries(real), 2);

    /* the one-file write does the same */
    assert_int_equal(am_write_file_atomic(link, "newer", 5, &err), AM_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    expect(real, "a.dae", "newer");
    am_test_rmtree(dir);
}

static void test_names_must_be_plain_file_names(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "../escape", "x", 1, &err), AM_ERR_USAGE);
    am_outset_free(set);
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "ok", "x", 1, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "ok", "x", 1, &err), AM_ERR_USAGE);
    am_outset_free(set);
    assert_int_equal(am_test_count_entries(dir), 0);
    char missing[1024];
    path_of(missing, sizeof missing, dir, "missing");
    assert_int_equal(am_outset_begin(&set, missing, NULL, 0, &err), AM_ERR_IO);
    assert_null(set);
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_is_replaced_until_every_output_is_complete),
        cmocka_unit_test(test_a_set_not_committed_leaves_the_folder_as_it_was),
        cmocka_unit_test(test_a_failed_add_blocks_the_commit),
        cmocka_unit_test(test_a_streamed_output_joins_the_set),
        cmocka_unit_test(test_a_stale_sibling_is_removed_and_reported),
        cmocka_unit_test(test_a_killed_runs_temps_are_swept_and_nothing_else),
        cmocka_unit_test(test_a_live_runs_temp_is_left_alone),
        cmocka_unit_test(test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask),
        cmocka_unit_test(test_a_symlinked_output_is_written_through_its_link),
        cmocka_unit_test(test_names_must_be_plain_file_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
