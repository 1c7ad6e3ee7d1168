/* animesh mesh decode: what a mesh asset holds, ours or the viewer's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "mesh/mesh_asset.h"
#include "mesh/mesh_report.h"
#include "mesh/skin_json.h"
#include "skin/skin_compare.h"
#include "core/text.h"

static const char *help =
    "usage: animesh mesh decode FILE [--json | --skin-json] [--out PATH] [--skeleton FILE]\n\n"
    "Decode a Second Life mesh asset (.llmesh, or a viewer .slm save) the way the viewer\n"
    "reads it: binary-LLSD header (must fit in 4096 bytes), zlib blocks, faces dequantised\n"
    "with the viewer's F32 formulas, weights clamped to [0.001, 0.999], skin block.\n\n"
    "Default output: a summary - blocks (offset from the end of the header, file offset,\n"
    "compressed size), LODs (faces, vertices, triangles), weight statistics (influence\n"
    "counts, vertices with no influence, which the viewer binds to joint_names[0]), the\n"
    "skin joints with their inverse-bind and override (alt_inverse_bind_matrix)\n"
    "translations. With a viewer skeleton (--skeleton, ANIMESH_SKELETON or\n"
    "ANIMESH_VIEWER_DIR) each override is marked 'applied' when it differs from the\n"
    "joint's default position by more than 0.1 mm, as the viewer decides.\n\n"
    "  --json        the whole decoded asset as JSON\n"
    "  --skin-json   the skin block as reference JSON: {\"joint_names\",\n"
    "                \"inverse_bind_matrix\", \"alt_inverse_bind_matrix\",\n"
    "                \"bind_shape_matrix\"} as stored (for 'animesh skin compare')\n"
    "  --out PATH    write the output to PATH (atomically) instead of stdout\n"
    "  --skeleton F  the viewer's character/avatar_skeleton.xml\n\n"
    "Exit codes: 0 decoded, 1 invalid asset (the error names block, face, key and byte\n"
    "offset), 2 usage, 3 I/O.\n";

static void print_vec(am_vec3 v)
{
    printf("(%.6g, %.6g, %.6g)", v.x, v.y, v.z);
}

static void summary(const char *path, size_t file_size, const am_mesh_asset *a, const am_skeleton *skel)
{
    printf("%s: mesh asset, %zu bytes, header %zu bytes (viewer limit %d)\n", path, file_size, a->header_size,
           AM_MESH_HEADER_MAX);
    if (a->has_version)
        printf("version: %lld\n", (long long)a->version);
    printf("blocks (offset after header, file offset, compressed bytes):\n");
    int order[AM_BLOCK_COUNT], n = 0; /* in file order */
    for (int b = 0; b < AM_BLOCK_COUNT; b++) {
        int k = n++;
        while (k > 0 && a->blocks[order[k - 1]].offset > a->blocks[b].offset) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = b;
    }
    for (int i = 0; i < AM_BLOCK_COUNT; i++)
        if (a->blocks[order[i]].present)
            printf("  %-15s %8lld %8lld %8lld\n", am_mesh_block_name(order[i]), (long long)a->blocks[order[i]].offset,
                   (long long)(a->blocks[order[i]].offset + (int64_t)a->header_size),
                   (long long)a->blocks[order[i]].size);
    if (a->material_count) {
        printf("material_list:");
        char nm[256]; /* the file's names: control characters shown as \xNN */
        for (size_t i = 0; i < a->material_count; i++)
            printf(" %s", am_text_shown(a->material_list[i], nm, sizeof nm));
        printf("\n");
    }
    printf("LODs:\n");
    for (int l = 0; l < AM_LOD_COUNT + 1; l++) {
        const am_mesh_lod *lod = l < AM_LOD_COUNT ? &a->lods[l] : &a->physics_mesh;
        const char *name = l < AM_LOD_COUNT ? am_mesh_block_name(l) : "physics_mesh";
        if (!lod->face_count) {
            if (l < AM_LOD_COUNT)
                printf("  %-12s absent\n", name);
            continue;
        }
        am_mesh_lod_stats st;
        am_mesh_lod_stats_of(lod, &st);
        printf("  %-12s %zu face%s, %zu vertices, %zu triangles", name, st.faces, st.faces == 1 ? "" : "s",
               st.vertices, st.triangles);
        if (st.no_geometry_faces)
            printf(", %zu NoGeometry", st.no_geometry_faces);
        printf("\n");
        if (st.weighted_vertices)
            printf("  %-12s weights: %zu vertices; influences 1:%zu 2:%zu 3:%zu 4:%zu; max joint index %d; "
                   "%zu with no influence (bound to joint 0 by the viewer)\n",
                   "", st.weighted_vertices, st.influence_hist[1], st.influence_hist[2], st.influence_hist[3],
                   st.influence_hist[4], st.max_joint, st.no_influence);
        else
            printf("  %-12s weights: none\n", "");
    }
    if (a->physics_convex_raw)
        printf("physics_convex: %zu bytes of LLSD (kept verbatim)\n", a->physics_convex_size);
    if (a->has_skin) {
        const am_mesh_skin *s = &a->skin;
        printf("skin: %zu joint%s, alternates: %s", s->joint_count, s->joint_count == 1 ? "" : "s",
               s->alt_inverse_bind ? "yes" : "none");
        if (s->alt_inverse_bind && (s->alt_count ? s->alt_count : s->joint_count) != s->joint_count)
            printf(" (%zu for %zu joints: the viewer ignores them)", s->alt_count, s->joint_count);
        if (s->has_pelvis_offset)
            printf(", pelvis_offset %.6g", s->pelvis_offset);
        printf(", lock_scale_if_joint_position %s\n", s->lock_scale_if_joint_position ? "yes" : "no");
        printf("  bind_shape_matrix: scale (%.6g, %.6g, %.6g) translation ", s->bind_shape.m[0], s->bind_shape.m[5],
               s->bind_shape.m[10]);
        print_vec(am_mat4_get_translation(&s->bind_shape));
        printf("\n");
        size_t applied = 0;
        for (size_t j = 0; j < s->joint_count; j++) {
            printf("  %3zu %-22s inverse bind t ", j, s->joint_names[j]);
            print_vec(am_mat4_get_translation(&s->inverse_bind[j]));
            am_vec3 t, d;
            int ov = am_skin_alt_override(s, j, skel, &t, &d);
            if (s->alt_inverse_bind && j < (s->alt_count ? s->alt_count : s->joint_count)) {
                printf("  override t ");
                print_vec(t);
                if (ov == 1) {
                    printf("  applied (default ");
                    print_vec(d);
                    printf(", moved %.2f mm)", 1000.0 * am_v3_dist(t, d));
                    applied++;
                } else if (ov == 0) {
                    printf("  = default, ignored");
                } else if (skel) {
                    printf("  unknown joint");
                }
            }
            printf("\n");
        }
        if (s->alt_inverse_bind && skel)
            printf("  %zu override%s applied by the viewer\n", applied, applied == 1 ? "" : "s");
        else if (s->alt_inverse_bind)
            printf("  (no viewer skeleton found: pass --skeleton to tell which overrides apply)\n");
    } else {
        printf("skin: none\n");
    }
    for (size_t i = 0; i < a->warning_count; i++) {
        char w[512];
        am_cli_print_flags(stdout, "warning: %s\n", am_text_shown(a->warnings[i], w, sizeof w));
    }
}

int am_cmd_mesh(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(help, argc < 2 ? stderr : stdout);
        return argc < 2 ? AM_EXIT_USAGE : AM_EXIT_OK;
    }
    if (strcmp(argv[1], "decode") != 0)
        return am_cli_usage("mesh", "unknown subcommand '%s' (expected 'decode')", argv[1]);
    argc--;
    argv++;
    const char *skel_path = NULL, *out_path = NULL;
    int mode = 0; /* 0 summary, 1 json, 2 skin json */
    static const am_cli_opt opts[] = {
        {"json", no_argument, 'j', 0},
        {"skin-json", no_argument, 'k', 0},
        {"out", required_argument, 'o', 0},
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "mesh decode", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'j':
        case 'k':
            if (mode && mode != (c == 'j' ? 1 : 2))
                return am_cli_usage("mesh decode", "--json and --skin-json exclude each other");
            mode = c == 'j' ? 1 : 2;
            break;
        case 'o': out_path = op.arg; break;
        case 's': skel_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("mesh decode", "expected exactly one mesh asset FILE");
    const char *path = argv[op.first];
    if (mode == 0 && out_path)
        return am_cli_usage("mesh decode", "--out needs --json or --skin-json");

    am_error err;
    am_error_clear(&err);
    uint8_t *data = NULL;
    size_t size = 0;
    if (am_read_file_as(path, &am_mesh_asset_format, &data, &size, &err))
        return am_cli_report(&err);
    am_mesh_asset a;
    am_status s = am_mesh_asset_decode(data, size, &a, &err);
    free(data);
    if (s) {
        am_error_where(&err, "%s", path);
        return am_cli_report(&err);
    }
    int rc = AM_EXIT_OK;
    if (mode == 0) {
        am_skeleton skel;
        bool have_skel = false;
        if (a.has_skin && a.skin.alt_inverse_bind) {
            am_error serr;
            am_error_clear(&serr);
            if (am_cli_load_skeleton(skel_path, &skel, &serr) == AM_OK)
                have_skel = true;
            else if (skel_path) /* asked for explicitly: a failure is an error */
                rc = am_cli_report(&serr);
        }
        if (rc == AM_EXIT_OK)
            summary(path, size, &a, have_skel ? &skel : NULL);
        if (have_skel)
            am_skeleton_free(&skel);
    } else {
        am_buf out = {0};
        if (mode == 2 && !a.has_skin) {
            am_fail(&err, AM_ERR_INVALID, "the asset has no skin block");
            am_error_where(&err, "%s", path);
            s = AM_ERR_INVALID;
        } else {
            s = mode == 1 ? am_mesh_asset_to_json(&a, &out, &err) : am_mesh_skin_json_write(&a.skin, &out, &err);
        }
        if (!s && out_path)
            s = am_write_file_atomic(out_path, out.data, out.size, &err);
        else if (!s && fwrite(out.data, 1, out.size, stdout) != out.size)
            s = am_fail(&err, AM_ERR_IO, "cannot write to stdout");
        if (s)
            rc = am_cli_report(&err);
        am_buf_free(&out);
    }
    am_mesh_asset_free(&a);
    return rc;
}
