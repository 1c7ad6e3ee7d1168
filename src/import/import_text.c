/* Import's report in words (import_text.h). */
#include "import/import_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"

/* printf onto a buffer; the first failure sticks in *s */
static void P(am_buf *b, am_status *s, am_error *err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void P(am_buf *b, am_status *s, am_error *err, const char *fmt, ...)
{
    if (*s)
        return;
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *s = am_buf_append(b, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, err);
}

/* --- the remedies ------------------------------------------------------------------------- */

typedef struct finding_kind {
    const char *code;
    bool warning;
    const char *remedy;
} finding_kind;

static const finding_kind kinds[] = {
    {"exploded", true,
     "open the pose sheet (the bench option): a broken weight or a motion made for another body; "
     "fix the weights, or leave that motion out"},
    {"strain", true,
     "look at the pose sheet (the bench option): smooth the weights where the skin stretches, or choose a "
     "motion that fits the body"},
    {"rest_error", true, "set the normalize_binds option: the rest pose is then exact in the viewer"},
    {"unknown_joints", true, "rename the joints to the viewer's (animesh map suggest), or keep the retarget"},
    {"retarget_warning", true,
     "check the named joints in the pose sheet; give them a place with a joint map (the map option) "
     "(animesh map suggest writes one)"},
    {"axes_conflict", true, "give the axes: the up and forward options (and the scale option)"},
    {"unweighted_vertices", true, "weight those vertices in the file (the viewer binds them to the first joint)"},
    {"coincident_weights", true,
     "the uploader gives coincident vertices one set of weights: separate them or "
     "give them the same weights"},
    {"more_than_8_faces", true, "join materials so a part has at most 8 (the uploader splits the rest off)"},
    {"texture_not_read", true, "export the texture as PNG or JPEG beside the model"},
    {"meshdata_skipped", true, "one material per part for WorldBridge meshdata (or ignore: the .llmesh has all faces)"},
    {"bind_shape_rotation", true, "apply the rotation to the mesh in the modelling tool and export again"},
    {"joint_not_in_scene", true, "export the armature with the mesh (the uploader needs every skin joint's node)"},
    {"flattened_hierarchy", true, "export the armature's hierarchy (joints as children of their parents)"},
    {"motion_rest_pose", true, "set the bvh_align_rest option to turn the BVH's bones onto its own zero pose"},
    {"motion_retarget", true,
     "check the motion in the pose sheet (the bench option) or the preview (the preview option)"},
    {"pelvis_override", false,
     "nothing, unless the object floats or sinks in-world: then lower or raise it by that "
     "much, or import with the place option pelvis"},
    {"moved_joints", false,
     "nothing: the viewer applies the joint positions the rig carries (upload with "
     "\"include joint positions\")"},
    {"scaled_inverse_binds", false,
     "nothing; the normalize_binds option writes pure translations if the viewer's rest pose "
     "drifts"},
    {"reader", false, "nothing: what the file reader skipped or converted"},
    {"axes", false, "nothing; the up, forward and scale options if the creature lies down or has the wrong size"},
    {"up_axis", false, "nothing; export with Z_UP if the object appears rolled in-world"},
    {"unit", false, "nothing; scale the object in-world if its size is wrong"},
    {"joint_map", false, "check the map (the full report text); a joint map (the map option) overrides any part of it"},
    {"joint_map_note", false, "nothing; a joint map (the map option) if a joint went to the wrong viewer joint"},
    {"retarget_note", false, "nothing: how the retarget read the file"},
    {"merged", false, "nothing"},
    {"texture_resized", false, "nothing; a power-of-two texture of at most 1024 px keeps its detail"},
    {"normalize_binds_not_needed", false, "nothing: the rig's binds are already pure translations"},
    {"one_texture_per_part", false, "nothing; one material per mesh keeps every texture"},
    {"empty_mesh", false, "nothing: a mesh without triangles is skipped"},
    {"static_mesh_skipped", false, "bind it to a joint in the modelling tool if it should move with the creature"},
    {"motion_joint_map", false,
     "nothing; a joint map (the map option) if a joint of the motion went to the wrong place"},
    {"skin_warning", true, "see the warning (docs/skin.md explains each)"},
    {"motion_loop_closed", false,
     "nothing: the seam was blended closed (the loop_tolerance_deg option bounds how far); "
     "look at the wrap in the preview if the change is large"},
    {"merged_faces", false, "nothing: each part's material is a face of the one asset (at most 8)"},
    {"body_plan", false, "nothing: how the creature's limbs were read (docs/map.md \"Body plans\")"},
    {"motion_name_shortened", false,
     "nothing; rename the clip or file (63 bytes at most) to choose the motion's name yourself"},
    {"motion_body_plan", true,
     "leave that motion out, or use one made for this creature's body plan (it was "
     "taken only because of the allow_body_mismatch option)"},
};

/* Where to cut a long text near `at`: before an option it names ("the normalize_binds option")
 * rather than inside it, so the command line can still show the whole phrase as its flag. */
static size_t option_cut(const char *text, size_t at)
{
    for (size_t p = at; p + 40 > at && p > 0; p--) {
        if (strncmp(text + p, "the ", 4) != 0)
            continue;
        const char *end = strstr(text + p, " option");
        if (end && (size_t)(end - text) + 7 > at && (size_t)(end - text) < p + 40)
            return p > 0 && text[p - 1] == ' ' ? p - 1 : p;
        break;
    }
    return at;
}

static const finding_kind *kind_of(const char *code)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].code, code) == 0)
            return &kinds[i];
    return NULL;
}

const char *am_import_finding_remedy(const char *code)
{
    const finding_kind *k = kind_of(code);
    return k ? k->remedy : "read it in the full report (NAME.import.txt) and check the pose sheet (the bench option)";
}

bool am_import_finding_is_warning(const char *code)
{
    const finding_kind *k = kind_of(code);
    return k ? k->warning : true;
}

/* A skin warning's own remedy, by what it says. */
static const char *skin_warning_remedy(const char *w)
{
    if (strstr(w, "appears") && strstr(w, "higher"))
        return "lower the object in-world by that much, or put the rig's mPelvis back at its default position "
               "and export again";
    if (strstr(w, "; lower ") || strstr(w, "; pass ") || strstr(w, ": pass "))
        return "as the warning says";
    if (strstr(w, "too small to store"))
        return "nothing: the weight was below what the asset can store";
    return am_import_finding_remedy("skin_warning");
}

/* --- the full text ------------------------------------------------------------------------ */

static void vec(am_buf *o, am_status *s, am_error *e, const char *label, am_vec3 v)
{
    P(o, s, e, "%s(%.3f, %.3f, %.3f)", label, v.x, v.y, v.z);
}

am_status am_import_report_text(const am_import_report *r, am_buf *o, am_error *err)
{
    static const char *const up[] = {"not declared (Y_UP assumed)", "X_UP", "Y_UP", "Z_UP"};
    char src[1024], nm[512], b[2048], c[2048];
    am_status s = AM_OK;
    am_error *e = err;
    P(o, &s, e, "%s: %s; %s route%s\n", am_text_shown(am_str(&r->source), src, sizeof src), am_str(&r->format),
      am_import_route_name(r->route),
      r->route == AM_IMPORT_FAITHFUL ? " (rigged to the viewer skeleton: the uploader's own skin)"
                                     : " (another skeleton: mapped onto the viewer's, rig and motions computed)");
    if (r->route == AM_IMPORT_RETARGET) {
        P(o, &s, e, "axes: %s\njoint map:\n", am_str(&r->axes));
        for (size_t i = 0; i < r->map_count; i++) {
            const am_import_map_entry *m = &r->map[i];
            if (!am_string_empty(&m->viewer))
                P(o, &s, e, "  %-28s -> %-20s %.2f  %s\n", am_text_shown(am_str(&m->rig), nm, sizeof nm), am_str(&m->viewer),
                  m->confidence, am_text_shown(am_str(&m->reason), b, sizeof b));
            else
                P(o, &s, e, "  %-28s    %-20s       %s\n", am_text_shown(am_str(&m->rig), nm, sizeof nm), "(unmapped)",
                  am_text_shown(am_str(&m->reason), b, sizeof b));
        }
    }
    if (r->route == AM_IMPORT_FAITHFUL)
        P(o, &s, e, "declared: unit %g m, %s (the uploader applies them to the object only, never to the skin)\n",
          r->declared.unit_m > 0 ? r->declared.unit_m : 1.0,
          up[r->declared.up >= 0 && r->declared.up <= 3 ? r->declared.up : 0]);
    for (size_t i = 0; i < r->part_count; i++) {
        const am_import_part_report *p = &r->parts[i];
        P(o, &s, e, "part %s (mesh %s): %zu %s, %zu vertices %s, %zu face%s, %zu triangles\n",
          am_text_shown(am_str(&p->name), nm, sizeof nm), am_text_shown(am_str(&p->meshes), b, sizeof b), p->positions,
          r->route == AM_IMPORT_FAITHFUL ? "COLLADA positions" : "source vertices", p->vertices,
          r->route == AM_IMPORT_FAITHFUL ? "after welding" : "written", p->faces, p->faces == 1 ? "" : "s",
          p->triangles);
        P(o, &s, e, "  joints %zu (%zu weighted), %zu moved from their default", p->joint_count, p->weighted_joints,
          p->moved_joints);
        double best = -1;
        const char *who = NULL;
        for (size_t j = 0; j < p->joint_count; j++)
            if (p->joints[j].moved_m > best) {
                best = p->joints[j].moved_m;
                who = am_str(&p->joints[j].name);
            }
        if (p->moved_joints && who)
            P(o, &s, e, " (largest offset change from its viewer parent %s: %.4f m)", am_text_shown(who, nm, sizeof nm),
              best);
        P(o, &s, e, "; %zu inverse binds carry scale or rotation\n", p->scaled_binds);
        if (p->rest_error_before_m >= 0)
            P(o, &s, e,
              "  rest error (bench): %.6f m with the file's inverse binds, %.6f m written (the normalize_binds "
              "option)\n",
              p->rest_error_before_m, p->rest_error_m);
        else
            P(o, &s, e, "  rest error (bench, written asset): %.6f m\n", p->rest_error_m);
        if (p->pelvis_override) {
            vec(o, &s, e, "  mPelvis override ", p->pelvis_position);
            P(o, &s, e, ": the whole mesh hangs from it; motions with pelvis position keys replace it\n");
        }
        if (p->skin && p->skin->cost_known)
            P(o, &s, e, "  triangles per LOD %zu / %zu / %zu / %zu; animesh estimate %.0f; streaming cost %.3f\n",
              p->skin->lod_triangles[AM_LOD_HIGH], p->skin->lod_triangles[AM_LOD_MEDIUM],
              p->skin->lod_triangles[AM_LOD_LOW], p->skin->lod_triangles[AM_LOD_LOWEST], p->skin->est_tris_max,
              p->skin->streaming_cost);
        for (size_t a = 0; a < p->anim_count; a++) {
            const am_import_anim_result *m = &p->anims[a];
            P(o, &s, e, "  bench '%s' (%.2f s, %zu samples): box ", am_text_shown(am_str(&m->name), nm, sizeof nm),
              m->duration_s, m->samples);
            vec(o, &s, e, "", m->min_prim);
            vec(o, &s, e, "..", m->max_prim);
            P(o, &s, e,
              " m (prim frame), max displacement %.4f m, strain %.3f..%.3f, %.2f%% outside 0.5..1.6, tear %.3f m, "
              "spike %.3f m: %s\n",
              m->max_displacement_m, m->strain_p1, m->strain_p99, 100 * m->strain_share, m->tear_m, m->spike_m,
              m->exploded ? "EXPLODES" : m->strained ? "strained, not exploding" : "ok");
        }
        if (!am_string_empty(&p->pose_sheet))
            P(o, &s, e, "  pose sheet %s\n", am_str(&p->pose_sheet));
        for (size_t w = 0; p->skin && w < p->skin->warning_count; w++)
            P(o, &s, e, "  warning: %s\n    do: %s\n", am_text_shown(am_str(&p->skin->warnings[w]), c, sizeof c),
              skin_warning_remedy(am_str(&p->skin->warnings[w])));
    }
    if (!am_string_empty(&r->pose_sheet))
        P(o, &s, e, "pose sheet of all %zu parts together %s\n", r->part_count, am_str(&r->pose_sheet));
    for (size_t i = 0; i < r->motion_count; i++) {
        const am_import_motion *m = &r->motion_info[i];
        if (m->retargeted)
            P(o, &s, e,
              "motion %s: clip '%s' of %s: %zu joints mapped, %zu unmapped; %.3f s, %s; %zu keys -> %zu; "
              "bone directions within %.2f deg of the source's\n",
              am_str(&m->name), am_str(&m->clip), am_str(&m->source), m->joints_mapped, m->joints_unmapped, m->duration_s,
              m->loop ? "looping" : "not looping", m->keys_before, m->keys_after, m->worst_direction_deg);
    }
    if (!am_string_empty(&r->plays))
        P(o, &s, e, "archive: plays %s on rez (the play option chooses another)\n", am_str(&r->plays));
    if (r->finding_count)
        P(o, &s, e, "what the viewer will do with it:\n");
    for (size_t i = 0; i < r->finding_count; i++)
        P(o, &s, e, "  [%s] %s\n    do: %s\n", am_str(&r->findings[i].code),
          am_text_shown(am_str(&r->findings[i].text), c, sizeof c), am_import_finding_remedy(am_str(&r->findings[i].code)));
    for (size_t i = 0; i < r->written_count; i++)
        P(o, &s, e, "wrote %s\n", am_str(&r->written[i]));
    for (size_t i = 0; i < r->removed_count; i++)
        P(o, &s, e, "removed %s (the previous run's, not written by this one)\n", am_str(&r->removed[i]));
    return s;
}

/* --- the summary --------------------------------------------------------------------------- */

/* One kind of finding or warning: its first text and how many times it came. */
typedef struct group {
    const char *code;      /* the first one's (the report's) */
    const char *text;      /* the first one's */
    const char *remedy;
    size_t count;
    bool warning;
} group;

static void add_group(group *g, size_t *n, size_t cap, const char *code, const char *text, const char *remedy,
                      bool warning, bool by_text)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(g[i].code, code) == 0 && (!by_text || strcmp(g[i].text, text) == 0)) {
            g[i].count++;
            return;
        }
    if (*n == cap)
        return;
    g[*n].code = code;
    g[*n].text = text;
    g[*n].remedy = remedy;
    g[*n].count = 1;
    g[*n].warning = warning;
    (*n)++;
}

/* "9 .llmesh, 9 .dae, ..." of the written files */
static void written_kinds(const am_import_report *r, char *buf, size_t size)
{
    const char *ext[] = {".llmesh", ".dae", ".rig.json", ".meshdata.json", ".j2c", ".jpg", ".anim", ".png", ".html", ".oar",
                         ".txt"};
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
        size_t c = 0;
        for (size_t i = 0; i < r->written_count; i++) {
            const char *w = am_str(&r->written[i]);
            size_t l = r->written[i].length, el = strlen(ext[k]);
            c += l >= el && strcmp(w + l - el, ext[k]) == 0 && !(k == 1 && l >= 8 && strcmp(w + l - 8, ".dae.txt") == 0);
        }
        if (c && n < size) {
            int w = snprintf(buf + n, size - n, "%s%zu %s", n ? ", " : "", c, ext[k]);
            if (w > 0)
                n += (size_t)w;
        }
    }
}

am_status am_import_summary_text(const am_import_report *r, const char *out_dir, const char *report_file, am_buf *o,
                                 am_error *err)
{
    am_status s = AM_OK;
    am_error *e = err;
    char src[1024], t[400], kinds_buf[300];
    size_t lines = 0;
    /* 1: the source and the route */
    P(o, &s, e, "%s: %s; %s route\n", am_text_shown(am_str(&r->source), src, sizeof src), am_str(&r->format),
      am_import_route_name(r->route));
    lines++;
    /* 2: the parts */
    size_t verts = 0, tris = 0, joints = 0, mapped = 0;
    for (size_t i = 0; i < r->part_count; i++) {
        verts += r->parts[i].vertices;
        tris += r->parts[i].triangles;
        joints = r->parts[i].joint_count > joints ? r->parts[i].joint_count : joints;
    }
    for (size_t i = 0; i < r->map_count; i++)
        mapped += !am_string_empty(&r->map[i].viewer);
    P(o, &s, e, "parts: %zu (%zu vertices, %zu triangles, up to %zu joints", r->part_count, verts, tris, joints);
    if (r->route == AM_IMPORT_RETARGET)
        P(o, &s, e, "; %zu of %zu source joints mapped", mapped, r->map_count);
    P(o, &s, e, ")\n");
    lines++;
    /* 3: the motions */
    if (r->motion_count) {
        size_t n = 0;
        t[0] = '\0';
        for (size_t i = 0; i < r->motion_count && i < 16 && n < sizeof t - 80; i++) {
            int w = snprintf(t + n, sizeof t - n, "%s%s %.2f s%s", i ? ", " : "", am_str(&r->motion_info[i].name),
                             r->motion_info[i].duration_s, r->motion_info[i].loop ? " looping" : "");
            if (w > 0)
                n += (size_t)w;
        }
        P(o, &s, e, "motions: %zu (%s%s)%s%s%s\n", r->motion_count, t, r->motion_count > 16 ? ", ..." : "",
          !am_string_empty(&r->plays) ? "; " : "", am_str(&r->plays), !am_string_empty(&r->plays) ? " plays on rez" : "");
        lines++;
    }
    /* the findings and the parts' warnings, each kind once with its count */
    group g[64];
    size_t ng = 0, warnings = 0, notes = 0;
    for (int pass = 0; pass < 2; pass++) /* warnings first, then notes */
        for (size_t i = 0; i < r->finding_count; i++) {
            const char *code = am_str(&r->findings[i].code);
            bool w = am_import_finding_is_warning(code);
            if (w != (pass == 0))
                continue;
            add_group(g, &ng, 64, code, am_str(&r->findings[i].text), am_import_finding_remedy(code), w, false);
            warnings += w;
            notes += !w;
        }
    size_t first_note = 0;
    for (size_t i = 0; i < ng; i++)
        first_note += g[i].warning;
    /* skin warnings (per part, often the same words on every part): grouped by their text */
    size_t before = ng;
    for (size_t i = 0; i < r->part_count; i++)
        for (size_t w = 0; r->parts[i].skin && w < r->parts[i].skin->warning_count; w++) {
            add_group(g, &ng, 64, "skin_warning", am_str(&r->parts[i].skin->warnings[w]),
                      skin_warning_remedy(am_str(&r->parts[i].skin->warnings[w])), true, true);
            warnings++;
        }
    P(o, &s, e, "verdict: written%s; %zu warning%s, %zu note%s%s\n",
      warnings ? ", with warnings to look at" : ", nothing to fix", warnings, warnings == 1 ? "" : "s", notes,
      notes == 1 ? "" : "s", warnings || notes ? " (the worst below; every one in the full report)" : "");
    lines++;
    /* the worst: warnings (the file's, then the skin's), then notes, within the budget,
     * keeping 3 lines for the files, the full report and the next step */
    size_t order[64], no = 0;
    for (size_t i = 0; i < first_note; i++)
        order[no++] = i;
    for (size_t i = before; i < ng; i++)
        order[no++] = i;
    for (size_t i = first_note; i < before; i++)
        order[no++] = i;
    size_t shown = 0;
    /* (and one for the command's "reading" line, so the whole run ends within the budget) */
    for (size_t k = 0; k < no && 1 + lines + 2 + 3 + 1 <= AM_IMPORT_SUMMARY_MAX_LINES; k++) {
        const group *q = &g[order[k]];
        char shown_text[2048];
        am_text_shown(q->text, shown_text, sizeof shown_text);
        if (strlen(shown_text) > 150)
            memcpy(shown_text + option_cut(shown_text, 147), "...", 4);
        if (q->count > 1)
            P(o, &s, e, "  [%s] x%zu: %s\n", q->code, q->count, shown_text);
        else
            P(o, &s, e, "  [%s] %s\n", q->code, shown_text);
        P(o, &s, e, "    do: %s\n", q->remedy);
        lines += 2;
        shown++;
    }
    if (shown < no) {
        P(o, &s, e, "  ... %zu more kind%s of finding in the full report\n", no - shown, no - shown == 1 ? "" : "s");
        lines++;
    }
    written_kinds(r, kinds_buf, sizeof kinds_buf);
    P(o, &s, e, "wrote %zu files in %s (%s)%s\n", r->written_count, out_dir, kinds_buf[0] ? kinds_buf : "none",
      r->removed_count ? "; the previous run's other files removed" : "");
    if (report_file && report_file[0])
        P(o, &s, e, "full report: %s (or the full report text)\n", report_file);
    else
        P(o, &s, e, "full report: the full report text\n");
    bool preview = false, sheet = !am_string_empty(&r->pose_sheet);
    for (size_t i = 0; i < r->written_count; i++)
        preview |= strstr(am_str(&r->written[i]), ".preview.html") != NULL;
    for (size_t i = 0; i < r->part_count; i++)
        sheet |= !am_string_empty(&r->parts[i].pose_sheet);
    const char *then =
        "then upload the .dae files, or import again with an archive (the oar_path option) and animesh push it";
    if (preview)
        P(o, &s, e, "next: open the .preview.html in a browser; %s\n", then);
    else if (sheet)
        P(o, &s, e, "next: look at the pose sheets; %s\n", then);
    else
        P(o, &s, e, "next: animesh preview %s (or import again with the bench option); %s\n", out_dir, then);
    return s;
}
