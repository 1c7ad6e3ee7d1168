/* issue 31, items 4-7 and 12: what a grid's upload queue would hand `preview` and `import`.
 * Each test is the smallest reproduction, made in the test's temp folder:
 *  4. a clip or part named `<!--<script>`, a title `</script>`: the page's data holds no
 *     '<', '>' or '&' (escaped in the JSON) and still reads back the names;
 *  5. a planted output-set journal beside the inputs, a planted NAME.outset beside an
 *     import: the user's notes are left and reported, never deleted;
 *  6. `preview DIR` with links leading out of DIR (relative and absolute): refused naming
 *     the link, nothing written; the page goes to the current folder unless -o;
 *  7. the size budget: 65,535 key times in 60 s resampled at 30 fps, clips past 32 left
 *     out, an oversized texture resized as the upload is, each stated in the page;
 * 12. 125 clips of one name imported as NAME, NAME_2 ... NAME_125; a clip name that is not
 *     UTF-8 shown (U+FFFD), not "undefined". */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/anim.h"
#include "core/base64.h"
#include "core/io.h"
#include "support/gltf_fixtures.h"
#include "support/test_support.h"
#include "texture/texture.h"

typedef struct fixture {
    char dir[1024], skel[1024], box[1100]; /* box: a folder of the bend box's written files */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    snprintf(f->box, sizeof f->box, "%s/box", f->dir);
    char log[8192];
    if (am_test_run_cli(log, sizeof log, "bendbox --out '%s' --skeleton '%s'", f->box, f->skel))
        fail_msg("bendbox: %s", log);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_rmtree(f->dir);
    free(f);
    return 0;
}

static void copy_file(const char *from, const char *to)
{
    size_t n = 0;
    uint8_t *d = am_test_slurp(from, &n);
    FILE *o = fopen(to, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(d, 1, n, o), n);
    fclose(o);
    free(d);
}

/* A folder DIR/name holding the bend box's mesh (as MESH.llmesh) and nothing else. */
static void box_folder(const fixture *f, const char *name, const char *mesh, char *out, size_t size)
{
    char from[1300], to[1400];
    snprintf(out, size, "%s/%s", f->dir, name);
    assert_int_equal(mkdir(out, 0777), 0);
    snprintf(from, sizeof from, "%s/bendbox.llmesh", f->box);
    snprintf(to, sizeof to, "%s/%s.llmesh", out, mesh);
    copy_file(from, to);
}

/* The page's data element: its text up to the first "</script>" (what the HTML tokenizer
 * reads as the element, whatever the JSON says), parsed. */
static json_t *page_data(const char *page_path, size_t *page_bytes)
{
    size_t n = 0;
    char *page = (char *)am_test_slurp(page_path, &n);
    if (page_bytes)
        *page_bytes = n;
    static const char open[] = "<script id=\"animesh-data\" type=\"application/json\">";
    char *a = strstr(page, open);
    assert_non_null(a);
    a += strlen(open);
    char *b = strstr(a, "</script>");
    assert_non_null(b);
    *b = '\0';
    /* nothing in the data can open a comment or a tag, or close the element early */
    assert_null(strchr(a, '<'));
    assert_null(strchr(a, '>'));
    assert_null(strchr(a, '&'));
    json_error_t je;
    json_t *d = json_loads(a, 0, &je);
    if (!d)
        fail_msg("the page's data is not JSON: %s", je.text);
    free(page);
    return d;
}

static const char *clip_name(json_t *d, size_t i)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(d, "clips"), i), "name"));
}

/* 4: the names come back whole, and the data never holds a raw '<' */
static void test_hostile_names_stay_inside_the_data_element(void **state)
{
    fixture *f = *state;
    char dir[1100], from[1300], to[1400], page[1300], log[8192];
    box_folder(f, "h4", "--title", dir, sizeof dir);
    snprintf(from, sizeof from, "%s/bendbox_fold.anim", f->box);
    snprintf(to, sizeof to, "%s/<!--<script>.anim", dir);
    copy_file(from, to);
    snprintf(page, sizeof page, "%s/page.html", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --title '</script><!--<script>&amp;' "
                                                      "--skeleton '%s'",
                                     dir, page, f->skel),
                     0);
    json_t *d = page_data(page, NULL);
    assert_string_equal(clip_name(d, 0), "<!--<script>");
    assert_string_equal(json_string_value(json_object_get(d, "title")), "</script><!--<script>&amp;");
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "parts"), 0), "name")),
                        "--title");
    json_decref(d);
    unlink(page);
}

/* A journal as animesh writes it, but planted: "remove notes.txt", with a made-up identity. */
static void plant_journal(const char *dir)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/.animesh-outset-journal", dir);
    static const char journal[] = "animesh output set journal 2\nDnotes.txt\0" "2049:1234567:16:1700000000.000000000\0";
    FILE *o = fopen(p, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(journal, 1, sizeof journal - 1, o), sizeof journal - 1);
    fclose(o);
}

/* 5: a planted journal in the input folder deleted notes.txt (exit 0, silently) */
static void test_a_planted_journal_beside_the_inputs_deletes_nothing(void **state)
{
    fixture *f = *state;
    char dir[1100], notes[1300], page[1300], log[8192];
    box_folder(f, "h5", "bendbox", dir, sizeof dir);
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    am_test_write_text(notes, "the user's notes\n");
    plant_journal(dir);
    /* by default nothing is written into DIR, so its journal is not even read */
    char cwd[1024], here[1100];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(here, sizeof here, "%s/cwd5", f->dir);
    assert_int_equal(mkdir(here, 0777), 0);
    assert_int_equal(chdir(here), 0);
    int rc = am_test_run_cli(log, sizeof log, "preview '%s' --skeleton '%s'", dir, f->skel);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(rc, 0);
    snprintf(page, sizeof page, "%s/bendbox.preview.html", here);
    assert_int_equal(access(page, F_OK), 0);
    assert_int_equal(am_test_count_entries(dir), 3); /* mesh, notes, journal */
    /* asked to write into DIR: the journal's entry does not match notes.txt, so it is left
     * and the run says so */
    snprintf(page, sizeof page, "%s/bendbox.preview.html", dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    assert_int_equal(access(notes, F_OK), 0);
    assert_non_null(strstr(log, "warning: left"));
    assert_non_null(strstr(log, "notes.txt: an output set journal named it"));
    size_t n = 0;
    char *text = (char *)am_test_slurp(notes, &n);
    assert_string_equal(text, "the user's notes\n");
    free(text);
    am_test_rmtree(dir);
    am_test_rmtree(here);
}

/* 5: a planted NAME.outset made import delete bear_notes.txt */
static void test_a_planted_manifest_makes_import_delete_nothing(void **state)
{
    fixture *f = *state;
    char dae[1024], out[1100], p[1300], log[65536];
    am_test_shared_path(dae, sizeof dae, "data/realdata/r2ROOTPRIM_rigged.dae");
    if (access(dae, R_OK) != 0) {
        print_message("SKIP: %s is missing\n", dae);
        return;
    }
    snprintf(out, sizeof out, "%s/o5", f->dir);
    assert_int_equal(mkdir(out, 0777), 0);
    snprintf(p, sizeof p, "%s/r2ROOTPRIM_rigged_notes.txt", out);
    am_test_write_text(p, "mine\n");
    snprintf(p, sizeof p, "%s/r2ROOTPRIM_rigged.outset", out);
    am_test_write_text(p, "animesh output set 2\n2049:99:5:1.000000000 r2ROOTPRIM_rigged_notes.txt\n");
    assert_int_equal(am_test_run_cli(log, sizeof log, "import '%s' --out '%s' --skeleton '%s'", dae, out, f->skel), 0);
    snprintf(p, sizeof p, "%s/r2ROOTPRIM_rigged_notes.txt", out);
    assert_int_equal(access(p, F_OK), 0);
    assert_null(strstr(log, "_notes.txt (the previous run's"));
    assert_non_null(strstr(log, "warning: left"));
    assert_non_null(strstr(log, "r2ROOTPRIM_rigged_notes.txt: the previous manifest lists it"));
    am_test_rmtree(out);
}

/* 6: links out of DIR are refused, naming them; a link inside DIR is read */
static void test_preview_dir_follows_no_link_out_of_it(void **state)
{
    fixture *f = *state;
    char dir[1100], other[1100], link[1300], target[1300], page[1300], log[8192];
    box_folder(f, "h6", "a", dir, sizeof dir);
    box_folder(f, "other6", "x", other, sizeof other);
    snprintf(page, sizeof page, "%s/p6.html", f->dir);
    /* a part that is a relative link out of DIR */
    snprintf(link, sizeof link, "%s/b.llmesh", dir);
    assert_int_equal(symlink("../other6/x.llmesh", link), 0);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 1);
    assert_non_null(strstr(log, "b.llmesh"));
    assert_non_null(strstr(log, "outside"));
    assert_int_equal(access(page, F_OK), -1);
    unlink(link);
    /* a clip that is an absolute link out of DIR */
    snprintf(target, sizeof target, "%s/bendbox_fold.anim", f->box);
    snprintf(link, sizeof link, "%s/fold.anim", dir);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 1);
    assert_non_null(strstr(log, "fold.anim"));
    assert_int_equal(access(page, F_OK), -1);
    unlink(link);
    /* a texture beside the mesh that leads out of DIR */
    snprintf(target, sizeof target, "%s/bendbox_atlas.png", f->box);
    snprintf(link, sizeof link, "%s/a.png", dir);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 1);
    assert_non_null(strstr(log, "a.png"));
    assert_int_equal(access(page, F_OK), -1);
    unlink(link);
    /* a link that stays inside DIR is a file of DIR */
    snprintf(target, sizeof target, "%s/real", dir);
    assert_int_equal(mkdir(target, 0777), 0);
    snprintf(target, sizeof target, "%s/real/fold.bin", dir);
    char from[1300];
    snprintf(from, sizeof from, "%s/bendbox_fold.anim", f->box);
    copy_file(from, target);
    snprintf(link, sizeof link, "%s/fold.anim", dir);
    assert_int_equal(symlink("real/fold.bin", link), 0);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    json_t *d = page_data(page, NULL);
    assert_string_equal(clip_name(d, 0), "fold");
    json_decref(d);
    unlink(page);
    am_test_rmtree(dir);
    am_test_rmtree(other);
}

/* A valid .anim of `keys` key times over `seconds` (mPelvis turning about z). */
static void write_dense_anim(const char *path, size_t keys, float seconds)
{
    am_anim a;
    memset(&a, 0, sizeof a);
    a.version = 1;
    a.base_priority = 3;
    a.duration = seconds;
    a.loop_out = seconds;
    a.emote_name = (char *)"";
    am_anim_joint j;
    memset(&j, 0, sizeof j);
    j.name = (char *)"mPelvis";
    j.priority = -1;
    j.rot_keys = calloc(keys, sizeof *j.rot_keys);
    assert_non_null(j.rot_keys);
    j.rot_count = keys;
    for (size_t k = 0; k < keys; k++) {
        float t = seconds * (float)k / (float)(keys - 1);
        double h = 0.4 * sin(6.0 * t);
        am_anim_rot_key_set(&j.rot_keys[k], t, (am_quat){0, 0, sin(h / 2), cos(h / 2)}, seconds);
    }
    a.joints = &j;
    a.joint_count = 1;
    am_buf b = {0};
    am_error err;
    assert_int_equal(am_anim_encode(&a, &b, &err), AM_OK);
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(b.data, 1, b.size, o), b.size);
    fclose(o);
    am_buf_free(&b);
    free(j.rot_keys);
}

/* 7: 65,535 key times in 60 s (524 KB, valid): 67k frames before; now 1801, resampled and
 * said so; 33 clips: the first 32 kept, the 33rd left out and said so */
static void test_the_page_keeps_to_its_size_budget(void **state)
{
    fixture *f = *state;
    char dir[1100], anim[1300], page[1300], log[8192];
    box_folder(f, "h7", "bendbox", dir, sizeof dir);
    snprintf(anim, sizeof anim, "%s/dense.anim", dir);
    write_dense_anim(anim, 65535, 60.0f);
    struct stat sb;
    assert_int_equal(stat(anim, &sb), 0);
    assert_true(sb.st_size > 500000);
    snprintf(page, sizeof page, "%s/p7.html", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    assert_non_null(strstr(log, "1 clip resampled at 30 fps"));
    size_t bytes = 0;
    json_t *d = page_data(page, &bytes);
    json_t *c = json_array_get(json_object_get(d, "clips"), 0);
    assert_int_equal(json_integer_value(json_object_get(c, "frames")), 1801); /* 60 s at 30 fps, both ends */
    assert_true(json_integer_value(json_object_get(c, "keys")) > 65000); /* distinct time codes */
    assert_true(json_is_true(json_object_get(c, "resampled")));
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(d, "reduced"), 0)),
                           "clip dense resampled at 30 fps"));
    print_message("  one 60 s clip of 65,535 key times: page %zu bytes\n", bytes);
    assert_true(bytes < 400000); /* 3 joints: was 4.3 MB with a frame per key time */
    json_decref(d);
    unlink(anim);

    /* 33 short clips: 32 in the page, the last left out, said so */
    char from[1300];
    snprintf(from, sizeof from, "%s/bendbox_fold.anim", f->box);
    for (int i = 0; i < 33; i++) {
        snprintf(anim, sizeof anim, "%s/c%02d.anim", dir, i);
        copy_file(from, anim);
    }
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    assert_non_null(strstr(log, "1 clip left out"));
    d = page_data(page, NULL);
    assert_int_equal(json_array_size(json_object_get(d, "clips")), 32);
    assert_string_equal(clip_name(d, 31), "c31");
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(d, "reduced"), 0)),
                           "1 of 33 clips left out"));
    json_decref(d);
    unlink(page);
    am_test_rmtree(dir);
}

/* The width and height of the PNG behind a data: URL. */
static void data_url_png_size(const char *url, uint32_t *w, uint32_t *h)
{
    const char *b64 = strstr(url, "base64,");
    assert_non_null(b64);
    uint8_t *png = NULL;
    size_t n = 0;
    am_error err;
    assert_int_equal(am_base64_decode(b64 + 7, &png, &n, &err), AM_OK);
    am_tex_image img;
    assert_int_equal(am_tex_png_decode(png, n, &img, &err), AM_OK);
    *w = img.width, *h = img.height;
    am_tex_image_free(&img);
    free(png);
}

/* 7: a 2048 x 1024 texture beside the mesh goes into the page at 1024 x 1024 (the upload's
 * size: each side am_texture_fit_side), not at its own */
static void test_the_page_holds_the_texture_at_the_uploads_size(void **state)
{
    fixture *f = *state;
    char dir[1100], png[1300], page[1300], log[8192];
    box_folder(f, "h7t", "bendbox", dir, sizeof dir);
    am_tex_image img;
    am_gf_picture(&img, 2048, 1024, 3);
    snprintf(png, sizeof png, "%s/bendbox.png", dir);
    am_error err;
    assert_int_equal(am_tex_png_write(png, &img, &err), AM_OK);
    am_tex_image_free(&img);
    snprintf(page, sizeof page, "%s/p7t.html", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    assert_non_null(strstr(log, "1 texture resized"));
    json_t *d = page_data(page, NULL);
    uint32_t w = 0, h = 0;
    data_url_png_size(json_string_value(json_object_get(json_array_get(json_object_get(d, "parts"), 0), "texture")), &w,
                      &h);
    assert_int_equal(w, 1024);
    assert_int_equal(h, 1024);
    assert_non_null(strstr(json_string_value(json_array_get(json_object_get(d, "reduced"), 0)),
                           "resized from 2048x1024 to 1024x1024"));
    json_decref(d);
    unlink(page);
    am_test_rmtree(dir);
}

/* 12: a clip name that is not UTF-8 is shown with U+FFFD, not dropped ("undefined") */
static void test_a_clip_name_not_in_utf8_is_shown(void **state)
{
    fixture *f = *state;
    char dir[1100], from[1300], to[1400], page[1300], log[8192];
    box_folder(f, "h12", "bendbox", dir, sizeof dir);
    snprintf(from, sizeof from, "%s/bendbox_fold.anim", f->box);
    snprintf(to, sizeof to, "%s/walk\xff\xc3.anim", dir);
    copy_file(from, to);
    snprintf(page, sizeof page, "%s/p12.html", f->dir);
    assert_int_equal(am_test_run_cli(log, sizeof log, "preview '%s' -o '%s' --skeleton '%s'", dir, page, f->skel), 0);
    json_t *d = page_data(page, NULL);
    assert_non_null(clip_name(d, 0));
    assert_string_equal(clip_name(d, 0), "walk\xef\xbf\xbd\xef\xbf\xbd");
    json_decref(d);
    unlink(page);
    am_test_rmtree(dir);
}

/* 12: a glTF with 125 clips all named "walk" failed past ~120 with an error that blamed
 * the model; now walk, walk_2 ... walk_125 */
static void test_many_clips_of_one_name_are_all_written(void **state)
{
    fixture *f = *state;
    char model_dir[1100], path[1300], out[1100], log[65536];
    snprintf(model_dir, sizeof model_dir, "%s/m12", f->dir);
    assert_int_equal(mkdir(model_dir, 0777), 0);
    am_gf_model m;
    am_gf_bendbox(&m, AM_SCENE_INTERP_LINEAR);
    am_buf bin = {0};
    json_t *doc = am_gf_document(&m, NULL, &bin);
    json_t *anims = json_object_get(doc, "animations");
    json_t *first = json_array_get(anims, 0);
    json_object_set_new(first, "name", json_string("walk"));
    for (int i = 1; i < 125; i++)
        json_array_append_new(anims, json_deep_copy(first));
    am_gf_save(doc, &bin, AM_GF_GLB, model_dir, "walker", path, sizeof path);
    json_decref(doc);
    am_buf_free(&bin);
    am_gf_model_free(&m);
    snprintf(out, sizeof out, "%s/o12", f->dir);
    int rc = am_test_run_cli(log, sizeof log, "import '%s' --out '%s' --skeleton '%s'", path, out, f->skel);
    if (rc)
        fail_msg("import: exit %d: %.2000s", rc, log);
    static const char *const names[] = {"walk", "walk_2", "walk_99", "walk_100", "walk_125"};
    for (size_t k = 0; k < 5; k++) {
        char anim[1300];
        snprintf(anim, sizeof anim, "%s/%s.anim", out, names[k]);
        if (access(anim, F_OK) != 0)
            fail_msg("%s was not written", anim);
    }
    char extra[1300];
    snprintf(extra, sizeof extra, "%s/walk_126.anim", out);
    assert_int_equal(access(extra, F_OK), -1);
    am_test_rmtree(out);
    am_test_rmtree(model_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_names_stay_inside_the_data_element),
        cmocka_unit_test(test_a_planted_journal_beside_the_inputs_deletes_nothing),
        cmocka_unit_test(test_a_planted_manifest_makes_import_delete_nothing),
        cmocka_unit_test(test_preview_dir_follows_no_link_out_of_it),
        cmocka_unit_test(test_the_page_keeps_to_its_size_budget),
        cmocka_unit_test(test_the_page_holds_the_texture_at_the_uploads_size),
        cmocka_unit_test(test_a_clip_name_not_in_utf8_is_shown),
        cmocka_unit_test(test_many_clips_of_one_name_are_all_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
