/* The XML inside an OAR: archive.xml and the scene object group (SceneObjectSerializer's
 * "original" format: RootPart + OtherParts). Element names and order follow OpenSim's
 * SOPToXml2 / WriteShape / WriteTaskInventory (docs/reference/opensim-oar.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world/oar.h"

#define AM_PERM_ALL 2147483647u /* PermissionMask.All as OpenSim writes it */
#define AM_ZERO_UUID "00000000-0000-0000-0000-000000000000"

typedef struct xw {
    am_buf *b;
    am_error *err;
    am_status s;
} xw;

static void put(xw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(xw *w, const char *fmt, ...)
{
    if (w->s)
        return;
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        w->s = am_fail(w->err, AM_ERR_INVALID, "XML line too long");
        return;
    }
    w->s = am_buf_append(w->b, tmp, (size_t)n, w->err);
}

/* Text content with &, <, >, " escaped. */
static void text(xw *w, const char *s)
{
    for (; *s && !w->s; s++) {
        switch (*s) {
        case '&': w->s = am_buf_append(w->b, "&amp;", 5, w->err); break;
        case '<': w->s = am_buf_append(w->b, "&lt;", 4, w->err); break;
        case '>': w->s = am_buf_append(w->b, "&gt;", 4, w->err); break;
        case '"': w->s = am_buf_append(w->b, "&quot;", 6, w->err); break;
        default: w->s = am_buf_append(w->b, s, 1, w->err); break;
        }
    }
}

static void elem_text(xw *w, const char *indent, const char *name, const char *value)
{
    if (!value[0]) {
        put(w, "%s<%s />\n", indent, name);
        return;
    }
    put(w, "%s<%s>", indent, name);
    text(w, value);
    put(w, "</%s>\n", name);
}

static void elem_uuid(xw *w, const char *indent, const char *name, const am_uuid *u)
{
    char t[37];
    if (u)
        am_uuid_format(u, t);
    else
        snprintf(t, sizeof t, "%s", AM_ZERO_UUID);
    put(w, "%s<%s><Guid>%s</Guid></%s>\n", indent, name, t, name);
}

static void elem_vec3(xw *w, const char *indent, const char *name, double x, double y, double z)
{
    put(w, "%s<%s><X>%.9g</X><Y>%.9g</Y><Z>%.9g</Z></%s>\n", indent, name, x, y, z, name);
}

static void base64(xw *w, const uint8_t *data, size_t n)
{
    if (w->s)
        return;
    char *b64 = NULL;
    w->s = am_base64_encode(data, n, &b64, w->err);
    if (!w->s)
        w->s = am_buf_append(w->b, b64, strlen(b64), w->err);
    free(b64);
}

static const char *object_name(const am_oar_input *in)
{
    return in->object_name && in->object_name[0] ? in->object_name : "animesh";
}

am_status am_oar_archive_xml(const am_oar_input *in, const am_oar_plan *plan, am_buf *out, am_error *err)
{
    xw w = {out, err, AM_OK};
    char id[37];
    am_uuid_format(&plan->archive_id, id);
    put(&w, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    put(&w, "<archive major_version=\"0\" minor_version=\"8\">\n");
    put(&w, "  <creation_info>\n    <datetime>%lld</datetime>\n    <id>%s</id>\n  </creation_info>\n",
        (long long)in->creation_time, id);
    put(&w, "  <assets_included>True</assets_included>\n");
    if (in->uuid_salt && in->uuid_salt[0]) {
        put(&w, "  <animesh uuid_salt=\"");
        text(&w, in->uuid_salt);
        put(&w, "\" />\n");
    }
    put(&w, "</archive>\n");
    return w.s;
}

static void inventory_item(xw *w, const am_oar_input *in, const am_oar_plan *plan, const am_uuid *asset,
                           const am_uuid *item, const char *name, const char *description, int type, int inv_type)
{
    const char *I = "        ";
    put(w, "      <TaskInventoryItem>\n");
    elem_uuid(w, I, "AssetID", asset);
    put(w, "%s<BasePermissions>%u</BasePermissions>\n", I, AM_PERM_ALL);
    put(w, "%s<CreationDate>%lld</CreationDate>\n", I, (long long)in->creation_time);
    elem_uuid(w, I, "CreatorID", NULL);
    elem_text(w, I, "Description", description);
    put(w, "%s<EveryonePermissions>0</EveryonePermissions>\n", I);
    put(w, "%s<Flags>0</Flags>\n", I);
    elem_uuid(w, I, "GroupID", NULL);
    put(w, "%s<GroupPermissions>0</GroupPermissions>\n", I);
    put(w, "%s<InvType>%d</InvType>\n", I, inv_type);
    elem_uuid(w, I, "ItemID", item);
    elem_uuid(w, I, "OldItemID", item);
    elem_uuid(w, I, "LastOwnerID", NULL);
    elem_text(w, I, "Name", name);
    put(w, "%s<NextPermissions>%u</NextPermissions>\n", I, AM_PERM_ALL);
    elem_uuid(w, I, "OwnerID", NULL);
    put(w, "%s<CurrentPermissions>%u</CurrentPermissions>\n", I, AM_PERM_ALL);
    elem_uuid(w, I, "ParentID", &plan->part);
    elem_uuid(w, I, "ParentPartID", &plan->part);
    elem_uuid(w, I, "PermsGranter", NULL);
    put(w, "%s<PermsMask>0</PermsMask>\n", I);
    put(w, "%s<Type>%d</Type>\n", I, type);
    put(w, "%s<OwnerChanged>false</OwnerChanged>\n", I);
    put(w, "      </TaskInventoryItem>\n");
}

/* One prim's look: its mesh, texture, colour; the root also carries the animesh flag. */
typedef struct prim {
    const am_uuid *uuid, *mesh, *texture; /* texture NULL: none */
    const am_uuid *faces[AM_OAR_MAX_FACES]; /* per face its own texture (NULL: the default) */
    size_t face_count;
    const double *color;                  /* NULL: white */
    const char *name;
    int link_num;
    bool root;
} prim;

static void shape(xw *w, const prim *pr, const double scale[3])
{
    const char *I = "        ";
    uint8_t te[AM_OAR_TEXTURE_ENTRY_MAX], ep[AM_OAR_EXTRA_PARAMS_SIZE];
    size_t te_size = am_oar_texture_entry_faces(pr->texture, pr->color, pr->faces, pr->face_count, te);
    size_t ep_size = pr->root ? AM_OAR_EXTRA_PARAMS_SIZE : AM_OAR_CHILD_EXTRA_PARAMS_SIZE;
    if (pr->root)
        am_oar_extra_params(pr->mesh, ep);
    else
        am_oar_extra_params_child(pr->mesh, ep);
    put(w, "      <Shape>\n");
    put(w, "%s<ProfileCurve>1</ProfileCurve>\n", I);
    put(w, "%s<TextureEntry>", I);
    base64(w, te, te_size);
    put(w, "</TextureEntry>\n");
    put(w, "%s<ExtraParams>", I);
    base64(w, ep, ep_size);
    put(w, "</ExtraParams>\n");
    static const struct {
        const char *name;
        int value;
    } path[] = {{"PathBegin", 0},      {"PathCurve", 16},    {"PathEnd", 0},         {"PathRadiusOffset", 0},
                {"PathRevolutions", 0}, {"PathScaleX", 100},  {"PathScaleY", 100},    {"PathShearX", 0},
                {"PathShearY", 0},     {"PathSkew", 0},      {"PathTaperX", 0},      {"PathTaperY", 0},
                {"PathTwist", 0},      {"PathTwistBegin", 0}, {"PCode", 9},          {"ProfileBegin", 0},
                {"ProfileEnd", 0},     {"ProfileHollow", 0}};
    for (size_t i = 0; i < sizeof path / sizeof path[0]; i++)
        put(w, "%s<%s>%d</%s>\n", I, path[i].name, path[i].value, path[i].name);
    elem_vec3(w, I, "Scale", scale[0], scale[1], scale[2]);
    put(w, "%s<State>0</State>\n", I);
    put(w, "%s<LastAttachPoint>0</LastAttachPoint>\n", I);
    put(w, "%s<ProfileShape>Square</ProfileShape>\n", I);
    put(w, "%s<HollowShape>Same</HollowShape>\n", I);
    elem_uuid(w, I, "SculptTexture", pr->mesh);
    put(w, "%s<SculptType>5</SculptType>\n", I);
    static const char *zeros[] = {"FlexiSoftness", "FlexiTension", "FlexiDrag",   "FlexiGravity", "FlexiWind",
                                  "FlexiForceX",   "FlexiForceY",  "FlexiForceZ", "LightColorR",  "LightColorG",
                                  "LightColorB"};
    for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++)
        put(w, "%s<%s>0</%s>\n", I, zeros[i], zeros[i]);
    put(w, "%s<LightColorA>1</LightColorA>\n", I);
    put(w, "%s<LightRadius>0</LightRadius>\n", I);
    put(w, "%s<LightCutoff>0</LightCutoff>\n", I);
    put(w, "%s<LightFalloff>0</LightFalloff>\n", I);
    put(w, "%s<LightIntensity>1</LightIntensity>\n", I);
    put(w, "%s<FlexiEntry>false</FlexiEntry>\n", I);
    put(w, "%s<LightEntry>false</LightEntry>\n", I);
    put(w, "%s<SculptEntry>true</SculptEntry>\n", I);
    put(w, "      </Shape>\n");
}

/* One SceneObjectPart (SOPToXml2 order); the root holds the task inventory. */
static void part_xml(xw *w, const am_oar_input *in, const am_oar_plan *plan, const prim *pr)
{
    const char *I = "      ";
    double scale[3] = {in->scale[0], in->scale[1], in->scale[2]};
    if (scale[0] == 0 && scale[1] == 0 && scale[2] == 0)
        scale[0] = scale[1] = scale[2] = 1;
    size_t items = pr->root ? in->anim_count + (plan->has_script ? 1 : 0) : 0;
    put(w, "    <SceneObjectPart xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
           "xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n");
    put(w, "%s<AllowedDrop>false</AllowedDrop>\n", I);
    elem_uuid(w, I, "CreatorID", NULL);
    elem_uuid(w, I, "FolderID", pr->uuid);
    put(w, "%s<InventorySerial>%zu</InventorySerial>\n", I, items);
    if (items == 0) {
        put(w, "%s<TaskInventory />\n", I);
    } else {
        put(w, "%s<TaskInventory>\n", I);
        for (size_t i = 0; i < in->anim_count; i++)
            inventory_item(w, in, plan, &plan->anim_assets[i], &plan->anim_items[i], in->anims[i].name,
                           "animesh animation", 20, 19);
        if (plan->has_script)
            inventory_item(w, in, plan, &plan->script, &plan->script_item, "animesh start", "starts the animation",
                           10, 10);
        put(w, "%s</TaskInventory>\n", I);
    }
    put(w, "%s<ObjectFlags>0</ObjectFlags>\n", I);
    elem_uuid(w, I, "UUID", pr->uuid);
    put(w, "%s<LocalId>0</LocalId>\n", I);
    elem_text(w, I, "Name", pr->name);
    put(w, "%s<Material>3</Material>\n", I);
    put(w, "%s<PassTouches>false</PassTouches>\n", I);
    put(w, "%s<PassCollisions>false</PassCollisions>\n", I);
    put(w, "%s<RegionHandle>0</RegionHandle>\n", I);
    put(w, "%s<ScriptAccessPin>0</ScriptAccessPin>\n", I);
    /* every part's GroupPosition is the group's; a child sits on the root (offset 0) */
    elem_vec3(w, I, "GroupPosition", in->position[0], in->position[1], in->position[2]);
    elem_vec3(w, I, "OffsetPosition", 0, 0, 0);
    put(w, "%s<RotationOffset><X>0</X><Y>0</Y><Z>0</Z><W>1</W></RotationOffset>\n", I);
    elem_vec3(w, I, "Velocity", 0, 0, 0);
    elem_vec3(w, I, "AngularVelocity", 0, 0, 0);
    elem_vec3(w, I, "Acceleration", 0, 0, 0);
    elem_text(w, I, "Description", "");
    put(w, "%s<Color><R>0</R><G>0</G><B>0</B><A>255</A></Color>\n", I);
    elem_text(w, I, "Text", "");
    elem_text(w, I, "SitName", "");
    elem_text(w, I, "TouchName", "");
    put(w, "%s<LinkNum>%d</LinkNum>\n", I, pr->link_num);
    put(w, "%s<ClickAction>0</ClickAction>\n", I);
    shape(w, pr, scale);
    elem_vec3(w, I, "Scale", scale[0], scale[1], scale[2]);
    put(w, "%s<SitTargetOrientation><X>0</X><Y>0</Y><Z>0</Z><W>1</W></SitTargetOrientation>\n", I);
    elem_vec3(w, I, "SitTargetPosition", 0, 0, 0);
    elem_vec3(w, I, "SitTargetPositionLL", 0, 0, 0);
    put(w, "%s<SitTargetOrientationLL><X>0</X><Y>0</Y><Z>0</Z><W>1</W></SitTargetOrientationLL>\n", I);
    put(w, "%s<ParentID>0</ParentID>\n", I);
    put(w, "%s<CreationDate>%lld</CreationDate>\n", I, (long long)in->creation_time);
    put(w, "%s<Category>0</Category>\n", I);
    put(w, "%s<SalePrice>0</SalePrice>\n", I);
    put(w, "%s<ObjectSaleType>0</ObjectSaleType>\n", I);
    put(w, "%s<OwnershipCost>0</OwnershipCost>\n", I);
    elem_uuid(w, I, "GroupID", NULL);
    elem_uuid(w, I, "OwnerID", NULL);
    elem_uuid(w, I, "LastOwnerID", NULL);
    put(w, "%s<BaseMask>%u</BaseMask>\n", I, AM_PERM_ALL);
    put(w, "%s<OwnerMask>%u</OwnerMask>\n", I, AM_PERM_ALL);
    put(w, "%s<GroupMask>0</GroupMask>\n", I);
    put(w, "%s<EveryoneMask>0</EveryoneMask>\n", I);
    put(w, "%s<NextOwnerMask>%u</NextOwnerMask>\n", I, AM_PERM_ALL);
    put(w, "%s<Flags>None</Flags>\n", I);
    elem_uuid(w, I, "CollisionSound", NULL);
    put(w, "%s<CollisionSoundVolume>0</CollisionSoundVolume>\n", I);
    put(w, "    </SceneObjectPart>\n");
}

am_status am_oar_object_xml(const am_oar_input *in, const am_oar_plan *plan, am_buf *out, am_error *err)
{
    xw w = {out, err, AM_OK};
    bool linkset = in->child_count > 0;
    prim root = {&plan->part, &plan->mesh, plan->has_texture ? &plan->texture : NULL, {NULL}, 0,
                 in->has_color ? in->color : NULL, object_name(in), linkset ? 1 : 0, true};
    for (size_t f = 0; f < in->face_texture_count && f < AM_OAR_MAX_FACES; f++)
        root.faces[root.face_count++] = plan->face_has_texture[f] ? &plan->face_texture[f] : NULL;
    put(&w, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    put(&w, "<SceneObjectGroup>\n  <RootPart>\n");
    part_xml(&w, in, plan, &root);
    put(&w, "  </RootPart>\n");
    if (!linkset) {
        put(&w, "  <OtherParts />\n");
    } else {
        /* SceneObjectSerializer: <OtherParts><Part><SceneObjectPart>...</Part>... */
        put(&w, "  <OtherParts>\n");
        for (size_t i = 0; i < in->child_count; i++) {
            const am_oar_child *c = &in->children[i];
            prim child = {&plan->child_part[i], &plan->child_mesh[i],
                          plan->child_has_texture[i] ? &plan->child_texture[i] : NULL, {NULL}, 0,
                          c->has_color ? c->color : NULL,
                          c->name && c->name[0] ? c->name : object_name(in), (int)i + 2, false};
            put(&w, "  <Part>\n");
            part_xml(&w, in, plan, &child);
            put(&w, "  </Part>\n");
        }
        put(&w, "  </OtherParts>\n");
    }
    put(&w, "</SceneObjectGroup>\n");
    return w.s;
}

void am_oar_object_path(const am_oar_input *in, const am_oar_plan *plan, char *out, size_t size)
{
    /* OpenSim's tar reader takes the name from the 100-byte ustar name field only (no
     * prefix field, no pax headers), so the whole path must stay below 100 bytes: the
     * free-text name is cut to fit, and kept to safe file-name characters. */
    char id[37], tail[96];
    am_uuid_format(&plan->part, id);
    snprintf(tail, sizeof tail, "_%03ld-%03ld-%03ld__%s.xml", lround(in->position[0]), lround(in->position[1]),
             lround(in->position[2]), id);
    size_t fixed = strlen("objects/") + strlen(tail);
    size_t room = fixed < AM_OAR_MAX_PATH ? AM_OAR_MAX_PATH - fixed : 0;
    char name[AM_OAR_MAX_PATH];
    const char *src = object_name(in);
    size_t n = 0;
    for (; src[n] && n < room && n < sizeof name - 1; n++) {
        char c = src[n];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        name[n] = ok ? c : '_';
    }
    name[n] = '\0';
    snprintf(out, size, "objects/%s%s", name, tail);
}
