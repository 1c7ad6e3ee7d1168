/* COLLADA materials into scene materials (collada_internal.h): a face's material symbol
 * through its instance's <bind_material> to a <material>, its effect's diffuse colour and
 * texture, and the image file, which must lie inside the model's folder: a path leaving it
 * (.., an absolute path elsewhere, a link out) is refused, never followed; a missing file
 * inside it is only noted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/io.h"
#include "readers/collada/collada_internal.h"
#include "readers/file_ref.h"

/* The image file a material samples, resolved inside the model's folder (file_ref.h: an
 * absolute path, a URL, ".." or a link out is refused, never followed). Sets *path
 * (malloc'd), or leaves it NULL with a note when the file is missing. */
static am_status resolve_image(am_dae_ctx *c, const xmlNode *image, char **path)
{
    *path = NULL;
    xmlNode *init = am_dae_child(image, "init_from");
    xmlNode *ref = am_dae_child(init, "ref"); /* COLLADA 1.5 */
    char raw[1024];
    am_dae_text_trim(ref ? ref : init, raw, sizeof raw);
    if (!raw[0])
        return AM_OK;
    am_error e;
    am_error_clear(&e);
    am_status st = am_file_ref_resolve(c->base_dir, raw, true, path, &e);
    if (st == AM_ERR_IO) {
        am_scene_note(c->scene, "texture image '%s' not found next to the model: drawn untextured", raw);
        return AM_OK;
    }
    if (st == AM_ERR_NOMEM)
        return am_fail_nomem(c->err, "image path");
    return st ? am_dae_fail(c, image, "%s", e.msg) : AM_OK;
}

/* <newparam sid=X> inside an effect's profile, NULL when none. */
static xmlNode *find_newparam(const xmlNode *profile, const xmlNode *effect, const char *sid)
{
    for (const xmlNode *scope = profile; scope; scope = scope == profile ? effect : NULL)
        for (xmlNode *k = am_dae_child(scope, "newparam"); k; k = am_dae_next(k, "newparam")) {
            const char *s = am_dae_attr(k, "sid");
            if (s && strcmp(s, sid) == 0)
                return k;
        }
    return NULL;
}

static xmlChar *child_text(const xmlNode *n, const char *name)
{
    xmlNode *k = am_dae_child(n, name);
    return k ? xmlNodeGetContent(k) : NULL;
}

/* The <image> a <texture texture="..."> names: a sampler2D newparam -> surface newparam ->
 * image id (COLLADA 1.4 as Blender writes it), or the image id directly. */
static xmlNode *texture_image(am_dae_ctx *c, const xmlNode *profile, const xmlNode *effect, const char *tex)
{
    xmlNode *img = NULL;
    xmlNode *sampler = find_newparam(profile, effect, tex);
    if (sampler) {
        xmlChar *surf_sid = child_text(am_dae_child(sampler, "sampler2D"), "source");
        xmlNode *surface = surf_sid ? find_newparam(profile, effect, (const char *)surf_sid) : NULL;
        xmlFree(surf_sid);
        xmlChar *img_id = surface ? child_text(am_dae_child(surface, "surface"), "init_from") : NULL;
        if (!img_id) /* COLLADA 1.5: <sampler2D><instance_image url> */
            img = am_dae_find_id(c, am_dae_attr(am_dae_child(am_dae_child(sampler, "sampler2D"), "instance_image"), "url"));
        else
            img = am_dae_find_id(c, (const char *)img_id);
        xmlFree(img_id);
    }
    if (!img)
        img = am_dae_find_id(c, tex);
    return am_dae_is(img, "image") ? img : NULL;
}

/* Colour and image of a <material> element into a scene material. */
static am_status fill_material(am_dae_ctx *c, const xmlNode *mat, am_scene_material *out)
{
    out->base_color[0] = out->base_color[1] = out->base_color[2] = out->base_color[3] = 1;
    xmlNode *effect = am_dae_find_id(c, am_dae_attr(am_dae_child(mat, "instance_effect"), "url"));
    xmlNode *profile = am_dae_child(effect, "profile_COMMON");
    xmlNode *tech = am_dae_child(profile, "technique");
    xmlNode *shader = am_dae_child(tech, NULL);
    while (shader && !am_dae_is(shader, "phong") && !am_dae_is(shader, "lambert") && !am_dae_is(shader, "blinn") &&
           !am_dae_is(shader, "constant"))
        shader = am_dae_next(shader, NULL);
    xmlNode *diffuse = am_dae_child(shader, am_dae_is(shader, "constant") ? "emission" : "diffuse");
    xmlNode *color = am_dae_child(diffuse, "color");
    if (color) {
        double v[4];
        double *all;
        size_t n;
        am_status st = am_dae_doubles(c, color, &all, &n);
        if (st)
            return st;
        for (size_t i = 0; i < 4 && i < n; i++)
            v[i] = all[i];
        free(all);
        if (n >= 3)
            for (size_t i = 0; i < 4 && i < n; i++)
                out->base_color[i] = isfinite(v[i]) ? v[i] : 1;
    }
    xmlNode *tex = am_dae_child(diffuse, "texture");
    const char *tex_ref = am_dae_attr(tex, "texture");
    if (tex_ref) {
        xmlNode *img = texture_image(c, profile, effect, tex_ref);
        if (!img) {
            am_scene_note(c->scene, "material '%s': texture '%s' names no <image>: untextured",
                          am_dae_attr(mat, "id") ? am_dae_attr(mat, "id") : "", tex_ref);
            return AM_OK;
        }
        am_status st = resolve_image(c, img, &out->image_path);
        if (st)
            return st;
        if (out->image_path) {
            size_t n = strlen(out->image_path);
            const char *mime = n > 4 && strcasecmp(out->image_path + n - 4, ".png") == 0 ? "image/png"
                               : n > 4 && (strcasecmp(out->image_path + n - 4, ".jpg") == 0 ||
                                           (n > 5 && strcasecmp(out->image_path + n - 5, ".jpeg") == 0))
                                   ? "image/jpeg"
                                   : "";
            if (!am_string_set(&out->image_mime, mime))
                return am_fail_nomem(c->err, "texture type");
        }
    }
    return AM_OK;
}

/* The instance (<instance_geometry> / <instance_controller>) that binds a geometry's
 * materials: the first, in node order, naming the geometry or a controller skinning it. */
xmlNode *am_dae_instance_of_geometry(const am_dae_ctx *c, const xmlNode *geom)
{
    const char *gid = am_dae_attr(geom, "id");
    if (!gid)
        return NULL;
    for (size_t i = 0; i < c->scene->node_count; i++)
        for (xmlNode *k = am_dae_child(c->node_xml[i], NULL); k; k = am_dae_next(k, NULL)) {
            const char *url = am_dae_attr(k, "url");
            if (!url || url[0] != '#')
                continue;
            if (am_dae_is(k, "instance_geometry") && strcmp(url + 1, gid) == 0)
                return k;
            if (am_dae_is(k, "instance_controller")) {
                const char *src = am_dae_attr(am_dae_child(am_dae_find_id(c, url), "skin"), "source");
                if (src && src[0] == '#' && strcmp(src + 1, gid) == 0)
                    return k;
            }
        }
    return NULL;
}

/* Scene material of a face's `material` symbol in a geometry (one entry per symbol and
 * bound target). -1 for a face without a symbol. */
int am_dae_material_for(am_dae_ctx *c, const xmlNode *geom, const char *symbol, am_status *st)
{
    *st = AM_OK;
    if (!symbol)
        return -1;
    am_scene *s = c->scene;
    xmlNode *inst = am_dae_instance_of_geometry(c, geom);
    xmlNode *target = NULL;
    xmlNode *tc = am_dae_child(am_dae_child(inst, "bind_material"), "technique_common");
    for (xmlNode *im = am_dae_child(tc, "instance_material"); im && !target; im = am_dae_next(im, "instance_material")) {
        const char *sym = am_dae_attr(im, "symbol");
        if (sym && strcmp(sym, symbol) == 0)
            target = am_dae_find_id(c, am_dae_attr(im, "target"));
    }
    if (!target)
        target = am_dae_find_id(c, symbol); /* the symbol is often the material's id */
    if (!am_dae_is(target, "material"))
        target = NULL;
    for (size_t i = 0; i < s->material_count; i++)
        if (c->material_xml[i] == target && strcmp(s->materials[i].name, symbol) == 0)
            return (int)i;
    am_scene_material *nm = realloc(s->materials, (s->material_count + 1) * sizeof *nm);
    if (nm)
        s->materials = nm;
    xmlNode **nx = nm ? realloc(c->material_xml, (s->material_count + 1) * sizeof *nx) : NULL;
    if (!nm || !nx) {
        *st = am_fail_nomem(c->err, "materials");
        return -1;
    }
    c->material_xml = nx;
    c->material_xml[s->material_count] = target;
    am_scene_material *m = &s->materials[s->material_count];
    memset(m, 0, sizeof *m);
    m->name = am_strdup(symbol);
    if (!m->name) {
        *st = am_fail_nomem(c->err, "material name");
        return -1;
    }
    s->material_count++;
    if (target) {
        *st = fill_material(c, target, m);
    } else {
        m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1;
        am_scene_note(s, "material symbol '%s' is bound to no <material>: white, untextured", symbol);
    }
    return *st ? -1 : (int)s->material_count - 1;
}

