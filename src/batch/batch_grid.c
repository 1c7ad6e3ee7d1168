/* GRID.json (batch.h "spawning", docs/batch.md "Spawning"): the regions of a grid and the layout
 * for creatures the plan places nowhere. Every error names the file, the entry and the field. */
#define _XOPEN_SOURCE 700
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "world/digest.h"

static am_status field_fail(am_error *err, const char *file, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static am_status field_fail(am_error *err, const char *file, const char *field, const char *fmt, ...)
{
    char where[1400];
    snprintf(where, sizeof where, "%s: %s", file, field);
    va_list ap;
    va_start(ap, fmt);
    am_status s = am_fail_vwhere(err, AM_ERR_INVALID, AM_NO_OFFSET, where, fmt, ap);
    va_end(ap);
    return s;
}

static am_status known_keys(json_t *o, const char *const *keys, size_t n, const char *file, const char *at,
                            am_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        bool ok = am_batch_field_known(k, keys, n);
        char field[300];
        snprintf(field, sizeof field, "%s%s%s", at, at[0] ? "." : "", k);
        if (strcmp(k, "password") == 0)
            return field_fail(err, file, field, "never the password itself: name the environment variable that "
                                                "holds it in \"password_env\"");
        if (!ok)
            return field_fail(err, file, field, "unknown field");
    }
    return AM_OK;
}

static bool env_name_ok(const char *s)
{
    if (!s[0] || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* An optional string field: *out NULL when absent. */
static am_status opt_string(json_t *o, const char *key, char **out, const char *file, const char *at, am_error *err)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v)
        return AM_OK;
    char field[300];
    snprintf(field, sizeof field, "%s.%s", at, key);
    if (!json_is_string(v) || json_string_length(v) == 0)
        return field_fail(err, file, field, "expected a non-empty string");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return field_fail(err, file, field, "holds a NUL character");
    if (!(*out = am_strdup(json_string_value(v))))
        return am_fail_nomem(err, "grid");
    return AM_OK;
}

/* "http://host:port/..." -> "host:port" (the unit of per-host parallelism). False when out of
 * memory. */
static bool url_host(const char *url, am_string *out)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    return am_string_setn(out, p, strcspn(p, "/?#"));
}

static am_status read_region(json_t *o, size_t i, am_batch_grid_region *r, const char *file, am_error *err)
{
    static const char *const keys[] = {"name", "id", "url", "password_env", "catalog", "uid"};
    char at[64];
    snprintf(at, sizeof at, "regions[%zu]", i);
    r->uid = -1;
    if (!json_is_object(o))
        return field_fail(err, file, at, "expected an object (name, url, password_env, catalog)");
    am_status s = known_keys(o, keys, sizeof keys / sizeof *keys, file, at, err);
    if (!s)
        s = opt_string(o, "name", &r->name, file, at, err);
    if (!s)
        s = opt_string(o, "id", &r->id, file, at, err);
    if (!s)
        s = opt_string(o, "url", &r->url, file, at, err);
    if (!s)
        s = opt_string(o, "password_env", &r->password_env, file, at, err);
    if (!s)
        s = opt_string(o, "catalog", &r->catalog, file, at, err);
    if (s)
        return s;
    char field[128];
    if (!r->name && !r->id)
        return field_fail(err, file, at, "needs \"name\" (the region's name) or \"id\" (its UUID)");
    snprintf(field, sizeof field, "%s.id", at);
    if (r->id && !am_uuid_parse(r->id, NULL))
        return field_fail(err, file, field, "'%s' is not a UUID", r->id);
    snprintf(field, sizeof field, "%s.url", at);
    if (!r->url)
        return field_fail(err, file, field, "required: the region's RemoteAdmin URL (http://HOST:PORT/)");
    if (strncmp(r->url, "http://", 7) != 0 && strncmp(r->url, "https://", 8) != 0)
        return field_fail(err, file, field, "'%s' does not start with http:// or https://", r->url);
    snprintf(field, sizeof field, "%s.password_env", at);
    if (!r->password_env)
        return field_fail(err, file, field, "required: the name of the environment variable holding the "
                                            "RemoteAdmin password");
    if (!env_name_ok(r->password_env))
        return field_fail(err, file, field, "'%s' is not an environment variable's name (letters, digits, _)",
                          r->password_env);
    snprintf(field, sizeof field, "%s.catalog", at);
    if (r->catalog && r->catalog[0] != '/')
        return field_fail(err, file, field, "'%s' is not an absolute path (the catalogue folder as the region "
                                            "host sees it)", r->catalog);
    json_t *uid = json_object_get(o, "uid");
    snprintf(field, sizeof field, "%s.uid", at);
    if (uid && (!json_is_integer(uid) || json_integer_value(uid) < 0 || json_integer_value(uid) > 2147483647))
        return field_fail(err, file, field, "expected a user id (a number, `id -u USER`)");
    if (uid)
        r->uid = (long)json_integer_value(uid);
    if (!url_host(r->url, &r->host))
        return am_fail_nomem(err, "the grid's hosts");
    return AM_OK;
}

long am_batch_grid_find(const am_batch_grid *grid, const char *region)
{
    for (size_t i = 0; region && i < grid->region_count; i++)
        if (grid->regions[i].name && strcmp(grid->regions[i].name, region) == 0)
            return (long)i;
    for (size_t i = 0; region && i < grid->region_count; i++)
        if (grid->regions[i].id && strcasecmp(grid->regions[i].id, region) == 0)
            return (long)i;
    return -1;
}

static am_status read_layout(json_t *o, am_batch_grid *g, const char *file, am_error *err)
{
    static const char *const keys[] = {"region", "origin", "spacing", "size"};
    if (!json_is_object(o))
        return field_fail(err, file, "layout", "expected an object (region, origin, spacing, size)");
    am_status s = known_keys(o, keys, sizeof keys / sizeof *keys, file, "layout", err);
    if (s)
        return s;
    json_t *region = json_object_get(o, "region");
    if (region) {
        long i = json_is_string(region) ? am_batch_grid_find(g, json_string_value(region)) : -1;
        if (i < 0)
            return field_fail(err, file, "layout.region", "names no region of \"regions\"");
        g->layout_region = (size_t)i;
    }
    json_t *origin = json_object_get(o, "origin");
    if (origin) {
        bool ok = json_is_array(origin) && json_array_size(origin) == 3;
        for (size_t k = 0; ok && k < 3; k++) {
            json_t *x = json_array_get(origin, k);
            ok = json_is_number(x) && isfinite(json_number_value(x)) && json_number_value(x) >= 0;
            if (ok)
                g->layout_origin[k] = json_number_value(x);
        }
        if (!ok)
            return field_fail(err, file, "layout.origin", "expected [x, y, z] in region metres (0 or more)");
    }
    json_t *spacing = json_object_get(o, "spacing"), *size = json_object_get(o, "size");
    if (spacing) {
        if (!json_is_number(spacing) || !(json_number_value(spacing) >= 0.5 && json_number_value(spacing) <= 256))
            return field_fail(err, file, "layout.spacing", "expected metres between creatures (0.5..256)");
        g->layout_spacing = json_number_value(spacing);
    }
    if (size) {
        if (!json_is_number(size) || !(json_number_value(size) >= 16 && json_number_value(size) <= 8192))
            return field_fail(err, file, "layout.size", "expected the region's side in metres (16..8192)");
        g->layout_size = json_number_value(size);
    }
    if (g->layout_origin[0] >= g->layout_size || g->layout_origin[1] >= g->layout_size)
        return field_fail(err, file, "layout.origin", "outside the region (%g m a side)", g->layout_size);
    return AM_OK;
}

am_status am_batch_grid_load(const char *path, am_batch_grid *g, am_error *err)
{
    memset(g, 0, sizeof *g);
    g->layout_origin[0] = g->layout_origin[1] = 8;
    g->layout_origin[2] = 25;
    g->layout_spacing = 8;
    g->layout_size = 256;
    g->per_host = 1;
    static const am_file_format format = {"a grid file (JSON)", (size_t)16 << 20, NULL};
    uint8_t *data = NULL;
    size_t size = 0;
    am_status s = am_read_file_as(path, &format, &data, &size, err);
    if (s)
        return s;
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    free(data);
    if (!root)
        return am_fail_where(err, AM_ERR_INVALID, path, "line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    static const char *const keys[] = {"animesh_grid", "regions", "layout", "per_host"};
    json_t *regions = json_object_get(root, "regions");
    if (!(g->path = am_strdup(path)))
        s = am_fail_nomem(err, "grid");
    else if (!json_is_object(root))
        s = am_fail_where(err, AM_ERR_INVALID, path, "expected an object with \"regions\"");
    else if (!(s = known_keys(root, keys, sizeof keys / sizeof *keys, path, "", err))) {
        if (!json_is_array(regions) || json_array_size(regions) == 0)
            s = field_fail(err, path, "regions", "required: a non-empty array of regions");
        else if (!(g->regions = calloc(json_array_size(regions), sizeof *g->regions)))
            s = am_fail_nomem(err, "grid");
    }
    for (size_t i = 0; !s && i < json_array_size(regions); i++) {
        s = read_region(json_array_get(regions, i), i, &g->regions[i], path, err);
        g->region_count = i + 1;
        for (size_t j = 0; !s && j < i; j++) {
            const am_batch_grid_region *a = &g->regions[j], *b = &g->regions[i];
            bool same = (a->name && b->name && strcmp(a->name, b->name) == 0 &&
                         strcmp(am_str(&a->host), am_str(&b->host)) == 0) ||
                        (a->id && b->id && strcasecmp(a->id, b->id) == 0);
            char at[64];
            snprintf(at, sizeof at, "regions[%zu]", i);
            if (same)
                s = field_fail(err, path, at, "the same region as regions[%zu]", j);
        }
    }
    json_t *per_host = json_object_get(root, "per_host");
    if (!s && per_host) {
        if (!json_is_integer(per_host) || json_integer_value(per_host) < 1 || json_integer_value(per_host) > 16)
            s = field_fail(err, path, "per_host", "expected regions served at once per host (1..16)");
        else
            g->per_host = (unsigned)json_integer_value(per_host);
    }
    json_t *layout = json_object_get(root, "layout");
    if (!s && layout)
        s = read_layout(layout, g, path, err);
    json_decref(root);
    if (s)
        am_batch_grid_free(g);
    return s;
}

void am_batch_grid_free(am_batch_grid *g)
{
    for (size_t i = 0; g->regions && i < g->region_count; i++) {
        free(g->regions[i].name);
        free(g->regions[i].id);
        free(g->regions[i].url);
        free(g->regions[i].password_env);
        free(g->regions[i].catalog);
        am_string_free(&g->regions[i].host);
    }
    free(g->regions);
    free(g->path);
    memset(g, 0, sizeof *g);
}
