/* The plan (batch.h): library folders and a manifest turned into one job per creature,
 * written as CATALOG/plan.json and read back by every other batch step. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/batch_internal.h"
#include "core/io.h"
#include "core/jsonlex.h"

/* Import options a job may not set: batch sets them itself. */
static const char *const reserved_options[] = {"--out", "--name", "--json", "--oar", "--skeleton", "--anim", "--map"};
static const char *const default_options[] = {"--bench", "--preview"};

bool am_batch_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 100 || name[0] == '.' || name[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.'))
            return false;
    }
    return true;
}

const char *am_batch_state_name(am_batch_state s)
{
    switch (s) {
    case AM_BATCH_DONE: return "done";
    case AM_BATCH_FAILED: return "failed";
    case AM_BATCH_STALE: return "stale";
    default: return "pending";
    }
}

/* --- memory ------------------------------------------------------------------------------- */

static void job_free(am_batch_job *j)
{
    free(j->name);
    free(j->model);
    for (size_t i = 0; i < j->motion_count; i++)
        free(j->motions[i]);
    free(j->motions);
    for (size_t i = 0; i < j->option_count; i++)
        free(j->options[i]);
    free(j->options);
    free(j->map);
    free(j->region);
    memset(j, 0, sizeof *j);
}

void am_batch_plan_free(am_batch_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; i < plan->job_count; i++)
        job_free(&plan->jobs[i]);
    free(plan->jobs);
    for (size_t i = 0; i < plan->skip_count; i++) {
        free(plan->skipped[i].path);
        free(plan->skipped[i].reason);
    }
    free(plan->skipped);
    free(plan->catalog);
    free(plan->skeleton);
    free(plan->version);
    memset(plan, 0, sizeof *plan);
}

static am_status grow(void **items, size_t count, size_t *cap, size_t elem, am_error *err)
{
    if (count < *cap)
        return AM_OK;
    size_t n = *cap ? 2 * *cap : 16;
    void *p = realloc(*items, n * elem);
    if (!p)
        return am_fail_nomem(err, "the batch plan");
    *items = p;
    *cap = n;
    return AM_OK;
}

static am_status strv_push(char ***v, size_t *count, size_t *cap, const char *s, am_error *err)
{
    am_status st = grow((void **)v, *count, cap, sizeof **v, err);
    if (st)
        return st;
    char *copy = am_strdup(s);
    if (!copy)
        return am_fail_nomem(err, "the batch plan");
    (*v)[(*count)++] = copy;
    return AM_OK;
}

typedef struct plan_builder {
    am_batch_plan *plan;
    size_t job_cap, skip_cap;
} plan_builder;

static am_status skip_add(plan_builder *b, const char *path, const char *reason, am_error *err)
{
    am_batch_plan *p = b->plan;
    am_status s = grow((void **)&p->skipped, p->skip_count, &b->skip_cap, sizeof *p->skipped, err);
    if (s)
        return s;
    am_batch_skip *k = &p->skipped[p->skip_count];
    k->path = am_strdup(path);
    k->reason = am_strdup(reason);
    if (!k->path || !k->reason) {
        free(k->path);
        free(k->reason);
        return am_fail_nomem(err, "the batch plan");
    }
    p->skip_count++;
    return AM_OK;
}

static am_status job_new(plan_builder *b, am_batch_job **out, am_error *err)
{
    am_batch_plan *p = b->plan;
    am_status s = grow((void **)&p->jobs, p->job_count, &b->job_cap, sizeof *p->jobs, err);
    if (s)
        return s;
    *out = &p->jobs[p->job_count++];
    memset(*out, 0, sizeof **out);
    return AM_OK;
}

/* --- options ------------------------------------------------------------------------------- */

/* Check a job's import options; `where` names them in errors. */
static am_status options_check(const char *const *options, size_t count, const char *where, am_error *err)
{
    for (size_t i = 0; i < count; i++) {
        const char *o = options[i];
        for (size_t r = 0; r < sizeof reserved_options / sizeof *reserved_options; r++)
            if (strcmp(o, reserved_options[r]) == 0)
                return am_fail_where(err, AM_ERR_USAGE, where,
                                     "'%s' is set by batch itself (the creature's name, folder, motions, map "
                                     "and archive come from the plan)",
                                     o);
        if (i == 0 && strncmp(o, "--", 2) != 0)
            return am_fail_where(err, AM_ERR_USAGE, where, "'%s' is not an import option (they start with --)", o);
    }
    return AM_OK;
}

static am_status job_set_options(am_batch_job *j, const char *const *options, size_t count, am_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < count; i++) {
        am_status s = strv_push(&j->options, &j->option_count, &cap, options[i], err);
        if (s)
            return s;
    }
    return AM_OK;
}

/* --- names ------------------------------------------------------------------------------------ */

/* The creature name from a model path: its stem, other characters as '_', unique in the plan
 * ("fox", "fox-2", ... in the order found). */
static am_status name_from_path(const am_batch_plan *plan, const char *path, char *out, size_t size, am_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[101];
    size_t n = 0;
    for (const char *c = base; *c && n < 100; c++)
        stem[n++] = *c;
    stem[n] = '\0';
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem)
        *dot = '\0';
    for (char *c = stem; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.'))
            *c = '_';
    if (stem[0] == '.' || stem[0] == '-' || stem[0] == '\0') {
        memmove(stem + 1, stem, strlen(stem) < 99 ? strlen(stem) + 1 : 100);
        stem[0] = 'c';
        stem[100] = '\0';
    }
    for (unsigned k = 1; k < 100000; k++) {
        if (k == 1)
            snprintf(out, size, "%s", stem);
        else
            snprintf(out, size, "%.90s-%u", stem, k);
        bool taken = false;
        for (size_t i = 0; i < plan->job_count && !taken; i++)
            taken = plan->jobs[i].name && strcmp(plan->jobs[i].name, out) == 0;
        if (!taken)
            return AM_OK;
    }
    return am_fail_where(err, AM_ERR_INVALID, path, "too many creatures of one name");
}

/* --- folders ----------------------------------------------------------------------------------- */

typedef struct lib_file {
    char *path;     /* absolute */
    char *dir;      /* its folder (absolute) */
    size_t root;    /* which library */
    am_batch_file_kind kind;
} lib_file;

typedef struct lib_scan {
    lib_file *files;
    size_t count, cap;
    plan_builder *b;
    const char *catalog;
    const am_batch_plan_options *opts;
} lib_scan;

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static am_status scan_dir(lib_scan *sc, const char *dir, size_t root, unsigned depth, am_error *err)
{
    if (depth > 64)
        return skip_add(sc->b, dir, "folders nested deeper than 64: not searched", err);
    DIR *d = opendir(dir);
    if (!d)
        return skip_add(sc->b, dir, strerror(errno), err);
    char **names = NULL;
    size_t count = 0, cap = 0;
    am_status s = AM_OK;
    struct dirent *e;
    while (!s && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') /* hidden files, '.', '..' and our own staging folders */
            s = strv_push(&names, &count, &cap, e->d_name, err);
    closedir(d);
    if (!s)
        qsort(names, count, sizeof *names, name_cmp);
    for (size_t i = 0; i < count && !s; i++) {
        char path[AM_BATCH_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) {
            s = skip_add(sc->b, names[i], "path too long", err);
            continue;
        }
        struct stat st;
        if (lstat(path, &st) != 0) {
            s = skip_add(sc->b, path, strerror(errno), err);
        } else if (S_ISLNK(st.st_mode)) {
            s = skip_add(sc->b, path, "a symbolic link: not followed", err);
        } else if (S_ISDIR(st.st_mode)) {
            if (strcmp(path, sc->catalog) != 0)
                s = scan_dir(sc, path, root, depth + 1, err);
        } else if (!S_ISREG(st.st_mode)) {
            s = skip_add(sc->b, path, "not a regular file", err);
        } else {
            char why[256];
            am_batch_file_kind kind = am_batch_sniff(path, why, sizeof why);
            if (kind == AM_BATCH_FILE_MODEL || kind == AM_BATCH_FILE_MOTION) {
                s = grow((void **)&sc->files, sc->count, &sc->cap, sizeof *sc->files, err);
                if (!s) {
                    lib_file *f = &sc->files[sc->count];
                    f->path = am_strdup(path);
                    f->dir = am_strdup(dir);
                    f->root = root;
                    f->kind = kind;
                    if (!f->path || !f->dir) {
                        free(f->path);
                        free(f->dir);
                        s = am_fail_nomem(err, "the batch plan");
                    } else {
                        sc->count++;
                    }
                }
            } else {
                char reason[320];
                snprintf(reason, sizeof reason, "%s%s", why,
                         kind == AM_BATCH_FILE_UNRIGGED ? ": not rigged (animesh bind binds it first)" : "");
                s = skip_add(sc->b, path, reason, err);
            }
        }
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return s;
}

/* The folder whose models a motion in `dir` belongs to: `dir` itself or the nearest folder
 * above it (within its library) that holds a model; NULL when none does. */
static const char *owner_dir(const lib_scan *sc, const lib_file *motion, const char *root_dir)
{
    char probe[AM_BATCH_PATH_MAX];
    snprintf(probe, sizeof probe, "%s", motion->dir);
    for (;;) {
        for (size_t i = 0; i < sc->count; i++)
            if (sc->files[i].kind == AM_BATCH_FILE_MODEL && sc->files[i].root == motion->root &&
                strcmp(sc->files[i].dir, probe) == 0)
                return sc->files[i].dir;
        if (strcmp(probe, root_dir) == 0)
            return NULL;
        char *slash = strrchr(probe, '/');
        if (!slash || slash == probe)
            return NULL;
        *slash = '\0';
    }
}

static am_status plan_folders(plan_builder *b, const am_batch_plan_options *opts, const char *const *option_list,
                              size_t option_count, am_error *err)
{
    lib_scan sc = {.b = b, .catalog = b->plan->catalog, .opts = opts};
    char **roots = calloc(opts->library_count ? opts->library_count : 1, sizeof *roots);
    if (!roots)
        return am_fail_nomem(err, "the batch plan");
    am_status s = AM_OK;
    for (size_t r = 0; r < opts->library_count && !s; r++) {
        roots[r] = realpath(opts->libraries[r], NULL);
        struct stat st;
        if (!roots[r] || stat(roots[r], &st) != 0 || !S_ISDIR(st.st_mode))
            s = am_fail_where(err, AM_ERR_IO, opts->libraries[r], "not a folder: %s",
                              roots[r] ? "a file" : strerror(errno));
        else {
            am_progress(opts->progress, opts->progress_user, "searching %s", roots[r]);
            s = scan_dir(&sc, roots[r], r, 0, err);
        }
    }
    /* Every model is a creature with the motions it owns. */
    for (size_t i = 0; i < sc.count && !s; i++) {
        const lib_file *m = &sc.files[i];
        if (m->kind != AM_BATCH_FILE_MODEL)
            continue;
        char name[128];
        am_batch_job *j = NULL;
        if ((s = name_from_path(b->plan, m->path, name, sizeof name, err)) || (s = job_new(b, &j, err)))
            break;
        j->name = am_strdup(name);
        j->model = am_strdup(m->path);
        if (!j->name || !j->model) {
            s = am_fail_nomem(err, "the batch plan");
            break;
        }
        size_t cap = 0;
        for (size_t k = 0; k < sc.count && !s; k++) {
            const lib_file *a = &sc.files[k];
            if (a->kind != AM_BATCH_FILE_MOTION)
                continue;
            const char *owner = owner_dir(&sc, a, roots[a->root]);
            if (owner && strcmp(owner, m->dir) == 0 && a->root == m->root)
                s = strv_push(&j->motions, &j->motion_count, &cap, a->path, err);
        }
        if (!s)
            s = job_set_options(j, option_list, option_count, err);
    }
    for (size_t k = 0; k < sc.count && !s; k++)
        if (sc.files[k].kind == AM_BATCH_FILE_MOTION && !owner_dir(&sc, &sc.files[k], roots[sc.files[k].root]))
            s = skip_add(b, sc.files[k].path, "a motion with no model in its folder or any folder above it", err);
    for (size_t i = 0; i < sc.count; i++) {
        free(sc.files[i].path);
        free(sc.files[i].dir);
    }
    free(sc.files);
    for (size_t r = 0; r < opts->library_count; r++)
        free(roots[r]);
    free(roots);
    return s;
}

/* --- the manifest ------------------------------------------------------------------------------- */

/* A manifest path: relative to the manifest's folder; must exist. */
static am_status manifest_path(const char *base, const char *value, const char *where, char **out, am_error *err)
{
    char joined[AM_BATCH_PATH_MAX];
    if (value[0] == '/')
        snprintf(joined, sizeof joined, "%s", value);
    else if (snprintf(joined, sizeof joined, "%s/%s", base, value) >= (int)sizeof joined)
        return am_fail_where(err, AM_ERR_INVALID, where, "path too long");
    *out = realpath(joined, NULL);
    if (!*out)
        return am_fail_where(err, AM_ERR_INVALID, where, "'%s': %s", value, strerror(errno));
    return AM_OK;
}

static am_status manifest_strings(json_t *arr, const char *where, const char ***out, size_t *count, am_error *err)
{
    *out = NULL;
    *count = 0;
    if (!arr)
        return AM_OK;
    if (!json_is_array(arr))
        return am_fail_where(err, AM_ERR_INVALID, where, "expected an array of strings");
    size_t n = json_array_size(arr);
    const char **v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return am_fail_nomem(err, "the manifest");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_string(e) || json_string_length(e) == 0) {
            free(v);
            return am_fail_where(err, AM_ERR_INVALID, where, "[%zu]: expected a non-empty string", i);
        }
        v[i] = json_string_value(e);
    }
    *out = v;
    *count = n;
    return AM_OK;
}

bool am_batch_field_known(const char *key, const char *const *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, allowed[i]) == 0)
            return true;
    return false;
}

static am_status manifest_keys(json_t *obj, const char *const *allowed, size_t n, const char *where, am_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        if (!am_batch_field_known(k, allowed, n))
            return am_fail_where(err, AM_ERR_INVALID, where, "unknown field '%s' (docs/batch.md lists the manifest's)",
                                 k);
    }
    return AM_OK;
}

static am_status manifest_creature(plan_builder *b, json_t *c, size_t index, const char *base, const char *const *def_opts,
                                   size_t def_count, const char *def_region, const char *file, am_error *err)
{
    static const char *const fields[] = {"name", "model", "motions", "options", "map", "region", "position"};
    char where[1200];
    snprintf(where, sizeof where, "%s: creatures[%zu]", file, index);
    if (!json_is_object(c))
        return am_fail_where(err, AM_ERR_INVALID, where, "expected an object");
    am_status s = manifest_keys(c, fields, sizeof fields / sizeof *fields, where, err);
    if (s)
        return s;
    json_t *model = json_object_get(c, "model");
    char field[1300];
    snprintf(field, sizeof field, "%s.model", where);
    if (!json_is_string(model))
        return am_fail_where(err, AM_ERR_INVALID, field, "required: the model file (a string)");
    am_batch_job *j = NULL;
    if ((s = job_new(b, &j, err)))
        return s;
    if ((s = manifest_path(base, json_string_value(model), field, &j->model, err)))
        return s;
    char why[256];
    am_batch_file_kind kind = am_batch_sniff(j->model, why, sizeof why);
    if (kind != AM_BATCH_FILE_MODEL)
        return am_fail_where(err, AM_ERR_INVALID, field, "'%s' is not a rigged model: %s", json_string_value(model),
                             why);
    json_t *name = json_object_get(c, "name");
    snprintf(field, sizeof field, "%s.name", where);
    char generated[128];
    if (name) {
        if (!json_is_string(name) || !am_batch_name_ok(json_string_value(name)))
            return am_fail_where(err, AM_ERR_INVALID, field,
                                 "1-100 characters from A-Z a-z 0-9 _ - . (it names the files), not starting with . or -");
        for (size_t i = 0; i + 1 < b->plan->job_count; i++)
            if (strcmp(b->plan->jobs[i].name, json_string_value(name)) == 0)
                return am_fail_where(err, AM_ERR_INVALID, field, "'%s' names an earlier creature too",
                                     json_string_value(name));
        j->name = am_strdup(json_string_value(name));
    } else {
        if ((s = name_from_path(b->plan, j->model, generated, sizeof generated, err)))
            return s;
        j->name = am_strdup(generated);
    }
    if (!j->name)
        return am_fail_nomem(err, "the manifest");
    const char **list = NULL;
    size_t count = 0, cap = 0;
    snprintf(field, sizeof field, "%s.motions", where);
    if ((s = manifest_strings(json_object_get(c, "motions"), field, &list, &count, err)))
        return s;
    for (size_t i = 0; i < count && !s; i++) {
        /* FILE[:CLIP]: the clip stays as written, the file is resolved. */
        char ref[AM_BATCH_PATH_MAX], item[1400];
        snprintf(ref, sizeof ref, "%s", list[i]);
        snprintf(item, sizeof item, "%s[%zu]", field, i);
        const char *clip = NULL;
        char *colon = strrchr(ref, ':');
        char probe[AM_BATCH_PATH_MAX];
        snprintf(probe, sizeof probe, "%s/%s", base, ref);
        if (colon && access(ref[0] == '/' ? ref : probe, F_OK) != 0) {
            *colon = '\0';
            clip = colon + 1;
        }
        char *abs = NULL;
        if ((s = manifest_path(base, ref, item, &abs, err)))
            break;
        am_batch_file_kind mk = am_batch_sniff(abs, why, sizeof why);
        if (mk != AM_BATCH_FILE_MOTION && mk != AM_BATCH_FILE_MODEL) {
            s = am_fail_where(err, AM_ERR_INVALID, item, "'%s' is not a motion: %s", list[i], why);
            free(abs);
            break;
        }
        char full[AM_BATCH_PATH_MAX + 200];
        snprintf(full, sizeof full, "%s%s%s", abs, clip ? ":" : "", clip ? clip : "");
        free(abs);
        s = strv_push(&j->motions, &j->motion_count, &cap, full, err);
    }
    free(list);
    if (s)
        return s;
    snprintf(field, sizeof field, "%s.options", where);
    json_t *opt = json_object_get(c, "options");
    if ((s = manifest_strings(opt, field, &list, &count, err)))
        return s;
    s = opt ? options_check(list, count, field, err) : AM_OK;
    if (!s)
        s = opt ? job_set_options(j, list, count, err) : job_set_options(j, def_opts, def_count, err);
    free(list);
    if (s)
        return s;
    json_t *map = json_object_get(c, "map");
    snprintf(field, sizeof field, "%s.map", where);
    if (map && (!json_is_string(map) || (s = manifest_path(base, json_string_value(map), field, &j->map, err))))
        return s ? s : am_fail_where(err, AM_ERR_INVALID, field, "expected the joint map's file (a string)");
    json_t *region = json_object_get(c, "region");
    snprintf(field, sizeof field, "%s.region", where);
    if (region && (!json_is_string(region) || json_string_length(region) == 0))
        return am_fail_where(err, AM_ERR_INVALID, field, "expected a region name (a string)");
    const char *rname = region ? json_string_value(region) : def_region;
    if (rname && !(j->region = am_strdup(rname)))
        return am_fail_nomem(err, "the manifest");
    json_t *pos = json_object_get(c, "position");
    snprintf(field, sizeof field, "%s.position", where);
    if (pos) {
        if (!json_is_array(pos) || json_array_size(pos) != 3)
            return am_fail_where(err, AM_ERR_INVALID, field, "expected [x, y, z] in region metres");
        for (size_t k = 0; k < 3; k++) {
            json_t *v = json_array_get(pos, k);
            double x = json_number_value(v);
            if (!json_is_number(v) || !(x >= 0 && x <= 10000))
                return am_fail_where(err, AM_ERR_INVALID, field, "[%zu]: expected a number of metres, 0..10000", k);
            j->position[k] = x;
        }
        j->has_position = true;
    }
    return AM_OK;
}

static am_status plan_manifest(plan_builder *b, const char *manifest, const char *const *cli_opts, size_t cli_count,
                               am_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    static const am_file_format format = {"a batch manifest (JSON)", (size_t)64 << 20, NULL};
    am_status s = am_read_file_as(manifest, &format, &data, &size, err);
    if (s)
        return s;
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    free(data);
    if (!root)
        return am_fail_where(err, AM_ERR_INVALID, manifest, "line %d, column %d: %s", jerr.line, jerr.column,
                             jerr.text);
    static const char *const fields[] = {"animesh_batch_manifest", "options", "region", "creatures"};
    char *dir = realpath(manifest, NULL);
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
    }
    const char **def = NULL;
    size_t def_count = 0;
    char field[1200];
    json_t *creatures = json_object_get(root, "creatures");
    if (!dir)
        s = am_fail_nomem(err, "the manifest");
    else if (!json_is_object(root))
        s = am_fail_where(err, AM_ERR_INVALID, manifest, "expected an object with \"creatures\"");
    else if (!(s = manifest_keys(root, fields, sizeof fields / sizeof *fields, manifest, err))) {
        json_t *region = json_object_get(root, "region");
        snprintf(field, sizeof field, "%s: options", manifest);
        if (region && !json_is_string(region))
            s = am_fail_where(err, AM_ERR_INVALID, manifest, "region: expected a region name (a string)");
        else if (!(s = manifest_strings(json_object_get(root, "options"), field, &def, &def_count, err)) &&
                 !(s = options_check(def, def_count, field, err)) && !json_is_array(creatures))
            s = am_fail_where(err, AM_ERR_INVALID, manifest, "creatures: required, an array of creatures");
        const char *const *opts = def ? def : cli_opts;
        size_t opt_count = def ? def_count : cli_count;
        for (size_t i = 0; !s && i < json_array_size(creatures); i++)
            s = manifest_creature(b, json_array_get(creatures, i), i, dir, opts, opt_count,
                                  region ? json_string_value(region) : NULL, manifest, err);
    }
    free(def);
    free(dir);
    json_decref(root);
    return s;
}

/* --- writing and reading plan.json ----------------------------------------------------------- */

static json_t *strv_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_string(v[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

am_status am_batch_plan_save(const am_batch_plan *plan, am_error *err)
{
    json_t *root = json_object(), *jobs = json_array(), *skipped = json_array();
    bool ok = root && jobs && skipped;
    ok = ok && json_object_set_new(root, "animesh_batch_plan", json_integer(1)) == 0 &&
         json_object_set_new(root, "version", json_string(plan->version)) == 0 &&
         json_object_set_new(root, "skeleton", json_string(plan->skeleton)) == 0;
    for (size_t i = 0; ok && i < plan->job_count; i++) {
        const am_batch_job *j = &plan->jobs[i];
        json_t *o = json_object();
        ok = o && json_object_set_new(o, "name", json_string(j->name)) == 0 &&
             json_object_set_new(o, "model", json_string(j->model)) == 0 &&
             json_object_set_new(o, "motions", strv_json(j->motions, j->motion_count)) == 0 &&
             json_object_set_new(o, "options", strv_json(j->options, j->option_count)) == 0 &&
             json_object_set_new(o, "map", j->map ? json_string(j->map) : json_null()) == 0 &&
             json_object_set_new(o, "region", j->region ? json_string(j->region) : json_null()) == 0 &&
             json_object_set_new(o, "position",
                                 j->has_position
                                     ? json_pack("[fff]", j->position[0], j->position[1], j->position[2])
                                     : json_null()) == 0 &&
             json_object_set_new(o, "key", json_string(j->key)) == 0;
        if (o && json_array_append_new(jobs, o) != 0)
            ok = false;
    }
    for (size_t i = 0; ok && i < plan->skip_count; i++)
        ok = json_array_append_new(skipped, json_pack("{s:s,s:s}", "path", plan->skipped[i].path, "reason",
                                                      plan->skipped[i].reason)) == 0;
    ok = ok && json_object_set(root, "jobs", jobs) == 0 && json_object_set(root, "skipped", skipped) == 0;
    char *text = ok ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(jobs);
    json_decref(skipped);
    json_decref(root);
    if (!text)
        return am_fail_nomem(err, "the batch plan's JSON");
    char path[AM_BATCH_PATH_MAX];
    am_status s = am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_PLAN_FILE, NULL)
                      ? am_write_file_atomic(path, text, strlen(text), err)
                      : am_fail_where(err, AM_ERR_INVALID, plan->catalog, "the catalogue's path is too long");
    free(text);
    return s;
}

/* plan.json is read with the one-pass reader (core/jsonlex.h): no tree, so a plan of 100,000
 * jobs loads in a fraction of what jansson's objects take. */
/* An array of strings into *out (a field given twice keeps the last: the first is freed). */
static am_status lex_strv(am_jlex *l, char ***out, size_t *count, am_error *err)
{
    for (size_t i = 0; i < *count; i++)
        free((*out)[i]);
    free(*out);
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    am_status s = am_jlex_expect(l, '[');
    for (size_t i = 0; !s && am_jlex_more(l, ']', i, &s); i++)
        if (!(s = am_jlex_string(l)))
            s = strv_push(out, count, &cap, l->str, err);
    return s;
}

/* A string or null into *out (NULL for null); a field given twice keeps the last. */
static am_status lex_optional(am_jlex *l, char **out, am_error *err)
{
    free(*out);
    *out = NULL;
    if (am_jlex_peek(l) == 'n') {
        bool b, is_null = false;
        am_status s = am_jlex_literal(l, &b, &is_null);
        return s ? s : is_null ? AM_OK : am_jlex_fail(l, "expected a string or null");
    }
    am_status s = am_jlex_string(l);
    if (!s && !(*out = am_strdup(l->str)))
        s = am_fail_nomem(err, "the batch plan");
    return s;
}

static am_status lex_job(am_jlex *l, am_batch_job *j, am_error *err)
{
    am_status s = am_jlex_expect(l, '{');
    for (size_t i = 0; !s && am_jlex_more(l, '}', i, &s); i++) {
        if ((s = am_jlex_key(l)))
            break;
        char key[16];
        snprintf(key, sizeof key, "%s", l->str);
        if (strcmp(key, "name") == 0)
            s = lex_optional(l, &j->name, err);
        else if (strcmp(key, "model") == 0)
            s = lex_optional(l, &j->model, err);
        else if (strcmp(key, "map") == 0)
            s = lex_optional(l, &j->map, err);
        else if (strcmp(key, "region") == 0)
            s = lex_optional(l, &j->region, err);
        else if (strcmp(key, "motions") == 0)
            s = lex_strv(l, &j->motions, &j->motion_count, err);
        else if (strcmp(key, "options") == 0)
            s = lex_strv(l, &j->options, &j->option_count, err);
        else if (strcmp(key, "key") == 0) {
            if (!(s = am_jlex_string(l)) && l->str_len == 64)
                memcpy(j->key, l->str, 65);
        } else if (strcmp(key, "position") == 0 && am_jlex_peek(l) == '[') {
            s = am_jlex_expect(l, '[');
            size_t k = 0;
            for (; !s && am_jlex_more(l, ']', k, &s); k++) {
                am_jnum n;
                if (!(s = am_jlex_number(l, &n)) && k < 3)
                    j->position[k] = n.d;
            }
            j->has_position = !s && k == 3;
        } else {
            s = am_jlex_skip(l);
        }
    }
    return s;
}

static am_status lex_plan(am_jlex *l, am_batch_plan *plan, const char *path, am_error *err)
{
    size_t job_cap = 0;
    plan_builder b = {plan, 0, 0};
    am_status s = am_jlex_expect(l, '{');
    for (size_t i = 0; !s && am_jlex_more(l, '}', i, &s); i++) {
        if ((s = am_jlex_key(l)))
            break;
        if (strcmp(l->str, "skeleton") == 0) {
            s = lex_optional(l, &plan->skeleton, err);
        } else if (strcmp(l->str, "version") == 0) {
            s = lex_optional(l, &plan->version, err);
        } else if (strcmp(l->str, "jobs") == 0) {
            s = am_jlex_expect(l, '[');
            for (size_t k = 0; !s && am_jlex_more(l, ']', k, &s); k++) {
                if ((s = grow((void **)&plan->jobs, plan->job_count, &job_cap, sizeof *plan->jobs, err)))
                    break;
                am_batch_job *j = &plan->jobs[plan->job_count++];
                memset(j, 0, sizeof *j);
                s = lex_job(l, j, err);
                if (!s && (!j->name || !am_batch_name_ok(j->name) || !j->model || strlen(j->key) != 64))
                    s = am_fail_where(err, AM_ERR_INVALID, path, "jobs[%zu]: name, model or key missing or invalid", k);
            }
        } else if (strcmp(l->str, "skipped") == 0) {
            s = am_jlex_expect(l, '[');
            for (size_t k = 0; !s && am_jlex_more(l, ']', k, &s); k++) {
                char *spath = NULL, *reason = NULL;
                s = am_jlex_expect(l, '{');
                for (size_t m = 0; !s && am_jlex_more(l, '}', m, &s); m++) {
                    if ((s = am_jlex_key(l)))
                        break;
                    char **slot = strcmp(l->str, "path") == 0 ? &spath : strcmp(l->str, "reason") == 0 ? &reason : NULL;
                    s = slot && !*slot ? lex_optional(l, slot, err) : am_jlex_skip(l);
                }
                if (!s && spath && reason)
                    s = skip_add(&b, spath, reason, err);
                free(spath);
                free(reason);
            }
        } else {
            s = am_jlex_skip(l);
        }
    }
    if (!s)
        s = am_jlex_end(l);
    if (!s && (!plan->skeleton || !plan->version))
        s = am_fail_where(err, AM_ERR_INVALID, path, "not a batch plan (plan it again: animesh batch plan)");
    return s;
}

am_status am_batch_plan_load(const char *catalog, am_batch_plan *plan, am_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->catalog = realpath(catalog, NULL);
    if (!plan->catalog)
        return am_fail_where(err, AM_ERR_IO, catalog, "no catalogue here: %s (animesh batch plan makes one)",
                             strerror(errno));
    char path[AM_BATCH_PATH_MAX];
    if (!am_batch_path(path, sizeof path, plan->catalog, AM_BATCH_PLAN_FILE, NULL)) {
        am_batch_plan_free(plan);
        return am_fail_where(err, AM_ERR_INVALID, catalog, "the catalogue's path is too long");
    }
    uint8_t *data = NULL;
    size_t size = 0;
    static const am_file_format format = {"a batch plan (JSON)", (size_t)1 << 30, NULL};
    am_status s = am_read_file_as(path, &format, &data, &size, err);
    if (s) {
        am_batch_plan_free(plan);
        if (s == AM_ERR_IO)
            am_error_where(err, "not a catalogue (animesh batch plan makes one)");
        return s;
    }
    char *catalog_path = plan->catalog;
    plan->catalog = NULL;
    s = am_batch_plan_parse(catalog_path, data, size, path, plan, err);
    free(catalog_path);
    free(data);
    return s;
}

am_status am_batch_plan_parse(const char *catalog, const uint8_t *data, size_t size, const char *source,
                              am_batch_plan *plan, am_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (!(plan->catalog = am_strdup(catalog)))
        return am_fail_nomem(err, "the batch plan");
    am_jlex l;
    am_jlex_from_mem(&l, (const char *)data, size, source, err);
    am_status s = lex_plan(&l, plan, source, err);
    am_jlex_free(&l);
    if (s)
        am_batch_plan_free(plan);
    return s;
}

/* --- planning ---------------------------------------------------------------------------------- */

/* Keys, then duplicates: a job with the same inputs (bytes, motions, options) as an earlier
 * one, under another name, is dropped into the skipped list. */
static am_status keys_and_duplicates(plan_builder *b, am_batch_hash_cache *cache, am_error *err)
{
    am_batch_plan *p = b->plan;
    char (*content)[65] = calloc(p->job_count ? p->job_count : 1, sizeof *content);
    if (!content)
        return am_fail_nomem(err, "the batch plan");
    am_status s = AM_OK;
    size_t kept = 0;
    for (size_t i = 0; i < p->job_count && !s; i++) {
        am_batch_job *j = &p->jobs[i];
        char *name = j->name;
        j->name = (char *)"";
        s = am_batch_key_with(p, j, cache, content[kept], err);
        j->name = name;
        if (!s)
            s = am_batch_key_with(p, j, cache, j->key, err);
        if (s)
            break;
        size_t dup = kept;
        for (size_t k = 0; k < kept && dup == kept; k++)
            if (strcmp(content[k], content[kept]) == 0)
                dup = k;
        if (dup < kept) {
            char reason[300];
            snprintf(reason, sizeof reason, "the same model, motions and options as creature '%.100s'",
                     p->jobs[dup].name);
            s = skip_add(b, j->model, reason, err);
            job_free(j);
            continue;
        }
        if (kept != i)
            p->jobs[kept] = *j;
        kept++;
    }
    if (!s)
        p->job_count = kept;
    free(content);
    return s;
}

am_status am_batch_plan_make(const char *catalog, const am_batch_plan_options *opts, am_batch_plan *plan,
                             am_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (!opts->library_count && !opts->manifest)
        return am_fail(err, AM_ERR_USAGE, "nothing to plan: give library folders or a manifest");
    if (!opts->skeleton)
        return am_fail(err, AM_ERR_USAGE, "the viewer skeleton file is required");
    am_status s = am_mkdir_p(catalog, err);
    if (s)
        return s;
    plan->catalog = realpath(catalog, NULL);
    plan->skeleton = realpath(opts->skeleton, NULL);
    plan->version = am_strdup(AM_VERSION);
    if (!plan->catalog || !plan->skeleton || !plan->version) {
        s = !plan->skeleton ? am_fail_where(err, AM_ERR_IO, opts->skeleton, "%s", strerror(errno))
                            : am_fail_nomem(err, "the batch plan");
        am_batch_plan_free(plan);
        return s;
    }
    const char *const *option_list = opts->options ? opts->options : default_options;
    size_t option_count = opts->options ? opts->option_count : sizeof default_options / sizeof *default_options;
    s = options_check(option_list, option_count, "the jobs' options", err);
    plan_builder b = {plan, 0, 0};
    if (!s && opts->manifest)
        s = plan_manifest(&b, opts->manifest, option_list, option_count, err);
    if (!s && opts->library_count)
        s = plan_folders(&b, opts, option_list, option_count, err);
    am_batch_hash_cache cache;
    memset(&cache, 0, sizeof cache);
    if (!s)
        s = am_batch_hash_cache_load(&cache, plan->catalog, err);
    if (!s) {
        am_progress(opts->progress, opts->progress_user, "hashing the inputs of %zu creatures", plan->job_count);
        s = keys_and_duplicates(&b, &cache, err);
    }
    if (!s)
        s = am_batch_hash_cache_save(&cache, plan->catalog, err);
    am_batch_hash_cache_free(&cache);
    if (!s)
        s = am_batch_plan_save(plan, err);
    if (s)
        am_batch_plan_free(plan);
    return s;
}
