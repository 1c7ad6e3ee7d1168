/* The import plan: options, THE route decision, findings, motions (import.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "anim/anim.h"
#include "core/text.h"
#include "anim/bvh.h"
#include "map/map_bvh.h"
#include "readers/bvh/bvh_scene.h"
#include "import/import.h"
#include "retarget/motion_file.h"
#include "readers/scene_load.h"

const char *am_import_route_name(am_import_route route)
{
    return route == AM_IMPORT_RETARGET ? "retarget" : "faithful";
}

void am_import_options_init(am_import_options *opts)
{
    memset(opts, 0, sizeof *opts);
    am_skin_options_init(&opts->skin);
    am_retarget_options_init(&opts->retarget);
    opts->oar_position[0] = 128;
    opts->oar_position[1] = 128;
    opts->oar_position[2] = 25;
}

void am_import_findings_push(am_import_finding **list, size_t *count, size_t *cap, const char *code, const char *fmt,
                             va_list ap)
{
    if (*count == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        am_import_finding *nf = realloc(*list, nc * sizeof *nf);
        if (!nf)
            return;
        *list = nf;
        *cap = nc;
    }
    /* the text quotes file text: control characters shown as \xNN (core/text.h), 4 bytes
     * at most for each */
    am_string raw = {0};
    if (!am_string_vsetf(&raw, fmt, ap))
        return;
    size_t size = raw.length * 4 + 8;
    char *shown = malloc(size);
    am_import_finding f = {0};
    if (shown) {
        memcpy(shown, am_str(&raw), raw.length + 1);
        am_text_escape(shown, size);
    }
    if (shown && am_string_set(&f.code, code) && am_string_set(&f.text, shown))
        (*list)[(*count)++] = f;
    else
        am_import_finding_free(&f);
    free(shown);
    am_string_free(&raw);
}

void am_import_finding_free(am_import_finding *f)
{
    am_string_free(&f->code);
    am_string_free(&f->text);
}

void am_import_motion_free(am_import_motion *m)
{
    if (!m)
        return;
    am_string_free(&m->name);
    am_string_free(&m->source);
    am_string_free(&m->clip);
    free(m->anim);
    memset(m, 0, sizeof *m);
}

bool am_import_motion_copy(am_import_motion *dst, const am_import_motion *src, bool with_anim)
{
    am_import_motion c = *src; /* the figures; texts and bytes copied below */
    c.name = c.source = c.clip = (am_string){0};
    c.anim = NULL;
    bool ok = am_string_copy(&c.name, &src->name) && am_string_copy(&c.source, &src->source) &&
              am_string_copy(&c.clip, &src->clip);
    if (ok && with_anim && src->anim) {
        c.anim = malloc(src->anim_size ? src->anim_size : 1);
        if ((ok = c.anim != NULL))
            memcpy(c.anim, src->anim, src->anim_size);
    }
    if (!ok) {
        am_import_motion_free(&c);
        memset(dst, 0, sizeof *dst);
        return false;
    }
    *dst = c;
    return true;
}

void am_import_map_entry_free(am_import_map_entry *e)
{
    am_string_free(&e->rig);
    am_string_free(&e->viewer);
    am_string_free(&e->reason);
}

void am_import_finding_add(am_import_plan *plan, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    am_import_findings_push(&plan->findings, &plan->finding_count, &plan->finding_cap, code, fmt, ap);
    va_end(ap);
}

void am_import_plan_free(am_import_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; i < plan->part_count; i++) {
        am_string_free(&plan->parts[i].name);
        am_string_free(&plan->parts[i].meshes);
        am_rig_free(&plan->parts[i].rig);
        free(plan->parts[i].joint_found);
        free(plan->parts[i].file_inverse_binds);
    }
    free(plan->parts);
    for (size_t i = 0; i < plan->texture_count; i++) {
        am_string_free(&plan->textures[i].name);
        free(plan->textures[i].path);
        free(plan->textures[i].data);
    }
    free(plan->textures);
    for (size_t i = 0; i < plan->motion_count; i++)
        am_import_motion_free(&plan->motions[i]);
    free(plan->motions);
    for (size_t i = 0; i < plan->finding_count; i++)
        am_import_finding_free(&plan->findings[i]);
    free(plan->findings);
    for (size_t i = 0; i < plan->map_count; i++)
        am_import_map_entry_free(&plan->map[i]);
    free(plan->map);
    am_string_free(&plan->name);
    am_string_free(&plan->source);
    am_string_free(&plan->format);
    am_string_free(&plan->axes);
    am_body_plan_free(&plan->body_plan);
    memset(plan, 0, sizeof *plan);
}

/* --- parts and textures (for the routes) --------------------------------------------------- */

am_import_part *am_import_part_new(am_import_plan *plan, am_error *err)
{
    am_import_part *np = realloc(plan->parts, (plan->part_count + 1) * sizeof *np);
    if (!np) {
        am_fail_nomem(err, "import parts");
        return NULL;
    }
    plan->parts = np;
    am_import_part *p = &plan->parts[plan->part_count++];
    memset(p, 0, sizeof *p);
    p->texture = -1;
    return p;
}

/* A texture's output stem: the image file's stem, or the material's name for embedded bytes. */
static void texture_stem(const char *from, size_t index, char *out, size_t size)
{
    const char *base = from ? strrchr(from, '/') : NULL;
    base = base ? base + 1 : from ? from : "";
    size_t n = strcspn(base, "."), w = 0;
    for (size_t i = 0; i < n && w + 1 < size && w < 90; i++) {
        char c = base[i];
        out[w++] = isalnum((unsigned char)c) || c == '_' || c == '-' ? c : '_';
    }
    out[w] = '\0';
    if (!out[0])
        snprintf(out, size, "texture%zu", index);
}

int am_import_texture_for(am_import_plan *plan, const am_scene_material *mat, am_status *st, am_error *err)
{
    *st = AM_OK;
    if (!mat || (!mat->image_path && !mat->image_data))
        return -1;
    bool jpeg = strcmp(am_str(&mat->image_mime), "image/jpeg") == 0;
    if (!jpeg && strcmp(am_str(&mat->image_mime), "image/png") != 0) {
        am_import_finding_add(plan, "texture_not_read",
                              "texture '%s' is neither PNG nor JPEG: not converted to .j2c (convert it, then animesh "
                              "texture)",
                              mat->image_path ? mat->image_path : mat->name ? mat->name : "(embedded)");
        return -1;
    }
    for (size_t i = 0; i < plan->texture_count; i++) {
        const am_import_texture *t = &plan->textures[i];
        if (mat->image_path ? t->path && strcmp(t->path, mat->image_path) == 0
                            : t->data && t->size == mat->image_size && memcmp(t->data, mat->image_data, t->size) == 0)
            return (int)i;
    }
    am_import_texture *nt = realloc(plan->textures, (plan->texture_count + 1) * sizeof *nt);
    if (!nt) {
        *st = am_fail_nomem(err, "textures");
        return -1;
    }
    plan->textures = nt;
    am_import_texture *t = &plan->textures[plan->texture_count];
    memset(t, 0, sizeof *t);
    snprintf(t->ext, sizeof t->ext, "%s", jpeg ? ".jpg" : ".png");
    if (mat->image_path) {
        t->path = am_strdup(mat->image_path);
    } else if ((t->data = malloc(mat->image_size ? mat->image_size : 1))) {
        memcpy(t->data, mat->image_data, mat->image_size);
        t->size = mat->image_size;
    }
    if (!t->path && !t->data) {
        *st = am_fail_nomem(err, "textures");
        return -1;
    }
    char stem[128];
    texture_stem(mat->image_path ? mat->image_path : mat->name, plan->texture_count, stem, sizeof stem);
    bool ok = am_string_set(&t->name, stem);
    /* two embedded images of one name: keep the stems apart */
    for (size_t i = 0; ok && i < plan->texture_count; i++)
        if (strcmp(am_str(&plan->textures[i].name), stem) == 0) {
            ok = am_string_setf(&t->name, "%s_%zu", stem, plan->texture_count);
            break;
        }
    plan->texture_count++; /* freed with the plan, whole or not */
    if (!ok) {
        *st = am_fail_nomem(err, "textures");
        return -1;
    }
    return (int)plan->texture_count - 1;
}

/* A file name usable as an output stem (rig names: A-Z a-z 0-9 _ - ., 1..100). */
static void stem_of(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    size_t w = 0;
    for (size_t i = 0; i < n && w + 1 < size && w < 100; i++) {
        char c = base[i];
        bool ok = isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
        out[w++] = ok ? c : '_';
    }
    out[w] = '\0';
    while (out[0] == '.' || out[0] == '-')
        out[0] = '_';
    if (!out[0])
        snprintf(out, size, "model");
}

/* Skin joint names of every skinned mesh that are not viewer joints, unique, in order. */
static size_t unknown_joints(const am_scene *s, const am_skeleton *skel, char *list, size_t size)
{
    size_t count = 0, len = 0;
    list[0] = '\0';
    for (size_t m = 0; m < s->mesh_count; m++) {
        int k = s->meshes[m].skin;
        if (k < 0)
            continue;
        for (size_t j = 0; j < s->skins[k].joint_count; j++) {
            const char *name = s->skins[k].joint_names[j];
            if (am_skeleton_find(skel, name) >= 0)
                continue;
            bool seen = false;
            for (size_t m2 = 0; m2 <= m && !seen; m2++) {
                int k2 = s->meshes[m2].skin;
                for (size_t j2 = 0; k2 >= 0 && j2 < s->skins[k2].joint_count && !seen; j2++) {
                    if (m2 == m && j2 >= j)
                        break;
                    seen = strcmp(s->skins[k2].joint_names[j2], name) == 0;
                }
            }
            if (seen)
                continue;
            if (count < 12) {
                int w = snprintf(list + len, size - len, "%s'%s'", count ? ", " : "", name);
                if (w > 0 && (size_t)w < size - len)
                    len += (size_t)w;
            }
            count++;
        }
    }
    if (count > 12 && len + 6 < size)
        snprintf(list + len, size - len, ", ...");
    return count;
}

static am_status check_anim(const am_anim *a, const am_skeleton *skel, const char *path, am_error *err);

/* The uploader's refusal of a COLLADA file whose skin names joints it does not know. */
static am_status unknown_joint_error(const char *names, size_t n, const char *tail, am_error *err)
{
    return am_fail(err, AM_ERR_INVALID,
                   "Model has an unknown joint(s): %zu skin joint%s %s not on the viewer skeleton: %s (the uploader: "
                   "\"Rigged to unrecognized joint name\", skinning disabled)%s",
                   n, n == 1 ? "" : "s", n == 1 ? "is" : "are", names, tail);
}

/* An encoded, checked motion of a retargeted clip. */
static am_status retarget_motion(const am_retarget_result *res, size_t i, const am_skeleton *skel,
                                 const char *source, am_import_motion *m, am_error *err)
{
    const am_retarget_anim *ra = &res->anims[i];
    am_buf bytes = {0};
    am_status st = am_retarget_write_anim(res, i, skel, NULL, &bytes, NULL, err);
    am_anim a;
    memset(&a, 0, sizeof a);
    if (!st && !(st = am_anim_decode(bytes.data, bytes.size, &a, err)))
        st = check_anim(&a, skel, source, err);
    if (st) {
        am_error_where(err, "clip '%s'", am_str(&ra->clip));
        am_buf_free(&bytes);
        am_anim_free(&a);
        return st;
    }
    memset(m, 0, sizeof *m);
    if (!am_string_copy(&m->name, &ra->name) ||
        !am_string_setf(&m->source, "%s clip '%s'", source, am_str(&ra->clip))) {
        am_import_motion_free(m);
        am_buf_free(&bytes);
        am_anim_free(&a);
        return am_fail_nomem(err, "motions");
    }
    m->anim = bytes.data;
    m->anim_size = bytes.size;
    m->duration_s = a.duration;
    m->loop = a.loop;
    am_anim_free(&a);
    return AM_OK;
}

am_status am_import_retarget_plan(const am_scene *scene, const am_skeleton *skel, const am_import_options *opts,
                                  am_import_plan *plan, am_error *err)
{
    char names[600];
    size_t unknown = unknown_joints(scene, skel, names, sizeof names);
    bool collada = scene->format == AM_SCENE_FORMAT_COLLADA;
    am_error_clear(err);
    if (opts->faithful_only) {
        if (collada && unknown)
            unknown_joint_error(names, unknown,
                                " (the faithful_only option: without it the file is retargeted by a joint map)", err);
        else
            am_fail(err, AM_ERR_INVALID,
                    "the faithful_only option takes COLLADA files rigged to the viewer skeleton; this %s file needs "
                    "joint mapping and retargeting (run without the faithful_only option)",
                    !am_string_empty(&scene->format_detail) ? am_str(&scene->format_detail) : "model");
        am_error_where(err, "%s", am_str(&plan->source));
        return AM_ERR_INVALID;
    }
    for (size_t i = 0; i < scene->note_count; i++) /* what the reader and the weld did, as the faithful route says */
        am_import_finding_add(plan, "reader", "%s", am_str(&scene->notes[i]));
    if (scene->notes_dropped) /* as the faithful route says it */
        am_import_finding_add(plan, "reader", "%zu more reader notes", scene->notes_dropped);
    am_retarget_options ro = opts->retarget;
    ro.name = am_str(&plan->name);
    am_retarget_result res;
    am_status st = am_retarget(scene, skel, &ro, &res, err);
    if (st) {
        if (collada && unknown) {
            /* Say first what the uploader would do, then why retargeting could not help. */
            char why[AM_ERROR_TEXT_MAX];
            am_error_format(err, why, sizeof why);
            char tail[sizeof why + 64];
            snprintf(tail, sizeof tail, "; retargeting it failed: %s", why);
            am_error_clear(err);
            unknown_joint_error(names, unknown, tail, err);
        }
        /* an error in the user's --map already names the map's file, where the fix is */
        const char *map_file = ro.map ? ro.map->source : NULL;
        if (!map_file || strcmp(err->where, map_file) != 0)
            am_error_where(err, "%s", am_str(&plan->source));
        return st;
    }
    if (collada && unknown)
        am_import_finding_add(plan, "unknown_joints",
                              "the viewer's uploader refuses this file (Model has an unknown joint(s): %s): it is "
                              "retargeted onto the viewer skeleton instead (the faithful_only option refuses it)",
                              names);
    if (!am_string_set(&plan->axes, res.axes.report) ||
        !am_body_plan_classify(scene, &res.body, &res.axes, &res.suggestion, skel, &plan->body_plan)) {
        am_retarget_result_free(&res);
        return am_fail_nomem(err, "import plan");
    }
    am_import_finding_add(plan, "body_plan", "body plan: %s (%s)", am_body_plan_label(plan->body_plan.kind),
                          am_str(&plan->body_plan.evidence));
    am_import_finding_add(plan, "axes", "%s", res.axes.report);
    for (size_t i = 0; i < res.axes.conflict_count; i++)
        am_import_finding_add(plan, "axes_conflict", "%s", res.axes.conflicts[i]);
    const am_map_suggestion *sug = &res.suggestion;
    am_import_finding_add(plan, "joint_map", "%zu of %zu joints mapped to viewer joints (naming: %s)%s", sug->mapped,
                          sug->count,
                          !am_string_empty(&sug->convention) ? am_str(&sug->convention)
                                                             : "none recognised, topology only",
                          opts->retarget.map ? "; the map option applied over the suggestion" : "");
    for (size_t i = 0; i < sug->note_count; i++)
        am_import_finding_add(plan, "joint_map_note", "%s", am_str(&sug->notes[i]));
    for (size_t i = 0; i < res.finding_count; i++)
        am_import_finding_add(plan, res.findings[i].level == AM_FINDING_WARNING ? "retarget_warning" : "retarget_note",
                              "%s", am_str(&res.findings[i].text));
    if (opts->normalize_binds)
        am_import_finding_add(
            plan, "normalize_binds_not_needed",
            "the normalize_binds option: a retargeted rig's inverse binds are already pure translations");
    if (sug->count && !(plan->map = calloc(sug->count, sizeof *plan->map)))
        st = am_fail_nomem(err, "joint map");
    for (size_t j = 0; !st && j < sug->count; j++) {
        const am_map_joint *mj = &sug->joints[j];
        am_import_map_entry *e = &plan->map[plan->map_count++];
        if (!am_string_copy(&e->rig, &mj->rig_name) ||
            !am_string_set(&e->viewer, mj->target >= 0 ? skel->joints[mj->target].name : "") ||
            !am_string_copy(&e->reason, &mj->reason))
            st = am_fail_nomem(err, "joint map");
        e->confidence = mj->confidence;
        e->fallback = mj->source == AM_MAP_FALLBACK;
    }
    for (size_t i = 0; !st && i < res.rig_count; i++) {
        am_retarget_rig *rr = &res.rigs[i];
        am_import_part *part = am_import_part_new(plan, err);
        if (!part) {
            st = AM_ERR_NOMEM;
            break;
        }
        const am_scene_mesh *m = &scene->meshes[rr->mesh];
        if (!am_string_copy(&part->name, &rr->name) ||
            !am_string_set(&part->meshes, m->name && *m->name ? m->name : "(unnamed)")) {
            st = am_fail_nomem(err, "import parts");
            break;
        }
        part->rig = rr->rig; /* moved */
        memset(&rr->rig, 0, sizeof rr->rig);
        part->positions = m->vertex_count;
        part->unweighted_vertices = rr->unweighted;
        int mat = m->face_count ? m->faces[0].material : -1;
        part->texture = am_import_texture_for(plan, mat >= 0 ? &scene->materials[mat] : NULL, &st, err);
        part->rig.textured = part->texture >= 0;
    }
    /* --merge: the computed rigs share the viewer skeleton's binds, so they join as the faithful
     * parts do, the parts' materials as the faces */
    if (!st && opts->merge && plan->part_count > 1)
        st = am_import_merge_parts(plan, true, err);
    if (!st && res.anim_count) {
        if (!(plan->motions = calloc(res.anim_count, sizeof *plan->motions)))
            st = am_fail_nomem(err, "motions");
        for (size_t i = 0; !st && i < res.anim_count; i++)
            if (!(st = retarget_motion(&res, i, skel, am_str(&plan->source), &plan->motions[plan->motion_count], err)))
                plan->motion_count++;
    }
    am_retarget_result_free(&res);
    return st;
}

/* A model rigged to the viewer skeleton is in the viewer's frame (+Z up, +X forward): its
 * plan from its chains, the joints' own names saying what they drive. */
static am_status faithful_body_plan(const am_scene *scene, const am_skeleton *skel, am_import_plan *plan,
                                    am_error *err)
{
    am_body body;
    am_error e;
    am_error_clear(&e);
    if (am_body_analyse(scene, &body, &e)) {
        am_body_plan_free(&plan->body_plan);
        if (!am_string_setf(&plan->body_plan.evidence, "not read: %s", e.msg))
            return am_fail_nomem(err, "body plan");
        return AM_OK;
    }
    am_axes ax;
    memset(&ax, 0, sizeof ax);
    ax.up = 3;
    ax.forward = 1;
    ax.scale = 1;
    bool ok = am_body_plan_classify(scene, &body, &ax, NULL, skel, &plan->body_plan);
    am_body_free(&body);
    if (!ok)
        return am_fail_nomem(err, "body plan");
    am_import_finding_add(plan, "body_plan", "body plan: %s (%s)", am_body_plan_label(plan->body_plan.kind),
                          am_str(&plan->body_plan.evidence));
    return AM_OK;
}

am_status am_import_plan_make(const am_scene *scene, const am_skeleton *skel, const am_import_options *opts,
                              am_import_plan *plan, am_error *err)
{
    memset(plan, 0, sizeof *plan);
    char stem[128];
    stem_of(scene->source ? scene->source : "scene", stem, sizeof stem);
    plan->declared = scene->declared;
    if (!am_string_set(&plan->source, scene->source ? scene->source : "scene") ||
        !am_string_copy(&plan->format, &scene->format_detail) || !am_string_set(&plan->name, opts->name ? opts->name : stem)) {
        am_import_plan_free(plan);
        return am_fail_nomem(err, "import plan");
    }

    size_t skinned = 0;
    for (size_t m = 0; m < scene->mesh_count; m++)
        skinned += scene->meshes[m].skin >= 0;
    if (skinned == 0 && scene->mesh_count == 0 && scene->clip_count) {
        am_fail(err, AM_ERR_INVALID,
                "no mesh, only motion (%zu clip%s): nothing to import as a creature; give it to import as a motion "
                "(the anim_paths option) beside a model, or convert it for the stock avatar with animesh anim "
                "from-model (a BVH: anim from-bvh)",
                scene->clip_count, scene->clip_count == 1 ? "" : "s");
        am_error_where(err, "%s", am_str(&plan->source));
        am_import_plan_free(plan);
        return AM_ERR_INVALID;
    }
    if (skinned == 0) {
        am_fail(err, AM_ERR_INVALID,
                "not rigged: %zu mesh%s and no %s binding %s to joints (see animesh bind, which binds a static mesh "
                "to the viewer skeleton)",
                scene->mesh_count, scene->mesh_count == 1 ? "" : "es",
                scene->format == AM_SCENE_FORMAT_COLLADA ? "<controller> skin" : "skin",
                scene->mesh_count == 1 ? "it" : "them");
        am_error_where(err, "%s", am_str(&plan->source));
        am_import_plan_free(plan);
        return AM_ERR_INVALID;
    }
    /* THE route decision. */
    char names[8];
    bool viewer_names = unknown_joints(scene, skel, names, sizeof names) == 0;
    am_status st;
    if (scene->format == AM_SCENE_FORMAT_COLLADA && viewer_names) {
        plan->route = AM_IMPORT_FAITHFUL;
        st = am_import_faithful_plan(scene, skel, opts, plan, err);
        if (!st)
            st = faithful_body_plan(scene, skel, plan, err);
    } else {
        plan->route = AM_IMPORT_RETARGET;
        st = am_import_retarget_plan(scene, skel, opts, plan, err);
    }
    if (st)
        am_import_plan_free(plan);
    return st;
}

/* --- motions ---------------------------------------------------------------------------- */

static bool has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

static am_status check_anim(const am_anim *a, const am_skeleton *skel, const char *path, am_error *err)
{
    am_anim_report rep = {0};
    am_status st = am_anim_validate(a, skel, &rep, err);
    if (!st)
        st = am_anim_report_fail(&rep, err);
    am_anim_report_free(&rep);
    if (st)
        am_error_where(err, "%s", path);
    return st;
}

static am_status load_motion(am_import_plan *plan, const char *path, const am_skeleton *skel,
                             const am_import_options *opts, am_import_motion *m, am_error *err)
{
    bool align_rest = opts->bvh_align_rest;
    const am_retarget_options *ro = &opts->retarget;
    am_anim a;
    memset(&a, 0, sizeof a);
    am_buf bytes = {0};
    am_status st;
    if (has_ext(path, ".bvh")) {
        /* a BVH of another body plan is refused as a retargeted motion is */
        am_body_plan bp = {0};
        char warning[1400];
        st = am_motion_file_body_check(path, skel, &plan->body_plan, opts->allow_body_mismatch, &bp, warning,
                                       sizeof warning, err);
        if (!st && warning[0])
            am_import_finding_add(plan, "motion_body_plan", "motion '%s': %s", path, warning);
        if (!st && (bp.kind != AM_PLAN_OTHER || bp.limb_count))
            snprintf(m->body_plan, sizeof m->body_plan, "%s", am_body_plan_label(bp.kind));
        am_body_plan_free(&bp);
        if (st)
            return st;
        /* The viewer's BVH upload with its default joint map (legacy names such as hip,
         * abdomen, lThigh included); other names (CMU's Hips, ...) through the map
         * `animesh map suggest` proposes, as anim from-bvh converts them. */
        am_bvh b;
        am_bvh_options o;
        am_bvh_options_init(&o);
        o.align_rest = align_rest;
        if (ro->loop == AM_LOOP_ON) { /* --loop: as anim from-bvh --loop, the seam blended closed */
            o.loop = true;
            o.loop_tolerance_deg = ro->loop_tolerance_deg; /* the same encoding (core/option.h) */
            o.loop_tolerance_m = 0;                        /* 1 cm per degree of it */
        }
        am_bvh_stats bs = {0};
        if ((st = am_bvh_load(path, &b, err)))
            return st;
        am_joint_map map = {0};
        if (!am_bvh_root_is_viewer(&b, skel)) {
            st = am_map_suggest_bvh(&b, path, skel, &map, NULL, err);
            if (!st) {
                o.map = &map;
                am_import_finding_add(plan, "motion_joint_map",
                                      "motion '%s': its joint names are not the viewer's: converted with the map "
                                      "animesh map suggest proposes (%zu joints; `animesh map suggest %s` lists them)",
                                      path, map.count, path);
            }
        }
        if (!st)
            st = am_bvh_to_anim(&b, skel, &o, &a, &bs, err);
        char rest[1024];
        if (!st && am_bvh_rest_warning(&bs, rest, sizeof rest))
            am_import_finding_add(plan, "motion_rest_pose", "motion '%s': %s", path, rest);
        if (!st && (bs.loop.rot_track >= 0 || bs.loop.pos_track >= 0))
            am_import_finding_add(
                plan, "motion_loop_closed",
                "motion '%s': the loop option: the seam closed by blending the last %.3f s into the first "
                "pose; largest change %.3f deg at %s, %.4f m at %s",
                path, bs.loop.window_s, bs.loop.rot_deg,
                bs.loop.rot_track >= 0 ? a.joints[bs.loop.rot_track].name : "-", bs.loop.pos_m,
                bs.loop.pos_track >= 0 ? a.joints[bs.loop.pos_track].name : "-");
        am_bvh_stats_free(&bs);
        am_joint_map_free(&map);
        am_bvh_free(&b);
        if (!st)
            st = am_anim_encode(&a, &bytes, err);
        if (!st)
            st = am_anim_verify_bytes(bytes.data, bytes.size, &a, NULL, err);
        if (st)
            am_error_where(err, "%s", path);
    } else {
        uint8_t *data = NULL;
        size_t size = 0;
        if ((st = am_read_file_as(path, &am_anim_file_format, &data, &size, err)))
            return st;
        st = am_anim_decode(data, size, &a, err);
        if (st)
            am_error_where(err, "%s", path);
        bytes.data = data;
        bytes.size = bytes.cap = size;
    }
    if (!st)
        st = check_anim(&a, skel, path, err);
    if (!st) {
        m->anim = bytes.data;
        m->anim_size = bytes.size;
        m->duration_s = a.duration;
        m->loop = a.loop;
        bytes.data = NULL;
        if (!am_string_set(&m->source, path))
            st = am_fail_nomem(err, "motions");
    }
    am_buf_free(&bytes);
    am_anim_free(&a);
    return st;
}

/* A motion in a model or motion-only file (FBX, glTF, DAE, FILE:CLIP): retargeted onto
 * the creature's own rest (part 0's rig), following the source's bone directions, with the
 * import's priority, loop and ease options. One motion per clip converted. */
static am_status add_model_motions(am_import_plan *plan, const char *ref, const am_skeleton *skel,
                                   const am_import_options *opts, am_error *err)
{
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    mo.reader_process = opts->reader_process;
    mo.retarget.priority = opts->retarget.priority;
    mo.retarget.loop = opts->retarget.loop;
    mo.retarget.loop_tolerance_deg = opts->retarget.loop_tolerance_deg;
    mo.retarget.ease_in_s = opts->retarget.ease_in_s;
    mo.retarget.ease_out_s = opts->retarget.ease_out_s;
    am_vec3 *rest = malloc(skel->joint_count * sizeof *rest);
    if (!rest)
        return am_fail_nomem(err, "motion");
    am_retarget_rest_of_rig(plan->part_count ? &plan->parts[0].rig : NULL, skel, rest);
    mo.retarget.target_rest = rest;
    mo.target_plan = &plan->body_plan;
    mo.allow_body_mismatch = opts->allow_body_mismatch;
    am_motion_file_result r;
    am_status st = am_motion_file_convert(ref, skel, &mo, &r, err);
    free(rest);
    if (st)
        return st;
    am_import_motion *nm = realloc(plan->motions, (plan->motion_count + r.anim_count + 1) * sizeof *nm);
    if (!nm) {
        am_motion_file_result_free(&r);
        return am_fail_nomem(err, "motions");
    }
    plan->motions = nm;
    for (size_t i = 0; i < r.finding_count; i++)
        if (r.findings[i].level == AM_FINDING_WARNING)
            am_import_finding_add(plan, "motion_retarget", "motion '%s': %s", ref, am_str(&r.findings[i].text));
    for (size_t i = 0; i < r.anim_count; i++) {
        am_motion_file_anim *a = &r.anims[i];
        am_import_motion *m = &plan->motions[plan->motion_count++];
        memset(m, 0, sizeof *m);
        if (!am_string_copy(&m->name, &a->name) || !am_string_copy(&m->source, &r.source) ||
            !am_string_copy(&m->clip, &a->clip)) {
            am_motion_file_result_free(&r);
            return am_fail_nomem(err, "motions"); /* m's texts go with the plan */
        }
        m->anim = a->anim.data;
        m->anim_size = a->anim.size;
        a->anim.data = NULL;
        m->duration_s = a->duration_s;
        m->loop = a->loops;
        m->retargeted = true;
        m->joints_mapped = a->joints_mapped;
        m->joints_unmapped = a->joints_unmapped;
        m->keys_before = a->keys_before;
        m->keys_after = a->keys_after;
        m->worst_direction_deg = a->worst_direction_deg;
        snprintf(m->body_plan, sizeof m->body_plan, "%s", am_body_plan_label(r.plan.kind));
    }
    am_motion_file_result_free(&r);
    return AM_OK;
}

static bool unique_name(am_import_plan *plan, size_t at);

/* An inventory name's longest (world/oar.h). */
#define INVENTORY_NAME_MAX 63

/* How many bytes of text (length n) fit in `max`, cut before a UTF-8 character, not inside. */
static size_t inventory_cut(const char *text, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t k = max;
    while (k > 0 && ((unsigned char)text[k] & 0xC0) == 0x80)
        k--;
    return k;
}

static bool is_model_motion(const char *ref) { return !has_ext(ref, ".anim") && !has_ext(ref, ".bvh"); }

/* A .bvh made on another skeleton (its root is no viewer name: CMU's Hips): retargeted by
 * bone directions, as a Mixamo FBX is; the viewer's own conversion applies each rotation as
 * if the BVH's zero pose were the viewer's rest and crosses CMU's splayed legs. A BVH on the
 * viewer's joints (hip, abdomen, mPelvis ...) and --align-rest keep the BVH converter. An
 * unreadable file is left to it too: load_motion names the line. */
static bool bvh_from_another_skeleton(const char *path, const am_skeleton *skel, bool align_rest, char *root,
                                      size_t root_size)
{
    if (align_rest || !has_ext(path, ".bvh"))
        return false;
    am_bvh b;
    am_error e;
    am_error_clear(&e);
    if (am_bvh_load(path, &b, &e))
        return false;
    bool other = !am_bvh_root_is_viewer(&b, skel);
    snprintf(root, root_size, "%s", b.joint_count ? b.joints[0].name : "");
    am_bvh_free(&b);
    return other;
}

am_status am_import_add_motions(am_import_plan *plan, const am_skeleton *skel, const am_import_options *opts,
                                am_error *err)
{
    if (!opts->anim_count)
        return AM_OK;
    for (size_t i = 0; i < opts->anim_count; i++) {
        size_t before = plan->motion_count;
        char root[64];
        bool other_bvh = bvh_from_another_skeleton(opts->anim_paths[i], skel, opts->bvh_align_rest, root, sizeof root);
        if (other_bvh || is_model_motion(opts->anim_paths[i])) {
            am_status st = add_model_motions(plan, opts->anim_paths[i], skel, opts, err);
            if (st)
                return st;
            if (other_bvh)
                am_import_finding_add(
                    plan, "motion_joint_map",
                    "motion '%s': its joint names are not the viewer's (root '%.40s'): a BVH made on "
                    "another skeleton, retargeted onto this creature with each bone following the "
                    "BVH's direction, as a Mixamo FBX (the bvh_align_rest option: the viewer's conversion with "
                    "its bones turned instead)",
                    opts->anim_paths[i], root);
        } else {
            am_import_motion *nm = realloc(plan->motions, (plan->motion_count + 1) * sizeof *nm);
            if (!nm)
                return am_fail_nomem(err, "motions");
            plan->motions = nm;
            am_import_motion *m = &plan->motions[plan->motion_count];
            memset(m, 0, sizeof *m);
            am_status st = load_motion(plan, opts->anim_paths[i], skel, opts, m, err);
            plan->motion_count++; /* its texts and bytes freed with the plan, whole or not */
            if (st)
                return st;
            char stem[128];
            stem_of(opts->anim_paths[i], stem, sizeof stem);
            if (!am_string_set(&m->name, stem))
                return am_fail_nomem(err, "motions");
        }
        for (size_t k = before; k < plan->motion_count; k++)
            if (!unique_name(plan, k))
                return am_fail_nomem(err, "motions");
    }
    return AM_OK;
}

/* The name names the inventory item and the written .anim: unique within the plan. */
static bool unique_name(am_import_plan *plan, size_t at)
{
    am_import_motion *m = &plan->motions[at];
    /* The name is an inventory name (world/oar.h: 1..63 bytes): a longer one is shortened
     * at a character boundary, and the finding keeps the whole. The suffix of a clash keeps
     * it within them (the old cut at the struct's 64 bytes said nothing). */
    size_t keep = inventory_cut(am_str(&m->name), m->name.length, INVENTORY_NAME_MAX);
    if (keep < m->name.length) {
        am_import_finding_add(plan, "motion_name_shortened",
                              "motion '%s': named '%.*s' (an inventory name holds at most %d bytes)", am_str(&m->name),
                              (int)keep, am_str(&m->name), INVENTORY_NAME_MAX);
        if (!am_string_setn(&m->name, am_str(&m->name), keep))
            return false;
    }
    am_string stem = {0};
    if (!am_string_copy(&stem, &m->name))
        return false;
    bool ok = true;
    /* NAME, NAME_2, NAME_3 ...: `at` earlier names leave one of the first at + 1 free (a
     * bound of 100 tries left the 100th clip of one name clashing: "two outputs") */
    for (size_t k = 2; k < at + 3; k++) {
        bool clash = false;
        for (size_t j = 0; j < at && !clash; j++)
            clash = strcmp(am_str(&plan->motions[j].name), am_str(&m->name)) == 0;
        if (!clash)
            break;
        char suffix[24];
        int sn = snprintf(suffix, sizeof suffix, "_%zu", k);
        size_t room = INVENTORY_NAME_MAX - (size_t)sn;
        int n = (int)inventory_cut(am_str(&stem), stem.length, room);
        if (!(ok = am_string_setf(&m->name, "%.*s%s", n, am_str(&stem), suffix)))
            break;
    }
    am_string_free(&stem);
    return ok;
}

am_status am_import_file(const char *model_path, const am_skeleton *skel, const am_import_options *opts,
                         const char *out_dir, am_import_report *report, am_error *err)
{
    memset(report, 0, sizeof *report);
    /* said before the work, not after it: a big model takes seconds to build */
    struct stat sb;
    if (stat(out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        am_fail(err, AM_ERR_IO, "exists and is not a directory: the outputs go into a folder");
        am_error_where(err, "%s", out_dir);
        return AM_ERR_IO;
    }
    am_scene scene;
    am_scene_load_options lo = {.skeleton = skel, .weld = true, /* welded before faces and LODs */
                                .reader_process = opts->reader_process};
    am_status st = am_scene_load_ex(model_path, &lo, &scene, err);
    if (st)
        return st;
    am_import_plan plan;
    st = am_import_plan_make(&scene, skel, opts, &plan, err);
    am_scene_free(&scene);
    if (st)
        return st;
    if (!(st = am_import_add_motions(&plan, skel, opts, err)))
        st = am_import_run(&plan, skel, opts, out_dir, report, err);
    /* an error that names no file (a part over a limit) is about the model */
    if (st && err && !err->where[0])
        am_error_where(err, "%s", model_path);
    am_import_plan_free(&plan);
    return st;
}
