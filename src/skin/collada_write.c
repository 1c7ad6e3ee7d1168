/* COLLADA 1.4.1 writer for the viewer's uploader with "include joint positions"
 * (docs/reference/collada-upload.md#exporter-checklist, the exporter checklist):
 *  - <unit meter="1"/>, <up_axis>Z_UP</up_axis>: the uploader applies neither to skin data;
 *  - geometry in the bind frame with an identity <bind_shape_matrix> (an explicit skin:
 *    its mesh-space geometry and its own bind shape): the uploader's own normalisation
 *    then gives the asset exactly our bind shape (4.2);
 *  - one <triangles> per face, materials face0..face7 (sorted case-insensitively = in order);
 *  - <joints>: canonical names (underscore form), inverse binds in COLLADA order (the
 *    transpose of the skin block's LL layout, docs/reference/mesh-asset.md#matrix-layout);
 *  - joint nodes nested exactly as avatar_skeleton.xml, every ancestor present, name = sid
 *    = id, first child <translate sid="translate"> = the alt translation the skin block
 *    carries (docs/reference/lessons.md#rule-8), referenced by <skeleton> so the SID path applies (5.1).
 *  - the corners index positions, normals and UVs with one shared index (every input at
 *    offset 0: the uploader's stride is the largest offset + 1, lldaeloader.cpp
 *    get_dom_sources), a third of the text of one index per input.
 * Matrices and translations are written as the shortest text of their F32 value: the
 * viewer keeps them in F32, so nothing it would use is lost. The text is produced through a
 * buffered writer (core/textout.h) into memory or straight into a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numfmt.h"
#include "core/textout.h"
#include "skin/skin_build.h"
#include "skin/skin_internal.h"

const char *am_skin_fmt(char buf[32], double v)
{
    am_fmt_f64(buf, v);
    return buf;
}

const char *am_skin_fmt_f32(char buf[32], float v)
{
    am_fmt_f32(buf, v);
    return buf;
}

void am_skin_xml_name(char *out, size_t size, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '-' || c == '.';
        out[i] = ok ? c : '_';
    }
    out[i] = '\0';
}

#define S(s) am_out_str(o, s)
#define F(...) am_out_printf(o, __VA_ARGS__)

/* Text content with the XML special characters escaped. */
static void put_escaped(am_textout *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': S("&amp;"); break;
        case '<': S("&lt;"); break;
        case '>': S("&gt;"); break;
        case '"': S("&quot;"); break;
        default: am_out_char(o, *s);
        }
    }
}

/* COLLADA writes matrices row-major with column vectors: row r, column c of the column
 * form is LL element m[4c + r]. */
static void put_matrix(am_textout *o, const am_mat4 *m)
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            if (r || c)
                am_out_char(o, ' ');
            am_out_f32(o, (float)m->m[4 * c + r]);
        }
}

static void put_source(am_textout *o, const char *id, const float *v, size_t count, int stride,
                       const char *const *params)
{
    F("        <source id=\"%s\">\n          <float_array id=\"%s-array\" count=\"%zu\">", id, id, count * (size_t)stride);
    for (size_t i = 0; i < count * (size_t)stride; i++) {
        if (i)
            am_out_char(o, ' ');
        am_out_f32(o, v[i]);
    }
    F("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-array\" count=\"%zu\" "
      "stride=\"%d\">\n",
      id, count, stride);
    for (int k = 0; k < stride; k++)
        F("              <param name=\"%s\" type=\"float\"/>\n", params[k]);
    S("            </accessor>\n          </technique_common>\n        </source>\n");
}

static void put_geometry(const am_skin_result *res, const char *nm, am_textout *o)
{
    static const char *const xyz[] = {"X", "Y", "Z"}, *const st_[] = {"S", "T"};
    char id[160];
    F("  <library_geometries>\n    <geometry id=\"%s-mesh\" name=\"%s\">\n      <mesh>\n", nm, nm);
    snprintf(id, sizeof id, "%s-positions", nm);
    put_source(o, id, res->positions, res->vertex_count, 3, xyz);
    snprintf(id, sizeof id, "%s-normals", nm);
    put_source(o, id, res->normals, res->vertex_count, 3, xyz);
    snprintf(id, sizeof id, "%s-uvs", nm);
    put_source(o, id, res->uvs, res->vertex_count, 2, st_);
    F("        <vertices id=\"%s-vertices\">\n          <input semantic=\"POSITION\" source=\"#%s-positions\"/>\n"
      "        </vertices>\n",
      nm, nm);
    for (size_t f = 0; f < res->face_count; f++) {
        size_t a = res->face_tri_start[f], b = res->face_tri_start[f + 1];
        F("        <triangles material=\"face%zu\" count=\"%zu\">\n"
          "          <input semantic=\"VERTEX\" source=\"#%s-vertices\" offset=\"0\"/>\n"
          "          <input semantic=\"NORMAL\" source=\"#%s-normals\" offset=\"0\"/>\n"
          "          <input semantic=\"TEXCOORD\" source=\"#%s-uvs\" offset=\"0\" set=\"0\"/>\n          <p>",
          f, b - a, nm, nm, nm);
        for (size_t i = 3 * a; i < 3 * b; i++) {
            if (i > 3 * a)
                am_out_char(o, ' ');
            am_out_u64(o, res->triangles[i]);
        }
        S("</p>\n        </triangles>\n");
    }
    S("      </mesh>\n    </geometry>\n  </library_geometries>\n");
}

static void put_controller(const am_skin_result *res, const char *nm, am_textout *o)
{
    const am_mesh_skin *skin = &res->asset.skin;
    size_t nj = skin->joint_count;
    F("  <library_controllers>\n    <controller id=\"%s-skin\" name=\"%s\">\n      <skin source=\"#%s-mesh\">\n"
      "        <bind_shape_matrix>",
      nm, nm, nm);
    put_matrix(o, &res->source_bind_shape);
    S("</bind_shape_matrix>\n");
    F("        <source id=\"%s-joints\">\n          <Name_array id=\"%s-joints-array\" count=\"%zu\">", nm, nm, nj);
    for (size_t j = 0; j < nj; j++) {
        char jn[64];
        am_skin_xml_name(jn, sizeof jn, skin->joint_names[j]);
        if (j)
            am_out_char(o, ' ');
        S(jn);
    }
    F("</Name_array>\n          <technique_common>\n            <accessor source=\"#%s-joints-array\" count=\"%zu\" "
      "stride=\"1\">\n              <param name=\"JOINT\" type=\"name\"/>\n            </accessor>\n"
      "          </technique_common>\n        </source>\n",
      nm, nj);
    F("        <source id=\"%s-bindposes\">\n          <float_array id=\"%s-bindposes-array\" count=\"%zu\">", nm, nm,
      16 * nj);
    for (size_t j = 0; j < nj; j++) {
        if (j)
            am_out_char(o, '\n');
        put_matrix(o, &skin->inverse_bind[j]);
    }
    F("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-bindposes-array\" "
      "count=\"%zu\" stride=\"16\">\n              <param name=\"TRANSFORM\" type=\"float4x4\"/>\n"
      "            </accessor>\n          </technique_common>\n        </source>\n",
      nm, nj);
    size_t nw = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        nw += res->weight_count[v];
    F("        <source id=\"%s-weights\">\n          <float_array id=\"%s-weights-array\" count=\"%zu\">", nm, nm, nw);
    size_t at = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        for (int k = 0; k < res->weight_count[v]; k++) {
            if (at++)
                am_out_char(o, ' ');
            am_out_f64(o, res->weight_value[4 * v + k]);
        }
    F("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-weights-array\" "
      "count=\"%zu\" stride=\"1\">\n              <param name=\"WEIGHT\" type=\"float\"/>\n"
      "            </accessor>\n          </technique_common>\n        </source>\n",
      nm, nw);
    F("        <joints>\n          <input semantic=\"JOINT\" source=\"#%s-joints\"/>\n"
      "          <input semantic=\"INV_BIND_MATRIX\" source=\"#%s-bindposes\"/>\n        </joints>\n",
      nm, nm);
    F("        <vertex_weights count=\"%zu\">\n          <input semantic=\"JOINT\" source=\"#%s-joints\" offset=\"0\"/>\n"
      "          <input semantic=\"WEIGHT\" source=\"#%s-weights\" offset=\"1\"/>\n          <vcount>",
      res->vertex_count, nm, nm);
    for (size_t v = 0; v < res->vertex_count; v++) {
        if (v)
            am_out_char(o, ' ');
        am_out_u64(o, res->weight_count[v]);
    }
    S("</vcount>\n          <v>");
    at = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        for (int k = 0; k < res->weight_count[v]; k++, at++) {
            if (at)
                am_out_char(o, ' ');
            am_out_u64(o, res->weight_joint[4 * v + k]);
            am_out_char(o, ' ');
            am_out_u64(o, at);
        }
    S("</v>\n        </vertex_weights>\n      </skin>\n    </controller>\n  </library_controllers>\n");
}

static void put_joint_node(const am_skin_summary *sum, size_t j, int depth, am_textout *o)
{
    char jn[64];
    am_skin_xml_name(jn, sizeof jn, am_str(&sum->joints[j].name));
    const am_vec3 t = sum->joints[j].alt_pos;
    F("%*s<node id=\"%s\" name=\"%s\" sid=\"%s\" type=\"JOINT\">\n", 2 * depth, "", jn, jn, jn);
    F("%*s  <translate sid=\"translate\">", 2 * depth, "");
    am_out_f32(o, (float)t.x);
    am_out_char(o, ' ');
    am_out_f32(o, (float)t.y);
    am_out_char(o, ' ');
    am_out_f32(o, (float)t.z);
    S("</translate>\n");
    for (size_t c = 0; c < sum->joint_count; c++)
        if (sum->joints[c].parent == (int)j)
            put_joint_node(sum, c, depth + 1, o);
    F("%*s</node>\n", 2 * depth, "");
}

static am_status put_collada(const am_skin_result *res, am_textout *o)
{
    const am_skin_summary *sum = &res->summary;
    if (!res->asset.has_skin || sum->joint_count == 0 || res->face_count == 0)
        return am_fail(o->err, AM_ERR_INVALID, "collada: nothing to write (no skin built)");
    char nm[128];
    /* XML IDs start with a letter or '_' */
    nm[0] = '_';
    am_skin_xml_name(nm + 1, sizeof nm - 1, am_str(&sum->name));
    const char *first = nm + 1;
    if ((*first >= 'a' && *first <= 'z') || (*first >= 'A' && *first <= 'Z') || *first == '_')
        memmove(nm, nm + 1, strlen(nm + 1) + 1);
    F("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
      "  <asset>\n    <contributor><authoring_tool>animesh %s</authoring_tool></contributor>\n"
      "    <unit name=\"meter\" meter=\"1\"/>\n    <up_axis>Z_UP</up_axis>\n  </asset>\n",
      AM_VERSION);
    bool tex = res->textured && !am_string_empty(&res->texture_image);
    /* one material per face when each has its own image (a merged creature's parts), else one
     * for all: "NAME-material" or "NAME-materialF" */
    size_t nmat = res->face_image_count == res->face_count && res->face_count > 1 ? res->face_count : 1;
    bool per_face = nmat > 1;
    char sfx[16] = "";
    bool any_image = tex && !per_face;
    for (size_t f = 0; per_face && f < nmat; f++)
        any_image |= !am_string_empty(&res->face_images[f]);
    if (any_image) { /* COLLADA: a library holds at least one element */
        S("  <library_images>\n");
        for (size_t f = 0; f < nmat; f++) {
            const char *img = per_face ? am_str(&res->face_images[f]) : am_str(&res->texture_image);
            if (per_face)
                snprintf(sfx, sizeof sfx, "%zu", f);
            if (!img[0])
                continue;
            F("    <image id=\"%s-image%s\" name=\"%s-image%s\">\n      <init_from>", nm, sfx, nm, sfx);
            put_escaped(o, img);
            S("</init_from>\n    </image>\n");
        }
        S("  </library_images>\n");
    }
    S("  <library_effects>\n");
    for (size_t f = 0; f < nmat; f++) {
        if (per_face)
            snprintf(sfx, sizeof sfx, "%zu", f);
        bool ft = per_face ? !am_string_empty(&res->face_images[f]) : tex;
        F("    <effect id=\"%s-effect%s\">\n      <profile_COMMON>\n", nm, sfx);
        if (ft)
            F("        <newparam sid=\"%s-surface%s\">\n          <surface type=\"2D\"><init_from>%s-image%s</init_from>"
              "</surface>\n        </newparam>\n        <newparam sid=\"%s-sampler%s\">\n"
              "          <sampler2D><source>%s-surface%s</source></sampler2D>\n        </newparam>\n",
              nm, sfx, nm, sfx, nm, sfx, nm, sfx);
        S("        <technique sid=\"common\">\n          <phong>\n");
        if (ft)
            F("            <diffuse><texture texture=\"%s-sampler%s\" texcoord=\"UVMap\"/></diffuse>\n", nm, sfx);
        else {
            S("            <diffuse><color sid=\"diffuse\">");
            for (int k = 0; k < 3; k++) {
                am_out_f64(o, res->rgb[k]);
                am_out_char(o, ' ');
            }
            S("1</color></diffuse>\n");
        }
        S("          </phong>\n        </technique>\n      </profile_COMMON>\n    </effect>\n");
    }
    S("  </library_effects>\n  <library_materials>\n");
    for (size_t f = 0; f < nmat; f++) {
        if (per_face)
            snprintf(sfx, sizeof sfx, "%zu", f);
        F("    <material id=\"%s-material%s\" name=\"%s%s\">\n      <instance_effect url=\"#%s-effect%s\"/>\n"
          "    </material>\n",
          nm, sfx, nm, sfx, nm, sfx);
    }
    S("  </library_materials>\n");
    put_geometry(res, nm, o);
    put_controller(res, nm, o);
    S("  <library_visual_scenes>\n    <visual_scene id=\"Scene\" name=\"Scene\">\n");
    for (size_t j = 0; j < sum->joint_count; j++)
        if (sum->joints[j].parent < 0)
            put_joint_node(sum, j, 3, o);
    F("      <node id=\"%s-node\" name=\"%s\" type=\"NODE\">\n        <instance_controller url=\"#%s-skin\">\n", nm, nm,
      nm);
    for (size_t j = 0; j < sum->joint_count; j++)
        if (sum->joints[j].parent < 0) {
            char jn[64];
            am_skin_xml_name(jn, sizeof jn, am_str(&sum->joints[j].name));
            F("          <skeleton>#%s</skeleton>\n", jn);
        }
    S("          <bind_material>\n            <technique_common>\n");
    for (size_t f = 0; f < res->face_count; f++) {
        if (per_face)
            snprintf(sfx, sizeof sfx, "%zu", f);
        F("              <instance_material symbol=\"face%zu\" target=\"#%s-material%s\">", f, nm, sfx);
        if (per_face ? !am_string_empty(&res->face_images[f]) : tex)
            S("\n                <bind_vertex_input semantic=\"UVMap\" input_semantic=\"TEXCOORD\" input_set=\"0\"/>\n"
              "              ");
        S("</instance_material>\n");
    }
    S("            </technique_common>\n          </bind_material>\n        </instance_controller>\n      </node>\n"
      "    </visual_scene>\n  </library_visual_scenes>\n"
      "  <scene>\n    <instance_visual_scene url=\"#Scene\"/>\n  </scene>\n</COLLADA>\n");
    return am_textout_finish(o);
}

am_status am_skin_write_collada(const am_skin_result *res, am_buf *out, am_error *err)
{
    am_textout *o = malloc(sizeof *o);
    if (!o)
        return am_fail_nomem(err, "collada");
    am_textout_to_buf(o, out, err);
    am_status st = put_collada(res, o);
    free(o);
    return st;
}

am_status am_skin_write_collada_file(const am_skin_result *res, FILE *f, const char *name, am_error *err)
{
    am_textout *o = malloc(sizeof *o);
    if (!o)
        return am_fail_nomem(err, "collada");
    am_textout_to_file(o, f, name, err);
    am_status st = put_collada(res, o);
    free(o);
    return st;
}
