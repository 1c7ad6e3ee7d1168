/* The batch tests' library (batch_library.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support/batch_library.h"
#include "support/test_support.h"

static void mkdirs(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0777);
            *p = '/';
        }
    mkdir(buf, 0777);
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* The library: AM_TEST_BATCH_GOOD creatures (the Ruth root prim, its <unit> varied so each is its own
 * file, some with a BVH each), AM_TEST_BATCH_BROKEN ones (cut short, garbage after the header), and files
 * that make no creature (a duplicate, an empty file, notes, an unrigged model, a stray motion). */
void am_test_batch_library(char *lib, size_t lib_size, const char *dir, const char *data)
{
    char src[1200], path[1400];
    snprintf(src, sizeof src, "%s/r2ROOTPRIM_rigged.dae", data);
    size_t size = 0;
    char *dae = (char *)am_test_slurp(src, &size);
    const char *unit = strstr(dae, "<unit meter=\"1\"");
    assert_non_null(unit);
    snprintf(path, sizeof path, "%s/TeddyIdle.bvh", data);
    size_t bvh_size = 0;
    uint8_t *bvh = am_test_slurp(path, &bvh_size);
    snprintf(lib, lib_size, "%s/lib", dir);
    for (int i = 0; i < AM_TEST_BATCH_GOOD; i++) {
        char folder[900];
        snprintf(folder, sizeof folder, "%s/%s/creature_%02d", lib, i % 2 ? "store" : "nightly", i);
        mkdirs(folder);
        /* Several scales: 1, 1.01, ... (the prim's joints scale with it). */
        char scaled[64];
        snprintf(scaled, sizeof scaled, "<unit meter=\"%.2f\"", 1.0 + 0.01 * i);
        snprintf(path, sizeof path, "%s/prim_%02d.dae", folder, i);
        FILE *out = fopen(path, "wb");
        assert_non_null(out);
        fwrite(dae, 1, (size_t)(unit - dae), out);
        fputs(scaled, out);
        fputs(unit + strlen("<unit meter=\"1\""), out);
        assert_int_equal(fclose(out), 0);
        if (i % 3 == 0) { /* a motion in a sub-folder without a model belongs to it too */
            char anims[1000];
            snprintf(anims, sizeof anims, "%s/anims", folder);
            mkdirs(anims);
            snprintf(path, sizeof path, "%s/idle.bvh", anims);
            write_bytes(path, bvh, bvh_size);
        }
    }
    char broken[900];
    snprintf(broken, sizeof broken, "%s/broken", lib);
    mkdirs(broken);
    for (int i = 0; i < AM_TEST_BATCH_BROKEN; i++) {
        snprintf(path, sizeof path, "%s/bad_%d.dae", broken, i);
        if (i < 2) {
            /* Cut short after its skin controller began (so it still looks like a model). */
            size_t skin = (size_t)(strstr(dae, "<skin") - dae);
            write_bytes(path, dae, i == 0 ? skin + 40 : (skin + size) / 2);
        } else {
            FILE *out = fopen(path, "wb");
            assert_non_null(out);
            fprintf(out, "<?xml version=\"1.0\"?><COLLADA><library_geometries><geometry id=\"g%d\"/>"
                         "</library_geometries><library_controllers><skin source=\"#nowhere\">%s",
                    i, i == 3 ? "\x01\x02\xff garbage" : "");
            assert_int_equal(fclose(out), 0);
        }
    }
    char junk[900];
    snprintf(junk, sizeof junk, "%s/junk", lib);
    mkdirs(junk);
    snprintf(path, sizeof path, "%s/store/creature_01/prim_01.dae", lib);
    size_t n0 = 0;
    uint8_t *first = am_test_slurp(path, &n0);
    char copy[1000];
    snprintf(copy, sizeof copy, "%s/store/zz_copy", lib); /* found after creature 1 */
    mkdirs(copy);
    snprintf(path, sizeof path, "%s/copy_of_prim.dae", copy); /* a duplicate of creature 1 */
    write_bytes(path, first, n0);
    free(first);
    snprintf(path, sizeof path, "%s/empty.glb", junk);
    write_bytes(path, "", 0);
    snprintf(path, sizeof path, "%s/notes.txt", junk);
    am_test_write_text(path, "my notes\n");
    snprintf(src, sizeof src, "%s/ElfEar.dae", data);
    size_t ear_size = 0;
    uint8_t *ear = am_test_slurp(src, &ear_size);
    snprintf(path, sizeof path, "%s/ear.dae", junk);
    write_bytes(path, ear, ear_size);
    free(ear);
    snprintf(path, sizeof path, "%s/stray.bvh", lib); /* no model at the top */
    write_bytes(path, bvh, bvh_size);
    free(bvh);
    free(dae);
}

