/* Every reader looks at a file's first bytes, then its size, before reading it (README
 * "Size limits"): a 2 GB file is refused at once (sparse files here, so nothing is really
 * written), a file of the wrong kind is named for what it is, and a pipe that goes on and
 * on stops at the limit. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "anim/anim.h"
#include "anim/bvh.h"
#include "core/io.h"
#include "skeleton/jointmap.h"
#include "mesh/mesh_asset.h"
#include "mesh/skin_json.h"
#include "skeleton/skeleton.h"
#include "skin/rig.h"
#include "support/test_support.h"
#include "texture/texture.h"
#include "world/meshdata.h"
#include "world/oar_check.h"

/* A sparse file of `size` bytes whose first bytes are `head`. */
static void sparse(const char *path, const void *head, size_t n, off_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_ge(fd, 0);
    assert_int_equal(write(fd, head, n), (ssize_t)n);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

/* The same with text: the first 600 bytes are head and then newlines (a text format's first
 * bytes hold no NUL). */
static void sparse_text(const char *path, const char *head, off_t size)
{
    char text[600];
    memset(text, '\n', sizeof text);
    memcpy(text, head, strlen(head));
    sparse(path, text, sizeof text, size);
}

static void expect_refused(am_status got, const am_error *err, const char *needle)
{
    char text[AM_ERROR_TEXT_MAX];
    am_error_format(err, text, sizeof text);
    if (got != AM_ERR_INVALID || !strstr(text, needle))
        fail_msg("status %d, wanted '%s' in: %s", got, needle, text);
}

static const uint8_t mesh_head[] = {'{', 0, 0, 0, 1, 'k'};
static const uint8_t anim_head[] = {1, 0, 0, 0, 4, 0, 0, 0};
static const uint8_t png_head[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const uint8_t j2c_head[] = {0xFF, 0x4F, 0xFF, 0x51};

static void test_a_2gb_file_of_the_right_kind_is_refused_by_its_size(void **state)
{
    (void)state;
    char dir[512], p[1024];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/big", dir);
    const off_t two_gb = (off_t)2 << 30;
    am_error err;
    uint8_t *d;
    size_t n;

    sparse(p, mesh_head, sizeof mesh_head, two_gb);
    am_mesh_asset asset;
    expect_refused(am_mesh_asset_load(p, &asset, &err), &err,
                   "over the 67108864 bytes (64.0 MiB) limit for a mesh asset");
    am_mesh_skin skin;
    expect_refused(am_mesh_skin_load_any(p, &skin, &err), &err, "limit for a mesh asset");

    sparse(p, anim_head, sizeof anim_head, two_gb);
    am_anim a;
    expect_refused(am_anim_load(p, &a, &err), &err, "over the 16777216 bytes (16.0 MiB) limit for an .anim file");

    sparse_text(p, "HIERARCHY\n", two_gb);
    am_bvh b;
    expect_refused(am_bvh_load(p, &b, &err), &err, "(64.0 MiB) limit for a BVH file");

    sparse_text(p, "{\"joints\": {", two_gb);
    am_joint_map map;
    expect_refused(am_joint_map_load(p, &map, &err), &err, "(4.0 MiB) limit for a joint map JSON");
    am_rig rig;
    expect_refused(am_rig_load(p, &rig, &err), &err, "(256.0 MiB) limit for a rig JSON");
    json_t *doc;
    expect_refused(am_meshdata_load(p, NULL, &doc, NULL, &err), &err, "(64.0 MiB) limit for a meshdata JSON");
    expect_refused(am_read_file_as(p, &am_anim_json_format, &d, &n, &err), &err, "(128.0 MiB) limit for an anim JSON");
    expect_refused(am_mesh_skin_load_any(p, &skin, &err), &err, "(4.0 MiB) limit for a skin reference JSON");

    sparse_text(p, "<linden_skeleton>", two_gb);
    am_skeleton skel;
    expect_refused(am_skeleton_load(p, &skel, &err), &err, "(4.0 MiB) limit for a viewer skeleton XML");

    sparse(p, png_head, sizeof png_head, two_gb);
    am_tex_image img;
    expect_refused(am_tex_png_read(p, &img, &err), &err, "(64.0 MiB) limit for a PNG image");
    sparse(p, j2c_head, sizeof j2c_head, two_gb);
    expect_refused(am_read_file_as(p, &am_j2c_file_format, &d, &n, &err), &err,
                   "(16.0 MiB) limit for a JPEG-2000 code stream");
    static const uint8_t gz[] = {0x1F, 0x8B, 0x08, 0};
    sparse(p, gz, sizeof gz, two_gb);
    expect_refused(am_read_file_as(p, &am_oar_file_format, &d, &n, &err), &err,
                   "(512.0 MiB) limit for an OpenSim archive");
    sparse(p, j2c_head, sizeof j2c_head, two_gb);
    expect_refused(am_read_file_as(p, &am_j2c_file_format, &d, &n, &err), &err, "limit for a JPEG-2000 code stream");
    /* the message names the file and its size */
    assert_non_null(strstr(err.where, "/big"));
    assert_non_null(strstr(err.msg, "the file is 2147483648 bytes (2048.0 MiB)"));
    am_test_rmtree(dir);
}

static void test_a_file_of_another_kind_is_named_for_what_it_is(void **state)
{
    (void)state;
    char dir[512], p[1024];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/x", dir);
    am_error err;
    uint8_t *d;
    size_t n;
    /* 2 GB of zeros given as a mesh asset: refused by its first bytes, not read */
    sparse(p, "", 0, (off_t)2 << 30);
    am_mesh_asset asset;
    expect_refused(am_mesh_asset_load(p, &asset, &err), &err,
                   "not a binary mesh asset (.llmesh / .slm): the file is binary data");
    sparse(p, png_head, sizeof png_head, 100);
    am_anim a;
    expect_refused(am_anim_load(p, &a, &err), &err, "not an .anim file: the file is a PNG image");
    sparse(p, anim_head, sizeof anim_head, 100);
    am_tex_image img;
    expect_refused(am_tex_png_read(p, &img, &err), &err,
                   "not a PNG file (no PNG signature): the file is an .anim file");
    am_test_write_text(p, "{\"name\": \"rig\"}");
    expect_refused(am_mesh_asset_load(p, &asset, &err), &err, "this is a text file (JSON: a meshdata or rig file?)");
    am_bvh b;
    expect_refused(am_bvh_load(p, &b, &err), &err, "not a BVH file (it must start with HIERARCHY): the file is JSON");
    am_skeleton skel;
    expect_refused(am_skeleton_load(p, &skel, &err), &err, "not an avatar_skeleton.xml (XML): the file is JSON");
    expect_refused(am_read_file_as(p, &am_oar_file_format, &d, &n, &err), &err,
                   "not gzip-compressed (an OAR is a .tar.gz, starting 1F 8B 08): the file is JSON");
    am_test_write_text(p, "<COLLADA>");
    am_rig rig;
    expect_refused(am_rig_load(p, &rig, &err), &err, "not a rig JSON (an object): the file is XML (a COLLADA .dae)");
    /* skin compare: an empty file or binary data is neither of its two kinds (it was "JSON") */
    am_mesh_skin skin;
    am_test_write_text(p, "");
    expect_refused(am_mesh_skin_load_any(p, &skin, &err), &err,
                   "not a mesh asset or a skin reference JSON: the file is empty");
    sparse(p, anim_head, sizeof anim_head, 64);
    expect_refused(am_mesh_skin_load_any(p, &skin, &err), &err,
                   "not a mesh asset or a skin reference JSON: the file is an .anim file");
    am_test_rmtree(dir);
}

static am_status sniff_any(const uint8_t *h, size_t n, am_error *err)
{
    (void)h;
    (void)n;
    (void)err;
    return AM_OK;
}

/* A stream (stdin, the one input that may be one) has no size to check: reading stops one
 * byte past the limit. */
static void test_an_endless_stream_stops_at_the_limit(void **state)
{
    (void)state;
    const am_file_format small = {"a test stream", 100000, sniff_any};
    uint8_t *d = NULL;
    size_t n = 0;
    am_error err;
    int saved = dup(STDIN_FILENO), zero = open("/dev/zero", O_RDONLY);
    assert_true(saved >= 0 && zero >= 0);
    assert_int_equal(dup2(zero, STDIN_FILENO), STDIN_FILENO);
    am_status s = am_read_file_as("-", &small, &d, &n, &err);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(zero);
    close(saved);
    expect_refused(s, &err, "more than 100000 bytes: over the 100000 bytes limit for a test stream");
    assert_null(d);
}

/* A named input that is not a regular file is refused at once: a FIFO nobody writes to
 * (open would wait for a writer forever without O_NONBLOCK), a device. */
static void test_a_fifo_or_a_device_given_as_a_file_is_refused_without_blocking(void **state)
{
    (void)state;
    char dir[512], p[1024];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/model.dae", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    uint8_t *d = NULL;
    size_t n = 0;
    am_error err;
    assert_int_equal(am_read_file(p, &d, &n, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "a FIFO (named pipe), not a regular file"));
    assert_non_null(strstr(err.where, "model.dae"));
    assert_null(d);
    assert_int_equal(am_read_file("/dev/zero", &d, &n, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "a device, not a regular file"));
    /* the whole command: exit 3 naming the file, no output folder */
    char out[4096], skel[1024];
    am_test_shared_path(skel, sizeof skel, "viewer/avatar_skeleton.xml");
    assert_int_equal(am_test_run_cli(out, sizeof out, "import '%s' --out '%s/o' --skeleton '%s'", p, dir, skel), 3);
    assert_non_null(strstr(out, "model.dae"));
    assert_non_null(strstr(out, "FIFO"));
    assert_int_equal(am_test_count_entries(dir), 1);
    am_test_rmtree(dir);
}

/* An unreadable file keeps errno's words ("not found" only when it is missing). */
static void test_an_unreadable_skeleton_says_why(void **state)
{
    (void)state;
    char dir[512], p[1024], out[4096];
    am_test_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/plain", dir);
    am_test_write_text(p, "x");
    am_error err;
    am_error_clear(&err);
    snprintf(p, sizeof p, "%s/plain/avatar_skeleton.xml", dir);
    assert_int_equal(am_skeleton_locate(p, out, sizeof out, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot be read: Not a directory"));
    snprintf(p, sizeof p, "%s/missing.xml", dir);
    assert_int_equal(am_skeleton_locate(p, out, sizeof out, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "not found"));
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_2gb_file_of_the_right_kind_is_refused_by_its_size),
        cmocka_unit_test(test_a_file_of_another_kind_is_named_for_what_it_is),
        cmocka_unit_test(test_an_endless_stream_stops_at_the_limit),
        cmocka_unit_test(test_a_fifo_or_a_device_given_as_a_file_is_refused_without_blocking),
        cmocka_unit_test(test_an_unreadable_skeleton_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
