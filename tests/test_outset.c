/* Output sets (core/outset.h) and the atomic write built on them: all or nothing, a killed
 * run's temps swept (a live run's left alone, even one slowed between creating and locking
 * a temp), a commit killed halfway finished by the next run, modes kept, symbolic links
 * replaced and never followed, a manifest's earlier files removed. */
#include <dirent.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/io.h"
#include "core/outset.h"
#include "support/test_support.h"

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
    /* written (its fsync under way), readable at the temp path, but nothing in place yet */
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

/* More files than fsyncs run at once (four): each later add waits for the oldest, the commit
 * for the rest, and every file is in place whole; a set freed uncommitted with fsyncs still
 * running removes its temps. */
static void test_many_files_are_all_synced_and_replaced(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    am_outset *set;
    am_error err;
    char name[32], body[64];
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    for (int i = 0; i < 11; i++) {
        snprintf(name, sizeof name, "f%02d.txt", i);
        snprintf(body, sizeof body, "file %d of 11", i);
        assert_int_equal(am_outset_add(set, name, body, strlen(body), &err), AM_OK);
    }
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    for (int i = 0; i < 11; i++) {
        snprintf(name, sizeof name, "f%02d.txt", i);
        snprintf(body, sizeof body, "file %d of 11", i);
        expect(dir, name, body);
    }
    assert_int_equal(am_test_count_entries(dir), 11);
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "g%02d.txt", i);
        assert_int_equal(am_outset_add(set, name, "never placed", 12, &err), AM_OK);
    }
    am_outset_free(set); /* not committed */
    assert_int_equal(am_test_count_entries(dir), 11);
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

static void test_a_symlink_in_the_folder_is_replaced_never_followed(void **state)
{
    (void)state;
    char dir[512], out[1024], real[1024], link[1024];
    am_test_tmpdir(dir, sizeof dir);
    path_of(out, sizeof out, dir, "out");
    path_of(real, sizeof real, dir, "real");
    assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(mkdir(real, 0755), 0);
    put(real, "a.dae", "outside");
    /* planted links leading out of the folder: one to a file, one dangling */
    path_of(link, sizeof link, out, "a.dae");
    assert_int_equal(symlink("../real/a.dae", link), 0);
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
    assert_true(S_ISREG(st.st_mode)); /* the link itself was replaced */
    expect(out, "a.dae", "new dae");
    expect(out, "a.llmesh", "new mesh");
    expect(real, "a.dae", "outside"); /* nothing written through it */
    assert_int_equal(am_test_count_entries(out), 2);
    assert_int_equal(am_test_count_entries(real), 1);

    /* the one-file write does the same */
    assert_int_equal(unlink(link), 0);
    assert_int_equal(symlink("../real/a.dae", link), 0);
    assert_int_equal(am_write_file_atomic(link, "newer", 5, &err), AM_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    expect(out, "a.dae", "newer");
    expect(real, "a.dae", "outside");
    am_test_rmtree(dir);
}

/* A file's identity as the output set records it (outset.h: device, inode, size, mtime). */
static void ident(const char *dir, const char *name, char *out, size_t size)
{
    char p[1024];
    struct stat st;
    path_of(p, sizeof p, dir, name);
    assert_int_equal(lstat(p, &st), 0);
    snprintf(out, size, "%llu:%llu:%lld:%lld.%09ld", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
             (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
}

/* A journal of records ("D" NAME IDENT or "R" TEMP NAME IDENT, NUL after each field). */
static void put_journal(const char *dir, const char *const *fields, size_t count)
{
    char p[1024];
    path_of(p, sizeof p, dir, ".animesh-outset-journal");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("animesh output set journal 2\n", f);
    for (size_t i = 0; i < count; i++) {
        fputs(fields[i], f);
        fputc('\0', f);
    }
    fclose(f);
}

/* A journal as a run killed inside its commit leaves it: the first rename done, the second
 * not; the next set begun in the folder finishes it. */
static void test_a_commit_killed_halfway_is_finished_by_the_next_run(void **state)
{
    (void)state;
    char dir[512], p[1024], id_dae[96], id_meta[96];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "a.llmesh", "new mesh"); /* renamed before the kill */
    put(dir, "a.dae", "old dae");
    put(dir, "a.dae.tmpQx7Kp2", "new dae");
    put(dir, "a.meshdata.json", "old meshdata"); /* stale: the journal removes it */
    ident(dir, "a.dae.tmpQx7Kp2", id_dae, sizeof id_dae);
    ident(dir, "a.meshdata.json", id_meta, sizeof id_meta);
    const char *journal[] = {"Da.meshdata.json", id_meta, "Ra.llmesh.tmpZZ12ab", "a.llmesh", "1:2:8:0.000000000",
                             "Ra.dae.tmpQx7Kp2", "a.dae", id_dae};
    put_journal(dir, journal, 8);

    const char *names[] = {"b.txt"};
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, names, 1, &err), AM_OK);
    assert_int_equal(am_outset_rolled_forward(set), 1);
    assert_null(am_outset_warning(set, 0));
    am_outset_free(set);
    expect(dir, "a.llmesh", "new mesh");
    expect(dir, "a.dae", "new dae");
    path_of(p, sizeof p, dir, ".animesh-outset-journal");
    assert_int_equal(access(p, F_OK), -1);
    path_of(p, sizeof p, dir, "a.meshdata.json");
    assert_int_equal(access(p, F_OK), -1);
    assert_int_equal(am_test_count_entries(dir), 2);

    /* a journal animesh did not write (a rename out of the folder) is refused, not obeyed */
    const char *forged[] = {"Ra.dae.tmpAAAAAA", "../a.dae", "1:2:3:4.000000005"};
    put_journal(dir, forged, 3);
    put(dir, "a.dae.tmpAAAAAA", "forged");
    assert_int_equal(am_outset_begin(&set, dir, names, 1, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.where, ".animesh-outset-journal"));
    expect(dir, "a.dae", "new dae");
    /* and so is the previous format's journal, which records no file's identity */
    path_of(p, sizeof p, dir, ".animesh-outset-journal");
    static const char old[] = "animesh output set journal 1\nDa.dae\0";
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(old, 1, sizeof old - 1, f), sizeof old - 1);
    fclose(f);
    assert_int_equal(am_outset_begin(&set, dir, names, 1, &err), AM_ERR_INVALID);
    expect(dir, "a.dae", "new dae");
    am_test_rmtree(dir);
}

/* issue 31.5: a planted journal, well formed, naming a user's files: notes.txt removed and
 * a planted temp renamed over report.txt before; now both are left, each reported. */
static void test_a_planted_journal_removes_nothing_animesh_did_not_write(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "notes.txt", "the user's notes");
    put(dir, "report.txt", "the user's report");
    put(dir, "report.txt.tmpABCDEF", "planted");
    char id_notes[96];
    ident(dir, "notes.txt", id_notes, sizeof id_notes);
    id_notes[0] = id_notes[0] == '9' ? '8' : '9'; /* a guessed identity: another device */
    const char *planted[] = {"Dnotes.txt", id_notes, "Rreport.txt.tmpABCDEF", "report.txt", "1:2:7:0.000000000"};
    put_journal(dir, planted, 5);
    const char *names[] = {"page.html"};
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, names, 1, &err), AM_OK);
    assert_int_equal(am_outset_rolled_forward(set), 0);
    assert_non_null(am_outset_warning(set, 0));
    assert_non_null(strstr(am_outset_warning(set, 0), "notes.txt: an output set journal named it"));
    assert_non_null(strstr(am_outset_warning(set, 1), "report.txt.tmpABCDEF"));
    assert_null(am_outset_warning(set, 2));
    assert_int_equal(am_outset_add(set, "page.html", "page", 4, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    am_outset_free(set);
    expect(dir, "notes.txt", "the user's notes");
    expect(dir, "report.txt", "the user's report");
    expect(dir, "report.txt.tmpABCDEF", "planted");
    expect(dir, "page.html", "page");
    am_test_rmtree(dir);
}

/* A set with a manifest owns what it wrote: a re-run that writes fewer files removes the
 * rest of its earlier set, and nothing the manifest does not list. */
static void test_a_rerun_removes_what_its_previous_set_wrote_and_nothing_else(void **state)
{
    (void)state;
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    put(dir, "notes.txt", "the user's");
    put(dir, "x_old.anim", "not listed: a file of the name pattern the set never wrote");
    am_outset *set;
    am_error err;
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_own(set, "x.outset", &err), AM_OK);
    assert_int_equal(am_outset_add(set, "x.llmesh", "mesh", 4, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "walk.anim", "walk", 4, &err), AM_OK);
    assert_int_equal(am_outset_add(set, "x_poses.png", "png", 3, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    assert_null(am_outset_removed_name(set, 0));
    am_outset_free(set);
    char want[512], a[96], b[96], c[96];
    ident(dir, "x.llmesh", a, sizeof a);
    ident(dir, "walk.anim", b, sizeof b);
    ident(dir, "x_poses.png", c, sizeof c);
    snprintf(want, sizeof want, "animesh output set 2\n%s x.llmesh\n%s walk.anim\n%s x_poses.png\n", a, b, c);
    expect(dir, "x.outset", want);
    assert_int_equal(am_test_count_entries(dir), 6);

    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_own(set, "x.outset", &err), AM_OK);
    assert_int_equal(am_outset_add(set, "x.llmesh", "mesh 2", 6, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    assert_string_equal(am_outset_removed_name(set, 0), "walk.anim");
    assert_string_equal(am_outset_removed_name(set, 1), "x_poses.png");
    assert_null(am_outset_removed_name(set, 2));
    am_outset_free(set);
    ident(dir, "x.llmesh", a, sizeof a);
    snprintf(want, sizeof want, "animesh output set 2\n%s x.llmesh\n", a);
    expect(dir, "x.outset", want);
    expect(dir, "x.llmesh", "mesh 2");
    expect(dir, "notes.txt", "the user's");
    assert_int_equal(am_test_count_entries(dir), 4);

    /* a listed name that is now a folder or a link is not the set's file: left alone */
    put(dir, "x.outset", "animesh output set 1\nx.llmesh\nsub\nnotes-link\n../notes.txt\n");
    char p[1024];
    path_of(p, sizeof p, dir, "sub");
    assert_int_equal(mkdir(p, 0755), 0);
    path_of(p, sizeof p, dir, "notes-link");
    assert_int_equal(symlink("notes.txt", p), 0);
    assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
    assert_int_equal(am_outset_own(set, "x.outset", &err), AM_OK);
    assert_int_equal(am_outset_add(set, "x.llmesh", "mesh 3", 6, &err), AM_OK);
    assert_int_equal(am_outset_commit(set, &err), AM_OK);
    assert_null(am_outset_removed_name(set, 0));
    am_outset_free(set);
    assert_int_equal(am_test_count_entries(dir), 6);
    assert_int_equal(lstat(p, &(struct stat){0}), 0);
    am_test_rmtree(dir);
}

/* issue 31.5: a planted manifest (this format with a guessed identity, or the previous
 * format, which records none) removed bear_notes.txt before; now it is left and reported. */
static void test_a_planted_manifest_removes_nothing_animesh_did_not_write(void **state)
{
    (void)state;
    static const char *const planted[] = {"animesh output set 2\n1:2:11:3.000000000 bear_notes.txt\n",
                                          "animesh output set 1\nbear_notes.txt\n"};
    for (int k = 0; k < 2; k++) {
        char dir[512];
        am_test_tmpdir(dir, sizeof dir);
        put(dir, "bear_notes.txt", "the user's");
        put(dir, "bear.outset", planted[k]);
        am_outset *set;
        am_error err;
        assert_int_equal(am_outset_begin(&set, dir, NULL, 0, &err), AM_OK);
        assert_int_equal(am_outset_own(set, "bear.outset", &err), AM_OK);
        assert_int_equal(am_outset_add(set, "bear.llmesh", "mesh", 4, &err), AM_OK);
        assert_int_equal(am_outset_commit(set, &err), AM_OK);
        assert_null(am_outset_removed_name(set, 0));
        assert_non_null(am_outset_warning(set, 0));
        assert_non_null(strstr(am_outset_warning(set, 0), "/bear_notes.txt: the previous manifest lists it"));
        assert_null(am_outset_warning(set, 1));
        am_outset_free(set);
        expect(dir, "bear_notes.txt", "the user's");
        /* the manifest now written records only what this run wrote */
        char want[256], a[96];
        ident(dir, "bear.llmesh", a, sizeof a);
        snprintf(want, sizeof want, "animesh output set 2\n%s bear.llmesh\n", a);
        expect(dir, "bear.outset", want);
        am_test_rmtree(dir);
    }
}

/* Two runs into one folder, the CLI's slowed between creating each temp and locking it
 * (tests/shim/flock_delay.c): the other run's sweeps, again and again meanwhile, must take
 * none of its temps, and its set arrives whole. */
static void test_a_run_slowed_between_create_and_lock_keeps_its_temps(void **state)
{
    (void)state;
    static const char *const names[] = {"bendbox.rig.json", "bendbox_atlas.png", "bendbox_atlas.j2c", "bendbox.llmesh",
                                        "bendbox.dae",      "bendbox.meshdata.json", "bendbox_fold.anim"};
    char dir[512], out[1024], skel[1024], asan[1024];
    am_test_tmpdir(dir, sizeof dir);
    path_of(out, sizeof out, dir, "o");
    assert_int_equal(mkdir(out, 0755), 0);
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    const char *had = getenv("ASAN_OPTIONS");
    /* the shim is preloaded ahead of the sanitizer's runtime */
    snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", had ? had : "", had && had[0] ? ":" : "");
    pid_t pid = fork();
    assert_ge(pid, 0);
    if (pid == 0) {
        setenv("LD_PRELOAD", AM_FLOCK_DELAY_SHIM, 1);
        setenv("AM_FLOCK_DELAY_MS", "300", 1);
        setenv("ASAN_OPTIONS", asan, 1);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        execl(AM_CLI_PATH, "animesh", "bendbox", "--out", out, "--skeleton", skel, (char *)NULL);
        _exit(127);
    }
    int status = 0, sweeps_beside_a_live_temp = 0;
    size_t swept = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        DIR *d = opendir(out);
        bool live = false;
        for (struct dirent *de; d && (de = readdir(d));)
            live = live || strstr(de->d_name, ".tmp") != NULL;
        if (d)
            closedir(d);
        sweeps_beside_a_live_temp += live;
        am_outset *set;
        am_error err;
        assert_int_equal(am_outset_begin(&set, out, (const char *const *)names, 7, &err), AM_OK);
        swept += am_outset_swept(set);
        am_outset_free(set);
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_gt(sweeps_beside_a_live_temp, 0); /* the sweeps met the run's temps (7 x 0.3 s of delays) */
    assert_int_equal(swept, 0);
    assert_int_equal(am_test_count_entries(out), 8); /* the whole set and bendbox.outset, no temp left */
    am_test_rmtree(dir);
}

/* The bend box's output set written into out by the CLI, with fsync failing for files whose
 * path holds fail_name (tests/shim/fsync_fail.c; NULL: no shim); its stderr into errpath.
 * Returns the exit status. */
static int bendbox_run(const char *out, const char *fail_name, const char *errpath)
{
    char skel[1024], asan[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    const char *had = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", had ? had : "", had && had[0] ? ":" : "");
    pid_t pid = fork();
    assert_ge(pid, 0);
    if (pid == 0) {
        if (fail_name) {
            setenv("LD_PRELOAD", AM_FSYNC_FAIL_SHIM, 1);
            setenv("AM_FSYNC_FAIL_NAME", fail_name, 1);
            setenv("ASAN_OPTIONS", asan, 1);
        }
        int null = open("/dev/null", O_WRONLY), e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, STDOUT_FILENO);
        dup2(e >= 0 ? e : null, STDERR_FILENO);
        execl(AM_CLI_PATH, "animesh", "bendbox", "--out", out, "--skeleton", skel, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Each entry of a folder with its inode (a replaced file has a new one), sorted by name. */
typedef struct entry_id {
    char name[256];
    ino_t ino;
} entry_id;

static int by_entry_name(const void *a, const void *b)
{
    return strcmp(((const entry_id *)a)->name, ((const entry_id *)b)->name);
}

static size_t folder_ids(const char *dir, entry_id *ids, size_t cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        assert_true(n < cap);
        snprintf(ids[n].name, sizeof ids[n].name, "%s", de->d_name);
        char p[1024];
        path_of(p, sizeof p, dir, de->d_name);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        ids[n++].ino = st.st_ino;
    }
    closedir(d);
    qsort(ids, n, sizeof *ids, by_entry_name);
    return n;
}

/* A temp whose fsync fails (the disk lost it): the fsyncs run beside the writer, so the
 * failure comes at the commit, which refuses: the CLI fails naming the file, and the folder
 * holds the previous run's files, none replaced, no temp left. */
static void test_a_failed_fsync_replaces_nothing(void **state)
{
    (void)state;
    char dir[512], out[1024], errpath[1024], msg[4096] = "";
    am_test_tmpdir(dir, sizeof dir);
    path_of(out, sizeof out, dir, "o");
    path_of(errpath, sizeof errpath, dir, "stderr.txt");
    assert_int_equal(mkdir(out, 0755), 0);
    assert_int_equal(bendbox_run(out, NULL, errpath), 0);
    entry_id before[32], after[32];
    size_t nb = folder_ids(out, before, 32);
    assert_int_equal(nb, 8); /* the set and bendbox.outset */
    assert_int_not_equal(bendbox_run(out, "bendbox.dae.tmp", errpath), 0);
    slurp(errpath, msg, sizeof msg);
    assert_non_null(strstr(msg, "bendbox.dae"));
    assert_non_null(strstr(msg, "cannot finish writing"));
    size_t na = folder_ids(out, after, 32);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_string_equal(after[i].name, before[i].name);
        assert_true(after[i].ino == before[i].ino); /* not replaced */
    }
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
        cmocka_unit_test(test_many_files_are_all_synced_and_replaced),
        cmocka_unit_test(test_a_set_not_committed_leaves_the_folder_as_it_was),
        cmocka_unit_test(test_a_failed_add_blocks_the_commit),
        cmocka_unit_test(test_a_streamed_output_joins_the_set),
        cmocka_unit_test(test_a_stale_sibling_is_removed_and_reported),
        cmocka_unit_test(test_a_killed_runs_temps_are_swept_and_nothing_else),
        cmocka_unit_test(test_a_live_runs_temp_is_left_alone),
        cmocka_unit_test(test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask),
        cmocka_unit_test(test_a_symlink_in_the_folder_is_replaced_never_followed),
        cmocka_unit_test(test_a_commit_killed_halfway_is_finished_by_the_next_run),
        cmocka_unit_test(test_a_planted_journal_removes_nothing_animesh_did_not_write),
        cmocka_unit_test(test_a_planted_manifest_removes_nothing_animesh_did_not_write),
        cmocka_unit_test(test_a_rerun_removes_what_its_previous_set_wrote_and_nothing_else),
        cmocka_unit_test(test_a_run_slowed_between_create_and_lock_keeps_its_temps),
        cmocka_unit_test(test_a_failed_fsync_replaces_nothing),
        cmocka_unit_test(test_names_must_be_plain_file_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
