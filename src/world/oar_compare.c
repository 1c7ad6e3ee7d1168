/* Our archive against a region's save of it: what came back, what differs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/notes.h"
#include "world/oar_check.h"

typedef struct lines {
    char **v;
    size_t n;
    am_error *err;
    am_status s;
} lines;

static void add(lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(lines *l, const char *fmt, ...)
{
    if (l->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    l->s = am_notes_vadd(&l->v, &l->n, 512, "differences", l->err, fmt, ap);
    va_end(ap);
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static const char *uuid_text(const am_uuid *u, char out[37])
{
    am_uuid_format(u, out);
    return out;
}

static bool same_uuid(const am_uuid *a, const am_uuid *b)
{
    return memcmp(a->b, b->b, 16) == 0;
}

static bool far3(const double a[3], const double b[3], double tol)
{
    for (int i = 0; i < 3; i++)
        if (fabs(a[i] - b[i]) > tol)
            return true;
    return false;
}

static void hex(const uint8_t *b, size_t n, char *out, size_t size)
{
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && k + 3 < size; i++)
        k += (size_t)snprintf(out + k, size - k, "%02x", b[i]);
}

/* One part of ours against the region's; `label` names it in every line. */
static void compare_part(lines *l, const char *label, bool root, const am_oar_part *p, const am_oar_part *q)
{
    char a[37], b[37];
    if (strcmp(p->name, q->name) != 0)
        add(l, "%s: named \"%s\" in the region", label, q->name);
    if (root && far3(p->group_position, q->group_position, 0.01))
        add(l, "%s: at %.3f,%.3f,%.3f in the region, %.3f,%.3f,%.3f in the archive", label, q->group_position[0],
            q->group_position[1], q->group_position[2], p->group_position[0], p->group_position[1],
            p->group_position[2]);
    if (!root && far3(p->offset_position, q->offset_position, 0.001))
        add(l, "%s: offset %.3f,%.3f,%.3f from the root in the region, %.3f,%.3f,%.3f in the archive", label,
            q->offset_position[0], q->offset_position[1], q->offset_position[2], p->offset_position[0],
            p->offset_position[1], p->offset_position[2]);
    bool specific = false;
    if (p->has_sculpt && !q->has_sculpt) {
        add(l, "%s: no mesh sculpt (ExtraParams 0x30) in the region", label);
        specific = true;
    } else if (p->has_sculpt && (!same_uuid(&p->sculpt, &q->sculpt) || p->sculpt_type != q->sculpt_type)) {
        add(l, "%s: the sculpt is %s type %d in the region, %s type %d in the archive", label,
            uuid_text(&q->sculpt, a), q->sculpt_type, uuid_text(&p->sculpt, b), p->sculpt_type);
        specific = true;
    }
    bool ours = p->has_mesh_flags && (p->mesh_flags & AM_OAR_MESH_FLAG_ANIMESH);
    bool theirs = q->has_mesh_flags && (q->mesh_flags & AM_OAR_MESH_FLAG_ANIMESH);
    if (ours != theirs) {
        add(l, "%s: the animesh flag (ExtraParams 0x70 bit 0) is %s in the region, %s in the archive", label,
            theirs ? "set" : "not set", ours ? "set" : "not set");
        specific = true;
    }
    if (!specific && (p->extra_params_size != q->extra_params_size ||
                      (p->extra_params_size && memcmp(p->extra_params, q->extra_params, p->extra_params_size) != 0))) {
        char x[96], y[96];
        hex(q->extra_params, q->extra_params_size, x, sizeof x);
        hex(p->extra_params, p->extra_params_size, y, sizeof y);
        add(l, "%s: ExtraParams %s in the region, %s in the archive", label, x, y);
    }
    if (p->has_texture && (!q->has_texture || !same_uuid(&p->texture, &q->texture)))
        add(l, "%s: the default face's texture is %s in the region, %s in the archive", label,
            q->has_texture ? uuid_text(&q->texture, a) : "none", uuid_text(&p->texture, b));
    for (size_t i = 0; i < p->item_count; i++) {
        const am_oar_item *it = &p->items[i], *found = NULL;
        for (size_t j = 0; j < q->item_count && !found; j++)
            if (strcmp(q->items[j].name, it->name) == 0)
                found = &q->items[j];
        if (!found)
            add(l, "%s: inventory item \"%s\" is missing in the region", label, it->name);
        else if (!same_uuid(&found->asset, &it->asset) || found->type != it->type || found->inv_type != it->inv_type)
            add(l, "%s: inventory item \"%s\" is asset %s type %d/%d in the region, %s type %d/%d in the archive", label,
                it->name, uuid_text(&found->asset, a), found->type, found->inv_type, uuid_text(&it->asset, b), it->type,
                it->inv_type);
    }
    for (size_t j = 0; j < q->item_count; j++) {
        bool known = false;
        for (size_t i = 0; i < p->item_count && !known; i++)
            known = strcmp(q->items[j].name, p->items[i].name) == 0;
        if (!known)
            add(l, "%s: the region's copy holds an inventory item \"%s\" the archive does not", label, q->items[j].name);
    }
}

/* Our object against one object of the save. */
static void compare_object(lines *l, const am_oar_object *o, const am_oar_object *s)
{
    char label[160];
    snprintf(label, sizeof label, "object \"%.60s\"", o->parts[0].name);
    compare_part(l, label, true, &o->parts[0], &s->parts[0]);
    if (o->part_count != s->part_count)
        add(l, "%s: %zu parts in the region, %zu in the archive", label, s->part_count, o->part_count);
    bool *used = calloc(s->part_count, sizeof *used);
    if (!used) {
        l->s = am_fail_nomem(l->err, "compare");
        return;
    }
    for (size_t k = 1; k < o->part_count; k++) {
        const am_oar_part *p = &o->parts[k];
        size_t match = 0;
        /* OpenSim may save the children in another order: pair by mesh and name first. */
        for (size_t j = 1; j < s->part_count && !match; j++)
            if (!used[j] && strcmp(s->parts[j].name, p->name) == 0 && p->has_sculpt == s->parts[j].has_sculpt &&
                (!p->has_sculpt || same_uuid(&p->sculpt, &s->parts[j].sculpt)))
                match = j;
        if (!match && k < s->part_count && !used[k])
            match = k;
        snprintf(label, sizeof label, "object \"%.60s\" part %zu (\"%.60s\")", o->parts[0].name, k, p->name);
        if (!match) {
            add(l, "%s: missing in the region", label);
            continue;
        }
        used[match] = true;
        compare_part(l, label, false, p, &s->parts[match]);
    }
    free(used);
}

static void compare_assets(lines *l, const am_oar_contents *ours, const am_oar_contents *saved, am_oar_diff *d)
{
    for (size_t i = 0; i < ours->entry_count; i++) {
        const am_oar_entry *e = &ours->entries[i];
        if (strncmp(e->path, "assets/", 7) != 0)
            continue;
        d->assets++;
        const am_oar_entry *f = am_oar_find_entry(saved, e->path);
        if (!f) {
            add(l, "%s: not in the region's save (no object there uses it, or the region did not store it)", e->path);
            continue;
        }
        if (f->size == e->size && memcmp(f->data, e->data, e->size) == 0)
            continue;
        size_t at = 0;
        while (at < f->size && at < e->size && f->data[at] == e->data[at])
            at++;
        const char *fix = "the grid stores an asset UUID once and skips it on every later load: build the archive "
                          "again with a new salt (the uuid_salt option) to send new UUIDs";
        if (at == f->size && f->size < e->size)
            add(l, "%s: the region holds only the first %zu of the archive's %zu bytes: a cut-short copy stored by an "
                   "earlier load (%s)",
                e->path, f->size, e->size, fix);
        else
            add(l, "%s: the region holds %zu bytes, the archive %zu, differing from byte %zu on: another copy stored "
                   "under this UUID by an earlier load (%s)",
                e->path, f->size, e->size, at, fix);
    }
}

am_status am_oar_compare(const am_oar_contents *ours, const am_oar_contents *saved, am_oar_diff *diff, am_error *err)
{
    memset(diff, 0, sizeof *diff);
    lines l = {NULL, 0, err, AM_OK};
    diff->animesh_flag = ours->object_count > 0;
    for (size_t i = 0; i < ours->object_count && !l.s; i++) {
        const am_oar_object *o = &ours->objects[i];
        const am_oar_part *root = &o->parts[0];
        diff->parts += o->part_count;
        const am_oar_object *best = NULL;
        lines best_lines = {NULL, 0, err, AM_OK};
        size_t copies = 0;
        for (size_t j = 0; j < saved->object_count && !l.s; j++) {
            const am_oar_part *r = &saved->objects[j].parts[0];
            bool same = root->has_sculpt ? r->has_sculpt && same_uuid(&r->sculpt, &root->sculpt)
                                         : strcmp(r->name, root->name) == 0;
            if (!same)
                continue;
            copies++;
            lines t = {NULL, 0, err, AM_OK};
            compare_object(&t, o, &saved->objects[j]);
            l.s = t.s;
            if (!best || t.n < best_lines.n) {
                lines_free(&best_lines);
                best_lines = t;
                best = &saved->objects[j];
            } else {
                lines_free(&t);
            }
        }
        if (i == 0)
            diff->copies = copies;
        if (!best) {
            char u[37];
            add(&l, "object \"%.60s\" (root mesh %s): not in the region's save (%zu objects there)", root->name,
                root->has_sculpt ? uuid_text(&root->sculpt, u) : "none", saved->object_count);
            diff->animesh_flag = false;
            continue;
        }
        for (size_t k = 0; k < best_lines.n; k++)
            add(&l, "%s", best_lines.v[k]);
        lines_free(&best_lines);
        const am_oar_part *r = &best->parts[0];
        diff->animesh_flag &= r->has_mesh_flags && (r->mesh_flags & AM_OAR_MESH_FLAG_ANIMESH);
        for (size_t k = 0; i == 0 && k < r->playing_count; k++) {
            size_t used = strlen(diff->playing);
            snprintf(diff->playing + used, sizeof diff->playing - used, "%s%s", k ? ", " : "", r->playing[k].name);
        }
    }
    if (!l.s)
        compare_assets(&l, ours, saved, diff);
    diff->lines = l.v;
    diff->count = l.n;
    if (l.s)
        am_oar_diff_free(diff);
    return l.s;
}

void am_oar_diff_free(am_oar_diff *d)
{
    for (size_t i = 0; i < d->count; i++)
        free(d->lines[i]);
    free(d->lines);
    memset(d, 0, sizeof *d);
}
