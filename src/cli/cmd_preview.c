/* animesh preview DIR|ASSET.llmesh [--anim A.anim ...] [-o NAME.preview.html]: the browser
 * preview page (src/preview/preview.h, docs/preview.md). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/outset.h"
#include "core/io.h"
#include "preview/preview.h"
#include "report/report.h"

static const char *help =
    "usage: animesh preview DIR|ASSET.llmesh|MODEL [--anim A.anim ...] [-o NAME.preview.html]\n"
    "                       [--title NAME] [--skeleton FILE]\n\n"
    "Write one self-contained HTML page that plays the creature in a browser exactly as the\n"
    "viewer poses it: the joint matrices come from the bench (the viewer's FK of the WRITTEN\n"
    ".llmesh and .anim files, at every key time and 30 fps between); the page only blends\n"
    "them with the asset's decoded weights. It works from file://, offline, and makes no\n"
    "request. Play/pause, scrub, speed, loop markers, clips, orbit/pan/zoom, front/side/top,\n"
    "metre grid and height, LODs with triangles and the viewer's estimate, joints and names,\n"
    "weight and strain heat maps, wireframe, one colour per part, the texture (press ?).\n\n"
    "  DIR              every *.llmesh in DIR is a part of the creature (sorted by name),\n"
    "                   every *.anim a clip (unless --anim is given)\n"
    "  ASSET.llmesh     one mesh asset\n"
    "  MODEL            any file 'animesh import' takes (COLLADA, glTF, FBX ...): its parts\n"
    "                   as import would write them (import's own route), built in memory\n"
    "  --anim A.anim    a clip (repeatable); its stem is the clip's name\n"
    "  -o, --out FILE   the page (default: NAME.preview.html in the current folder, NAME\n"
    "                   the title; never into DIR unless -o names it); written atomically\n"
    "  --title NAME     the creature's name (default: the first part's stem)\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml\n\n"
    "A folder's inputs are read as files a model refers to: a symbolic link that leads out\n"
    "of DIR is refused. The page keeps to a size budget (at most 30 frames per second of\n"
    "clip, 32 clips, 300 s of clip, textures at the upload's size); what it reduced, it says\n"
    "(docs/preview.md).\n\n"
    "Hooks for tests: NAME.preview.html#selftest=CLIP@T and #shot=side&clip=CLIP&t=T\n"
    "(docs/preview.md).\n\n"
    "Exit codes: 0 written, 1 invalid input, 2 usage, 3 I/O error.\n";

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* DIR/NAME for every entry of DIR ending in suffix, sorted (malloc'd strings). */
static am_status list_dir(const char *dir, const char *suffix, char ***out, size_t *n, am_error *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return am_fail_where(err, AM_ERR_IO, dir, "cannot open the folder");
    size_t cap = 0;
    am_status s = AM_OK;
    struct dirent *e;
    while (!s && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            char **g = realloc(*out, cap * sizeof *g);
            if (!g) {
                s = am_fail_nomem(err, "file list");
                break;
            }
            *out = g;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!((*out)[*n] = malloc(len)))
            s = am_fail_nomem(err, "file list");
        else
            snprintf((*out)[(*n)++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_str);
    return s;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* A model file (not a mesh asset): its parts as import would write them (report.h:
 * import's own route), the --anim files as its clips. */
static am_status preview_model(const char *path, const char *title, const char *const *anim_paths, size_t na,
                               const am_skeleton *skel, am_buf *page, am_preview_stats *st, size_t *parts_out,
                               am_error *err)
{
    am_report_part *rp = NULL;
    size_t np = 0;
    am_string what = {0};
    am_bind_frame frame = {0, 0, 0};
    am_status s = am_report_model_parts(path, skel, &frame, &rp, &np, &what, err);
    if (!s)
        fprintf(stderr, "animesh preview: %s: %s\n", path, am_str(&what));
    am_string_free(&what);
    if (s)
        return s;
    am_preview_part *parts = calloc(np ? np : 1, sizeof *parts);
    am_preview_clip *clips = calloc(na ? na : 1, sizeof *clips);
    uint8_t **bytes = calloc(na ? na : 1, sizeof *bytes);
    char (*names)[128] = calloc(na ? na : 1, sizeof *names);
    if (!parts || !clips || !bytes || !names)
        s = am_fail_nomem(err, "preview");
    for (size_t i = 0; !s && i < np; i++)
        parts[i] = (am_preview_part){am_str(&rp[i].name), rp[i].asset.data, rp[i].asset.size, NULL, 0, path};
    for (size_t i = 0; !s && i < na; i++) {
        size_t n = 0;
        s = am_read_file(anim_paths[i], &bytes[i], &n, err);
        const char *base = strrchr(anim_paths[i], '/');
        snprintf(names[i], sizeof names[i], "%s", base ? base + 1 : anim_paths[i]);
        char *dot = strrchr(names[i], '.');
        if (dot && dot != names[i])
            *dot = '\0';
        clips[i] = (am_preview_clip){names[i], bytes[i], n, anim_paths[i]};
    }
    if (!s) {
        const char *stem = strrchr(path, '/');
        char def[128];
        snprintf(def, sizeof def, "%s", stem ? stem + 1 : path);
        char *dot = strrchr(def, '.');
        if (dot && dot != def)
            *dot = '\0';
        am_preview_input in = {title ? title : def, parts, np, clips, na, skel, 0};
        s = am_preview_write(&in, page, st, err);
    }
    *parts_out = np;
    for (size_t i = 0; bytes && i < na; i++)
        free(bytes[i]);
    free(bytes);
    free(names);
    free(clips);
    free(parts);
    am_report_parts_free(rp, np);
    return s;
}

int am_cmd_preview(int argc, char **argv)
{
    const char *out_path = NULL, *skel_path = NULL, *title = NULL;
    const char **anims = calloc((size_t)argc + 1, sizeof *anims);
    size_t anim_count = 0;
    static const am_cli_opt opts[] = {
        {"anim", required_argument, 'a', 0},     {"out", required_argument, 'o', 'o'},
        {"title", required_argument, 't', 0},    {"skeleton", required_argument, 's', 0},
        {"help", no_argument, 'h', 'h'}};
    if (!anims) {
        fputs("animesh: out of memory\n", stderr);
        return AM_EXIT_INVALID;
    }
    if (am_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        free(anims);
        return AM_EXIT_OK;
    }
    int c;
    am_cli_opts op; /* help NULL: only an exact -h/--help is help (above); "-hx", "--hel" are refused */
    am_cli_opts_begin(&op, "preview", NULL, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'a': anims[anim_count++] = op.arg; break;
        case 'o': out_path = op.arg; break;
        case 't': title = op.arg; break;
        case 's': skel_path = op.arg; break;
        case 'h':
            free(anims);
            return am_cli_usage("preview", "unknown or incomplete option '%s'", argv[op.first - 1]);
        }
    }
    if (c == AM_CLI_OPTS_STOP) {
        free(anims);
        return op.rc;
    }
    if (op.first + 1 != argc) {
        free(anims);
        return op.first == argc ? am_cli_usage("preview", "missing DIR or ASSET.llmesh")
                              : am_cli_usage("preview", "unexpected argument '%s'", argv[op.first + 1]);
    }
    const char *input = argv[op.first];
    am_error err;
    am_error_clear(&err);
    char **meshes = NULL, **dir_anims = NULL;
    size_t mesh_count = 0, dir_anim_count = 0;
    char one[1] = {0};
    char *single[1] = {one};
    struct stat sb;
    bool is_dir = stat(input, &sb) == 0 && S_ISDIR(sb.st_mode);
    am_status s = AM_OK;
    if (is_dir) {
        s = list_dir(input, ".llmesh", &meshes, &mesh_count, &err);
        if (!s && !anim_count)
            s = list_dir(input, ".anim", &dir_anims, &dir_anim_count, &err);
        if (!s && !mesh_count)
            s = am_fail_where(&err, AM_ERR_INVALID, input, "no .llmesh in the folder");
    } else {
        single[0] = (char *)input;
    }
    const char *const *mesh_paths = is_dir ? (const char *const *)meshes : (const char *const *)single;
    if (!is_dir)
        mesh_count = 1;
    const char *const *anim_paths = anim_count ? anims : (const char *const *)dir_anims;
    size_t na = anim_count ? anim_count : dir_anim_count;
    am_skeleton skel;
    bool have_skel = false;
    am_buf page = {0};
    am_preview_stats st;
    if (!s && !(s = am_cli_load_skeleton(skel_path, &skel, &err))) {
        have_skel = true;
        if (!is_dir && !am_report_is_mesh_asset(input))
            s = preview_model(input, title, anim_paths, na, &skel, &page, &st, &mesh_count, &err);
        else
            s = am_preview_write_files(title, is_dir ? input : NULL, mesh_paths, mesh_count, anim_paths, na, &skel,
                                       &page, &st, &err);
    }
    /* default: NAME.preview.html in the current folder (NAME the title, else the first
     * part's stem): the input folder is written into only when -o says so, and a name
     * there that would not be a plain file name is refused */
    char def[1200];
    if (!s && !out_path) {
        const char *base = title;
        if (!base) {
            base = strrchr(mesh_paths[0], '/');
            base = base ? base + 1 : mesh_paths[0];
        }
        snprintf(def, sizeof def, "%s", base);
        if (!title && ends_with(def, ".llmesh"))
            def[strlen(def) - strlen(".llmesh")] = '\0';
        else if (!is_dir) { /* MODEL.glb -> MODEL.preview.html */
            char *dot = strrchr(def, '.'), *slash = strrchr(def, '/');
            if (dot && (!slash || dot > slash + 1))
                *dot = '\0';
        }
        strncat(def, ".preview.html", sizeof def - strlen(def) - 1);
        if (strchr(def, '/') || def[0] == '.')
            s = am_fail(&err, AM_ERR_USAGE, "the page's default name '%s' is not a plain file name: give -o", def);
        out_path = def;
    }
    if (!s) {
        /* one output set of one file: a temp beside it, renamed when complete */
        char dir[1200], name[256];
        const char *slash = strrchr(out_path, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out_path) : 1, slash ? out_path : ".");
        if (slash && slash == out_path)
            snprintf(dir, sizeof dir, "/");
        snprintf(name, sizeof name, "%s", slash ? slash + 1 : out_path);
        const char *names[] = {name};
        am_outset *set = NULL;
        if (!(s = am_outset_begin(&set, dir, names, 1, &err)) && !(s = am_outset_add(set, name, page.data, page.size, &err)))
            s = am_outset_commit(set, &err);
        for (size_t i = 0; am_outset_warning(set, i); i++)
            fprintf(stderr, "animesh: warning: %s\n", am_outset_warning(set, i));
        am_outset_free(set);
    }
    int rc = AM_EXIT_OK;
    if (s) {
        rc = am_cli_report(&err);
    } else {
        printf("wrote %s: %zu bytes (%zu part%s, %zu high-LOD triangles, %zu clip%s, %.2f s, %zu frames; data %zu bytes, "
               "deflated %zu)\n",
               out_path, st.page_bytes, mesh_count, mesh_count == 1 ? "" : "s", st.high_triangles, na, na == 1 ? "" : "s",
               st.clip_seconds, st.frames, st.data_bytes, st.packed_bytes);
        if (st.clips_resampled || st.clips_left_out || st.textures_resized)
            printf("reduced to the page's size budget (the page says so): %zu clip%s resampled at 30 fps, %zu clip%s "
                   "left out, %zu texture%s resized as the upload is\n",
                   st.clips_resampled, st.clips_resampled == 1 ? "" : "s", st.clips_left_out,
                   st.clips_left_out == 1 ? "" : "s", st.textures_resized, st.textures_resized == 1 ? "" : "s");
    }
    am_buf_free(&page);
    if (have_skel)
        am_skeleton_free(&skel);
    free_list(meshes, mesh_count * is_dir);
    free_list(dir_anims, dir_anim_count);
    free(anims);
    return rc;
}
