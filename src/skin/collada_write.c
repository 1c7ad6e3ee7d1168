/* COLLADA 1.4.1 writer for the viewer's uploader with "include joint positions"
 * (collada-upload.md 8, the exporter checklist):
 *  - <unit meter="1"/>, <up_axis>Z_UP</up_axis>: the uploader applies neither to skin data;
 *  - geometry in the bind frame with an identity <bind_shape_matrix> (an explicit skin:
 *    its mesh-space geometry and its own bind shape): the uploader's own normalisation
 *    then gives the asset exactly our bind shape (4.2);
 *  - one <triangles> per face, materials face0..face7 (sorted case-insensitively = in order);
 *  - <joints>: canonical names (underscore form), inverse binds in COLLADA order (the
 *    transpose of the skin block's LL layout, mesh-asset.md 5.2);
 *  - joint nodes nested exactly as avatar_skeleton.xml, every ancestor present, name = sid
 *    = id, first child <translate sid="translate"> = the alt translation the skin block
 *    carries (lessons rule 8), referenced by <skeleton> so the SID path applies (5.1).
 * Matrices and translations are written as the shortest text of their F32 value: the
 * viewer keeps them in F32, so nothing it would use is lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/skin_build.h"
#include "skin/skin_internal.h"

const char *am_skin_fmt(char buf[32], double v)
{
    if (v == 0)
        v = 0; /* no "-0" */
    snprintf(buf, 32, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, 32, "%.17g", v);
    return buf;
}

const char *am_skin_fmt_f32(char buf[32], float v)
{
    if (v == 0)
        v = 0;
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(buf, 32, "%.*g", digits, (double)v);
        if ((float)strtod(buf, NULL) == v)
            break;
    }
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

#define P(...)                                          \
    do {                                                \
        if ((st = am_buf_printf(out, err, __VA_ARGS__))) \
            return st;                                  \
    } while (0)

/* Text content with the XML special characters escaped. */
static am_status put_escaped(am_buf *out, const char *s, am_error *err)
{
    am_status st;
    for (; *s; s++) {
        switch (*s) {
        case '&': P("&amp;"); break;
        case '<': P("&lt;"); break;
        case '>': P("&gt;"); break;
        case '"': P("&quot;"); break;
        default: P("%c", *s);
        }
    }
    return AM_OK;
}

/* COLLADA writes matrices row-major with column vectors: row r, column c of the column
 * form is LL element m[4c + r]. */
static am_status put_matrix(am_buf *out, const am_mat4 *m, am_error *err)
{
    am_status st;
    char b[32];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            P("%s%s", (r || c) ? " " : "", am_skin_fmt_f32(b, (float)m->m[4 * c + r]));
    return AM_OK;
}

static am_status put_source(am_buf *out, const char *id, const float *v, size_t count, int stride,
                            const char *const *params, am_error *err)
{
    am_status st;
    P("        <source id=\"%s\">\n          <float_array id=\"%s-array\" count=\"%zu\">", id, id, count * (size_t)stride);
    char b[32];
    for (size_t i = 0; i < count * (size_t)stride; i++)
        P("%s%s", i ? " " : "", am_skin_fmt_f32(b, v[i]));
    P("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-array\" count=\"%zu\" "
      "stride=\"%d\">\n",
      id, count, stride);
    for (int k = 0; k < stride; k++)
        P("              <param name=\"%s\" type=\"float\"/>\n", params[k]);
    P("            </accessor>\n          </technique_common>\n        </source>\n");
    return AM_OK;
}

static am_status put_geometry(const am_skin_result *res, const char *nm, am_buf *out, am_error *err)
{
    am_status st;
    static const char *const xyz[] = {"X", "Y", "Z"}, *const st_[] = {"S", "T"};
    char id[160];
    P("  <library_geometries>\n    <geometry id=\"%s-mesh\" name=\"%s\">\n      <mesh>\n", nm, nm);
    snprintf(id, sizeof id, "%s-positions", nm);
    if ((st = put_source(out, id, res->positions, res->vertex_count, 3, xyz, err)))
        return st;
    snprintf(id, sizeof id, "%s-normals", nm);
    if ((st = put_source(out, id, res->normals, res->vertex_count, 3, xyz, err)))
        return st;
    snprintf(id, sizeof id, "%s-uvs", nm);
    if ((st = put_source(out, id, res->uvs, res->vertex_count, 2, st_, err)))
        return st;
    P("        <vertices id=\"%s-vertices\">\n          <input semantic=\"POSITION\" source=\"#%s-positions\"/>\n"
      "        </vertices>\n",
      nm, nm);
    for (size_t f = 0; f < res->face_count; f++) {
        size_t a = res->face_tri_start[f], b = res->face_tri_start[f + 1];
        P("        <triangles material=\"face%zu\" count=\"%zu\">\n"
          "          <input semantic=\"VERTEX\" source=\"#%s-vertices\" offset=\"0\"/>\n"
          "          <input semantic=\"NORMAL\" source=\"#%s-normals\" offset=\"1\"/>\n"
          "          <input semantic=\"TEXCOORD\" source=\"#%s-uvs\" offset=\"2\" set=\"0\"/>\n          <p>",
          f, b - a, nm, nm, nm);
        for (size_t i = 3 * a; i < 3 * b; i++) {
            uint32_t v = res->triangles[i];
            P("%s%u %u %u", i > 3 * a ? " " : "", v, v, v);
        }
        P("</p>\n        </triangles>\n");
    }
    P("      </mesh>\n    </geometry>\n  </library_geometries>\n");
    return AM_OK;
}

static am_status put_controller(const am_skin_result *res, const char *nm, am_buf *out, am_error *err)
{
    am_status st;
    const am_skin_info *skin = &res->asset.skin;
    size_t nj = skin->joint_count;
    char b[32];
    P("  <library_controllers>\n    <controller id=\"%s-skin\" name=\"%s\">\n      <skin source=\"#%s-mesh\">\n"
      "        <bind_shape_matrix>",
      nm, nm, nm);
    if ((st = put_matrix(out, &res->source_bind_shape, err)))
        return st;
    P("</bind_shape_matrix>\n");
    P("        <source id=\"%s-joints\">\n          <Name_array id=\"%s-joints-array\" count=\"%zu\">", nm, nm, nj);
    for (size_t j = 0; j < nj; j++) {
        char jn[64];
        am_skin_xml_name(jn, sizeof jn, skin->joint_names[j]);
        P("%s%s", j ? " " : "", jn);
    }
    P("</Name_array>\n          <technique_common>\n            <accessor source=\"#%s-joints-array\" count=\"%zu\" "
      "stride=\"1\">\n              <param name=\"JOINT\" type=\"name\"/>\n            </accessor>\n"
      "          </technique_common>\n        </source>\n",
      nm, nj);
    P("        <source id=\"%s-bindposes\">\n          <float_array id=\"%s-bindposes-array\" count=\"%zu\">", nm, nm,
      16 * nj);
    for (size_t j = 0; j < nj; j++) {
        if (j)
            P("\n");
        if ((st = put_matrix(out, &skin->inverse_bind[j], err)))
            return st;
    }
    P("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-bindposes-array\" "
      "count=\"%zu\" stride=\"16\">\n              <param name=\"TRANSFORM\" type=\"float4x4\"/>\n"
      "            </accessor>\n          </technique_common>\n        </source>\n",
      nm, nj);
    size_t nw = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        nw += res->weight_count[v];
    P("        <source id=\"%s-weights\">\n          <float_array id=\"%s-weights-array\" count=\"%zu\">", nm, nm, nw);
    size_t at = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        for (int k = 0; k < res->weight_count[v]; k++)
            P("%s%s", at++ ? " " : "", am_skin_fmt(b, res->weight_value[4 * v + k]));
    P("</float_array>\n          <technique_common>\n            <accessor source=\"#%s-weights-array\" "
      "count=\"%zu\" stride=\"1\">\n              <param name=\"WEIGHT\" type=\"float\"/>\n"
      "            </accessor>\n          </technique_common>\n        </source>\n",
      nm, nw);
    P("        <joints>\n          <input semantic=\"JOINT\" source=\"#%s-joints\"/>\n"
      "          <input semantic=\"INV_BIND_MATRIX\" source=\"#%s-bindposes\"/>\n        </joints>\n",
      nm, nm);
    P("        <vertex_weights count=\"%zu\">\n          <input semantic=\"JOINT\" source=\"#%s-joints\" offset=\"0\"/>\n"
      "          <input semantic=\"WEIGHT\" source=\"#%s-weights\" offset=\"1\"/>\n          <vcount>",
      res->vertex_count, nm, nm);
    for (size_t v = 0; v < res->vertex_count; v++)
        P("%s%d", v ? " " : "", res->weight_count[v]);
    P("</vcount>\n          <v>");
    at = 0;
    for (size_t v = 0; v < res->vertex_count; v++)
        for (int k = 0; k < res->weight_count[v]; k++, at++)
            P("%s%d %zu", at ? " " : "", res->weight_joint[4 * v + k], at);
    P("</v>\n        </vertex_weights>\n      </skin>\n    </controller>\n  </library_controllers>\n");
    return AM_OK;
}

static am_status put_joint_node(const am_skin_summary *sum, size_t j, int depth, am_buf *out, am_error *err)
{
    am_status st;
    char jn[64], x[32], y[32], z[32];
    am_skin_xml_name(jn, sizeof jn, sum->joints[j].name);
    const am_vec3 t = sum->joints[j].alt_pos;
    P("%*s<node id=\"%s\" name=\"%s\" sid=\"%s\" type=\"JOINT\">\n", 2 * depth, "", jn, jn, jn);
    P("%*s  <translate sid=\"translate\">%s %s %s</translate>\n", 2 * depth, "", am_skin_fmt_f32(x, (float)t.x),
      am_skin_fmt_f32(y, (float)t.y), am_skin_fmt_f32(z, (float)t.z));
    for (size_t c = 0; c < sum->joint_count; c++)
        if (sum->joints[c].parent == (int)j && (st = put_joint_node(sum, c, depth + 1, out, err)))
            return st;
    P("%*s</node>\n", 2 * depth, "");
    return AM_OK;
}

am_status am_write_collada(const am_skin_result *res, am_buf *out, am_error *err)
{
    am_status st;
    const am_skin_summary *sum = &res->summary;
    if (!res->asset.has_skin || sum->joint_count == 0 || res->face_count == 0)
        return am_fail(err, AM_ERR_INVALID, "collada: nothing to write (no skin built)");
    char nm[128];
    /* XML IDs start with a letter or '_' */
    nm[0] = '_';
    am_skin_xml_name(nm + 1, sizeof nm - 1, sum->name);
    const char *first = nm + 1;
    if ((*first >= 'a' && *first <= 'z') || (*first >= 'A' && *first <= 'Z') || *first == '_')
        memmove(nm, nm + 1, strlen(nm + 1) + 1);
    P("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
      "  <asset>\n    <contributor><authoring_tool>animesh %s</authoring_tool></contributor>\n"
      "    <unit name=\"meter\" meter=\"1\"/>\n    <up_axis>Z_UP</up_axis>\n  </asset>\n",
      AM_VERSION);
    char r[32], g[32], b[32];
    bool tex = res->textured && res->texture_image[0];
    if (tex) {
        P("  <library_images>\n    <image id=\"%s-image\" name=\"%s-image\">\n      <init_from>", nm, nm);
        if ((st = put_escaped(out, res->texture_image, err)))
            return st;
        P("</init_from>\n    </image>\n  </library_images>\n");
    }
    P("  <library_effects>\n    <effect id=\"%s-effect\">\n      <profile_COMMON>\n", nm);
    if (tex)
        P("        <newparam sid=\"%s-surface\">\n          <surface type=\"2D\"><init_from>%s-image</init_from></surface>\n"
          "        </newparam>\n        <newparam sid=\"%s-sampler\">\n"
          "          <sampler2D><source>%s-surface</source></sampler2D>\n        </newparam>\n",
          nm, nm, nm, nm);
    P("        <technique sid=\"common\">\n          <phong>\n");
    if (tex)
        P("            <diffuse><texture texture=\"%s-sampler\" texcoord=\"UVMap\"/></diffuse>\n", nm);
    else
        P("            <diffuse><color sid=\"diffuse\">%s %s %s 1</color></diffuse>\n", am_skin_fmt(r, res->rgb[0]),
          am_skin_fmt(g, res->rgb[1]), am_skin_fmt(b, res->rgb[2]));
    P("          </phong>\n        </technique>\n      </profile_COMMON>\n    </effect>\n  </library_effects>\n");
    P("  <library_materials>\n    <material id=\"%s-material\" name=\"%s\">\n"
      "      <instance_effect url=\"#%s-effect\"/>\n    </material>\n  </library_materials>\n",
      nm, nm, nm);
    if ((st = put_geometry(res, nm, out, err)) || (st = put_controller(res, nm, out, err)))
        return st;
    P("  <library_visual_scenes>\n    <visual_scene id=\"Scene\" name=\"Scene\">\n");
    for (size_t j = 0; j < sum->joint_count; j++)
        if (sum->joints[j].parent < 0 && (st = put_joint_node(sum, j, 3, out, err)))
            return st;
    P("      <node id=\"%s-node\" name=\"%s\" type=\"NODE\">\n        <instance_controller url=\"#%s-skin\">\n", nm, nm,
      nm);
    for (size_t j = 0; j < sum->joint_count; j++)
        if (sum->joints[j].parent < 0) {
            char jn[64];
            am_skin_xml_name(jn, sizeof jn, sum->joints[j].name);
            P("          <skeleton>#%s</skeleton>\n", jn);
        }
    P("          <bind_material>\n            <technique_common>\n");
    for (size_t f = 0; f < res->face_count; f++) {
        P("              <instance_material symbol=\"face%zu\" target=\"#%s-material\">", f, nm);
        if (tex)
            P("\n                <bind_vertex_input semantic=\"UVMap\" input_semantic=\"TEXCOORD\" input_set=\"0\"/>\n"
              "              ");
        P("</instance_material>\n");
    }
    P("            </technique_common>\n          </bind_material>\n        </instance_controller>\n      </node>\n"
      "    </visual_scene>\n  </library_visual_scenes>\n"
      "  <scene>\n    <instance_visual_scene url=\"#Scene\"/>\n  </scene>\n</COLLADA>\n");
    return AM_OK;
}
