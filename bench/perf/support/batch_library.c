/* The batch library generator (batch_library.h). */
#include "bench/perf/support/batch_library.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/io.h"

static bool failed(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return false;
}

static bool put(const char *path, const void *data, size_t size, char *why, size_t why_size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return failed(why, why_size, "%s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, size, f) == size;
    ok = fclose(f) == 0 && ok;
    return ok ? true : failed(why, why_size, "%s: cannot write", path);
}

static bool folder(const char *path, char *why, size_t why_size)
{
    am_error err;
    if (am_mkdir_p(path, &err))
        return failed(why, why_size, "%s: %s", path, err.msg);
    return true;
}

static uint8_t *slurp(const char *path, size_t *size, char *why, size_t why_size)
{
    uint8_t *data = NULL;
    am_error err;
    if (am_read_file(path, &data, size, &err)) {
        failed(why, why_size, "%s: %s", path, err.msg);
        return NULL;
    }
    return data;
}

bool am_bench_batch_library(const char *dir, const char *data, int good, int broken, bool junk, char *lib,
                            size_t lib_size, char *why, size_t why_size)
{
    char path[1400], src[1200];
    snprintf(lib, lib_size, "%s/lib", dir);
    snprintf(src, sizeof src, "%s/r2ROOTPRIM_rigged.dae", data);
    size_t size = 0, bvh_size = 0;
    char *dae = (char *)slurp(src, &size, why, why_size);
    snprintf(src, sizeof src, "%s/TeddyIdle.bvh", data);
    uint8_t *bvh = dae ? slurp(src, &bvh_size, why, why_size) : NULL;
    const char *unit = dae ? strstr(dae, "<unit meter=\"1\"") : NULL;
    const char *skin = dae ? strstr(dae, "<skin") : NULL;
    bool ok = bvh && unit && skin;
    if (dae && bvh && !(unit && skin))
        failed(why, why_size, "r2ROOTPRIM_rigged.dae: no <unit meter=\"1\"> or <skin>");
    for (int i = 0; ok && i < good; i++) {
        char where[1000];
        snprintf(where, sizeof where, "%s/%s/creature_%02d", lib, i % 2 ? "store" : "nightly", i);
        ok = folder(where, why, why_size);
        char scaled[64];
        snprintf(scaled, sizeof scaled, "<unit meter=\"%.2f\"", 1.0 + 0.01 * i);
        snprintf(path, sizeof path, "%s/prim_%02d.dae", where, i);
        FILE *out = ok ? fopen(path, "wb") : NULL;
        if (ok && !out)
            ok = failed(why, why_size, "%s: %s", path, strerror(errno));
        if (out) {
            fwrite(dae, 1, (size_t)(unit - dae), out);
            fputs(scaled, out);
            fputs(unit + strlen("<unit meter=\"1\""), out);
            ok = fclose(out) == 0;
        }
        if (ok && i % 3 == 0) { /* a motion in a sub-folder without a model belongs to it too */
            snprintf(path, sizeof path, "%s/anims", where);
            ok = folder(path, why, why_size);
            snprintf(path, sizeof path, "%s/anims/idle.bvh", where);
            ok = ok && put(path, bvh, bvh_size, why, why_size);
        }
    }
    char where[1000];
    snprintf(where, sizeof where, "%s/broken", lib);
    if (ok && broken)
        ok = folder(where, why, why_size);
    for (int i = 0; ok && i < broken; i++) {
        snprintf(path, sizeof path, "%s/bad_%d.dae", where, i);
        size_t cut = (size_t)(skin - dae);
        if (i % 4 < 2) { /* cut short after its skin controller began (it still looks like a model) */
            ok = put(path, dae, i % 4 == 0 ? cut + 40 : (cut + size) / 2, why, why_size);
        } else {
            char text[400];
            int n = snprintf(text, sizeof text,
                             "<?xml version=\"1.0\"?><COLLADA><library_geometries><geometry id=\"g%d\"/>"
                             "</library_geometries><library_controllers><skin source=\"#nowhere\">%s",
                             i, i % 4 == 3 ? "\x01\x02\xff garbage" : "");
            ok = put(path, text, (size_t)n, why, why_size);
        }
    }
    if (ok && junk) {
        snprintf(where, sizeof where, "%s/junk", lib);
        ok = folder(where, why, why_size);
        size_t n0 = 0;
        snprintf(path, sizeof path, "%s/store/creature_01/prim_01.dae", lib);
        uint8_t *first = ok ? slurp(path, &n0, why, why_size) : NULL;
        char copy[1100];
        snprintf(copy, sizeof copy, "%s/store/zz_copy", lib); /* found after creature 1 */
        ok = first && folder(copy, why, why_size);
        snprintf(path, sizeof path, "%s/copy_of_prim.dae", copy);
        ok = ok && put(path, first, n0, why, why_size);
        free(first);
        snprintf(path, sizeof path, "%s/empty.glb", where);
        ok = ok && put(path, "", 0, why, why_size);
        snprintf(path, sizeof path, "%s/notes.txt", where);
        ok = ok && put(path, "my notes\n", 9, why, why_size);
        snprintf(src, sizeof src, "%s/ElfEar.dae", data);
        size_t ear_size = 0;
        uint8_t *ear = ok ? slurp(src, &ear_size, why, why_size) : NULL;
        snprintf(path, sizeof path, "%s/ear.dae", where);
        ok = ear && put(path, ear, ear_size, why, why_size);
        free(ear);
        snprintf(path, sizeof path, "%s/stray.bvh", lib); /* no model at the top */
        ok = ok && put(path, bvh, bvh_size, why, why_size);
    }
    free(bvh);
    free(dae);
    return ok;
}

bool am_bench_batch_library_mixed(const char *dir, const char *data, int count, char *lib, size_t lib_size,
                                  char *why, size_t why_size)
{
    static const char *const models[] = {"r2ROOTPRIM_rigged.dae", "Little Bear_90.dae", "Roth2-v2-Body.dae",
                                         "Ruth2v4Hands.dae", "female_2016_08_05.dae"};
    enum { MODELS = sizeof models / sizeof *models };
    char path[1400], src[1200];
    uint8_t *text[MODELS] = {0};
    size_t size[MODELS] = {0}, bvh_size = 0;
    bool ok = true;
    for (int m = 0; ok && m < MODELS; m++) {
        snprintf(src, sizeof src, "%s/%s", data, models[m]);
        text[m] = slurp(src, &size[m], why, why_size);
        ok = text[m] != NULL;
    }
    snprintf(src, sizeof src, "%s/TeddyIdle.bvh", data);
    uint8_t *bvh = ok ? slurp(src, &bvh_size, why, why_size) : NULL;
    ok = ok && bvh;
    snprintf(lib, lib_size, "%s/lib", dir);
    for (int i = 0; ok && i < count; i++) {
        int m = i % MODELS;
        char where[1000];
        snprintf(where, sizeof where, "%s/creature_%03d", lib, i);
        ok = folder(where, why, why_size);
        snprintf(path, sizeof path, "%s/model_%03d.dae", where, i);
        /* after the XML declaration (or at the start): a comment that makes the bytes its own */
        const char *body = (const char *)text[m];
        const char *decl = strncmp(body, "<?xml", 5) == 0 ? strstr(body, "?>") : NULL;
        size_t head = decl ? (size_t)(decl + 2 - body) : 0;
        FILE *out = ok ? fopen(path, "wb") : NULL;
        if (ok && !out)
            ok = failed(why, why_size, "%s: %s", path, strerror(errno));
        if (out) {
            fwrite(body, 1, head, out);
            fprintf(out, "<!-- animesh benchmark copy %d of %s -->", i, models[m]);
            fwrite(body + head, 1, size[m] - head, out);
            ok = fclose(out) == 0;
        }
        if (ok && m == 1) {
            snprintf(path, sizeof path, "%s/TeddyIdle.bvh", where);
            ok = put(path, bvh, bvh_size, why, why_size);
        }
    }
    for (int m = 0; m < MODELS; m++)
        free(text[m]);
    free(bvh);
    return ok;
}
