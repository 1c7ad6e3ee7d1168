/* animesh import MODEL.dae --out DIR ...: the import library (import/import.h) and its report. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "core/text.h"
#include "import/import.h"
#include "skeleton/jointmap.h"

#define IMPORT_MAX_ANIMS 32
#define IMPORT_MAX_CLIPS 64
#define IMPORT_MAX_CORRECTIONS 32

static const char *help =
    "usage: animesh import MODEL --out DIR [--name N] [--merge] [--normalize-binds]\n"
    "                     [--anim FILE[:CLIP] ...] [--align-rest] [--bench] [--joints M] [--preview] [--oar FILE.oar]\n"
    "                     [--at X,Y,Z]"
    " [--meshdata] [--region-max-tris N] [--json] [--skeleton FILE]\n"
    "                     [--faithful] [--map MAP.json] [--up AXIS] [--forward AXIS] [--scale S]\n"
    "                     [--place pelvis|origin] [--clip NAME ...] [--loop|--no-loop]\n"
    "                     [--priority N] [--rest-correction JOINT=AXIS,DEG ...]\n"
    "                     [--max-tris N|auto|none]\n\n"
    "Import a rigged COLLADA file (Avastar, Bento Buddy, Blender) exactly as the viewer's\n"
    "uploader reads it with \"include joint positions\", and show what the viewer will draw.\n"
    "A model rigged to another skeleton (glTF/GLB, FBX, a COLLADA file with other joint names)\n"
    "is retargeted onto the viewer skeleton instead (joint map, computed rig, its clips as\n"
    "motions).\n"
    "MODEL: COLLADA .dae, glTF .gltf/.glb, FBX .fbx (or .x .smd .md5mesh .ms3d .b3d .iqm);\n"
    "a motion-only file (BVH, Mixamo FBX without skin, glTF pack) goes with --anim.\n"
    "Writes into DIR (all files replaced together, only when the whole run succeeded):\n"
    "  NAME.llmesh          the mesh asset the uploader would make (one per rigged mesh;\n"
    "                       NAME_<mesh> when the file has several)\n"
    "  NAME.dae             COLLADA re-export nested like the viewer skeleton\n"
    "  NAME.meshdata.json   WorldBridge meshdata (single-face parts only)\n"
    "  NAME.rig.json        the rig the skin builder got ('animesh skin' rebuilds it)\n"
    "  TEXTURE.png/.j2c     the material's texture and its upload code stream\n"
    "  MOTION.anim          every --anim, converted (.bvh) and checked\n"
    "  NAME_poses.png       with --bench: rows = motions (side, front), columns = times\n"
    "                       (one per part; several parts: also all of them together)\n\n"
    "  --out DIR             output directory (created)\n"
    "  --name N              output name (default: the model file's name)\n"
    "  --merge               one asset from every rigged mesh (at most 8 faces, 110 joints)\n"
    "  --normalize-binds     pure-translation inverse binds, the mesh kept where it is: the\n"
    "                        rest pose is exact in the viewer (report: before/after rest error)\n"
    "  --anim FILE           a motion to bench and pack: .anim, or .bvh converted with the\n"
    "                        viewer's rules and joint names, other names (CMU's Hips) through\n"
    "                        the suggested map, as anim from-bvh (repeatable); a BVH whose\n"
    "                        zero pose is not the viewer's rest is a finding (motion_rest_pose);\n"
    "                        or any model or motion-only file (a Mixamo FBX without skin, a\n"
    "                        glTF/GLB pack, FILE:CLIP for one clip) retargeted onto this\n"
    "                        creature's rest, each bone following the source's direction:\n"
    "                        STEM.anim (one clip) or CLIP.anim (docs/motions.md)\n"
    "  --align-rest          turn each such BVH bone onto the BVH's own direction in every\n"
    "                        frame (as anim from-bvh --align-rest; default: the viewer's own\n"
    "                        conversion)\n"
    "  --bench               bench every part with every motion, write pose sheets\n"
    "  --joints MODE         what a part's pose sheet draws over the mesh: none, dots,\n"
    "                        names, or auto (default: dots up to 25 weighted joints)\n"
    "  --preview             also NAME.preview.html: the creature playing its motions in a\n"
    "                        browser, posed by the bench (animesh preview)\n"
    "  --oar FILE.oar        also write the creature's OpenSim archive: the first part is the\n"
    "                        animesh root prim, other parts child prims; the first motion\n"
    "                        plays on rez\n"
    "  --at X,Y,Z            region position of the archive's object (default 128,128,25)\n"
    "  --meshdata            a part with several faces is an error (default: warning, no\n"
    "                        meshdata for it)\n"
    "  --region-max-tris N   the region's AnimatedObjectMaxTris (default 150000; 0: off)\n"
    "  --max-tris N|auto|none the high LOD's triangle budget, as 'animesh skin': auto (default)\n"
    "                        fits the region limit (decided before the LODs; a faithful asset\n"
    "                        that fits is kept as given), N at most N, none never reduced\n"
    "  --json                the report as JSON on stdout (progress on stderr)\n"
    "  --skeleton FILE       the viewer's character/avatar_skeleton.xml\n"
    "Retargeting (models not rigged to the viewer skeleton):\n"
    "  --faithful            refuse such a model (as the uploader does) instead of retargeting\n"
    "  --map MAP.json        your joint map over any part of the suggestion (animesh map suggest)\n"
    "  --up AXIS, --forward AXIS   the file axes that point up / the model faces (+X..-Z);\n"
    "                        default: detected\n"
    "  --scale S             metres per file unit (default: detected from the stature)\n"
    "  --place pelvis|origin the joint on mPelvis exactly at the viewer's pelvis (default), or\n"
    "                        the file's origin at the prim (mPelvis overridden)\n"
    "  --clip NAME           convert this clip only (repeatable; default: every clip)\n"
    "  --loop, --no-loop     force the motions to loop or not (default: loop when the last\n"
    "                        pose is the first)\n"
    "  --priority N          motion priority 0..6 (default 4)\n"
    "  --rest-correction JOINT=AXIS,DEG  a constant rotation on a joint in every pose (repeatable)\n\n"
    "The report: meshes, vertices after welding, faces, joints and weighted joints, joints\n"
    "the viewer will move (largest first), inverse binds with scale or rotation, quirks met,\n"
    "the mPelvis override, the rest error the bench predicts, and with --bench each motion's\n"
    "box, displacement and strain. A file whose skin names joints the viewer does not have\n"
    "is refused by the uploader: import says so and retargets it (--faithful refuses it).\n"
    "Exit 0 ok; 1 invalid input or refused by the viewer's rules; 2 usage; 3 I/O.\n";

static void on_progress(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "animesh import: %s\n", line);
}

static void print_vec(const char *label, am_vec3 v)
{
    printf("%s(%.3f, %.3f, %.3f)", label, v.x, v.y, v.z);
}

static void print_report(const am_import_report *r)
{
    static const char *const up[] = {"not declared (Y_UP assumed)", "X_UP", "Y_UP", "Z_UP"};
    /* Names come from the file: control characters shown as \xNN, never sent (core/text.h). */
    char src[1024], nm[512], b[2048], c[2048];
    printf("%s: %s; %s route%s\n", am_text_shown(r->source, src, sizeof src), r->format, am_import_route_name(r->route),
           r->route == AM_IMPORT_FAITHFUL ? " (rigged to the viewer skeleton: the uploader's own skin)"
                                          : " (another skeleton: mapped onto the viewer's, rig and motions computed)");
    if (r->route == AM_IMPORT_RETARGET) {
        printf("axes: %s\njoint map:\n", r->axes);
        for (size_t i = 0; i < r->map_count; i++) {
            const am_import_map_entry *e = &r->map[i];
            if (e->viewer[0])
                printf("  %-28s -> %-20s %.2f  %s\n", am_text_shown(e->rig, nm, sizeof nm), e->viewer, e->confidence,
                       am_text_shown(e->reason, b, sizeof b));
            else
                printf("  %-28s    %-20s       %s\n", am_text_shown(e->rig, nm, sizeof nm), "(unmapped)",
                       am_text_shown(e->reason, b, sizeof b));
        }
    }
    if (r->route == AM_IMPORT_FAITHFUL)
        printf("declared: unit %g m, %s (the uploader applies them to the object only, never to the skin)\n",
               r->declared.unit_m > 0 ? r->declared.unit_m : 1.0,
               up[r->declared.up >= 0 && r->declared.up <= 3 ? r->declared.up : 0]);
    for (size_t i = 0; i < r->part_count; i++) {
        const am_import_part_report *p = &r->parts[i];
        printf("part %s (mesh %s): %zu %s, %zu vertices %s, %zu face%s, %zu triangles\n", am_text_shown(p->name, nm, sizeof nm),
               am_text_shown(p->meshes, b, sizeof b),
               p->positions, r->route == AM_IMPORT_FAITHFUL ? "COLLADA positions" : "source vertices", p->vertices,
               r->route == AM_IMPORT_FAITHFUL ? "after welding" : "written", p->faces, p->faces == 1 ? "" : "s",
               p->triangles);
        printf("  joints %zu (%zu weighted), %zu moved from their default", p->joint_count, p->weighted_joints,
               p->moved_joints);
        double best = -1;
        const char *who = NULL;
        for (size_t j = 0; j < p->joint_count; j++)
            if (p->joints[j].moved_m > best) {
                best = p->joints[j].moved_m;
                who = p->joints[j].name;
            }
        if (p->moved_joints && who)
            printf(" (largest offset change from its viewer parent %s: %.4f m)", am_text_shown(who, nm, sizeof nm), best);
        printf("; %zu inverse binds carry scale or rotation\n", p->scaled_binds);
        if (p->rest_error_before_m >= 0)
            printf("  rest error (bench): %.6f m with the file's inverse binds, %.6f m written (--normalize-binds)\n",
                   p->rest_error_before_m, p->rest_error_m);
        else
            printf("  rest error (bench, written asset): %.6f m\n", p->rest_error_m);
        if (p->pelvis_override) {
            print_vec("  mPelvis override ", p->pelvis_position);
            printf(": the whole mesh hangs from it; motions with pelvis position keys replace it\n");
        }
        if (p->skin && p->skin->cost_known)
            printf("  triangles per LOD %zu / %zu / %zu / %zu; animesh estimate %.0f; streaming cost %.3f\n",
                   p->skin->lod_triangles[AM_LOD_HIGH], p->skin->lod_triangles[AM_LOD_MEDIUM],
                   p->skin->lod_triangles[AM_LOD_LOW], p->skin->lod_triangles[AM_LOD_LOWEST], p->skin->est_tris_max,
                   p->skin->streaming_cost);
        for (size_t a = 0; a < p->anim_count; a++) {
            const am_import_anim_result *m = &p->anims[a];
            printf("  bench '%s' (%.2f s, %zu samples): box ", am_text_shown(m->name, nm, sizeof nm), m->duration_s,
                   m->samples);
            print_vec("", m->min_prim);
            print_vec("..", m->max_prim);
            printf(" m (prim frame), max displacement %.4f m, strain %.3f..%.3f, %.2f%% outside 0.5..1.6, "
                   "tear %.3f m, spike %.3f m: %s\n",
                   m->max_displacement_m, m->strain_p1, m->strain_p99, 100 * m->strain_share, m->tear_m, m->spike_m,
                   m->exploded ? "EXPLODES" : m->strained ? "strained, not exploding" : "ok");
        }
        if (p->pose_sheet[0])
            printf("  pose sheet %s\n", p->pose_sheet);
        for (size_t w = 0; p->skin && w < p->skin->warning_count; w++)
            fprintf(stderr, "animesh import: warning: part %s: %s\n", am_text_shown(p->name, nm, sizeof nm),
                    am_text_shown(p->skin->warnings[w], c, sizeof c));
    }
    if (r->pose_sheet[0])
        printf("pose sheet of all %zu parts together %s\n", r->part_count, r->pose_sheet);
    for (size_t i = 0; i < r->motion_count && i < 16; i++) {
        const am_import_motion *m = &r->motion_info[i];
        if (m->retargeted)
            printf("motion %s: clip '%s' of %s: %zu joints mapped, %zu unmapped; %.3f s, %s; %zu keys -> %zu; "
                   "bone directions within %.2f deg of the source's\n",
                   m->name, m->clip, m->source, m->joints_mapped, m->joints_unmapped, m->duration_s,
                   m->loop ? "looping" : "not looping", m->keys_before, m->keys_after, m->worst_direction_deg);
    }
    if (r->finding_count)
        printf("what the viewer will do with it:\n");
    for (size_t i = 0; i < r->finding_count; i++)
        printf("  [%s] %s\n", r->findings[i].code, am_text_shown(r->findings[i].text, c, sizeof c));
    for (size_t i = 0; i < r->written_count; i++)
        printf("wrote %s\n", r->written[i]);
    for (size_t i = 0; i < r->removed_count; i++)
        printf("removed %s (the previous run's, not written by this one)\n", r->removed[i]);
}

int am_cmd_import(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    enum {
        O_OUT = 256, O_NAME, O_MERGE, O_NORM, O_ANIM, O_BENCH, O_OAR, O_AT, O_MESHDATA, O_TRIS, O_JSON, O_SKEL,
        O_FAITHFUL, O_MAP, O_UP, O_FORWARD, O_SCALE, O_PLACE, O_CLIP, O_LOOP, O_NOLOOP, O_PRIORITY, O_CORR, O_ALIGN,
        O_MAXTRIS, O_PREVIEW, O_JOINTS
    };
    static const am_cli_opt lopts[] = {
        {"out", required_argument, O_OUT, 0},
        {"name", required_argument, O_NAME, 0},
        {"merge", no_argument, O_MERGE, 0},
        {"normalize-binds", no_argument, O_NORM, 0},
        {"anim", required_argument, O_ANIM, 0},
        {"bench", no_argument, O_BENCH, 0},
        {"joints", required_argument, O_JOINTS, 0},
        {"preview", no_argument, O_PREVIEW, 0},
        {"oar", required_argument, O_OAR, 0},
        {"at", required_argument, O_AT, 0},
        {"meshdata", no_argument, O_MESHDATA, 0},
        {"region-max-tris", required_argument, O_TRIS, 0},
        {"json", no_argument, O_JSON, 0},
        {"skeleton", required_argument, O_SKEL, 0},
        {"faithful", no_argument, O_FAITHFUL, 0},
        {"map", required_argument, O_MAP, 0},
        {"up", required_argument, O_UP, 0},
        {"forward", required_argument, O_FORWARD, 0},
        {"scale", required_argument, O_SCALE, 0},
        {"place", required_argument, O_PLACE, 0},
        {"clip", required_argument, O_CLIP, 0},
        {"loop", no_argument, O_LOOP, 0},
        {"no-loop", no_argument, O_NOLOOP, 0},
        {"priority", required_argument, O_PRIORITY, 0},
        {"rest-correction", required_argument, O_CORR, 0},
        {"align-rest", no_argument, O_ALIGN, 0},
        {"max-tris", required_argument, O_MAXTRIS, 0},
        AM_CLI_OPT_HELP};
    am_import_options opts;
    am_import_options_default(&opts);
    const char *anims[IMPORT_MAX_ANIMS];
    const char *clips[IMPORT_MAX_CLIPS];
    am_rest_correction corrections[IMPORT_MAX_CORRECTIONS];
    const char *out_dir = NULL, *skel_path = NULL, *map_path = NULL;
    bool json = false;
    am_error err;
    am_error_clear(&err);
    int c;
    long v;
    am_cli_opts op;
    am_cli_opts_begin(&op, "import", help, lopts, AM_CLI_OPTS_COUNT(lopts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_OUT: out_dir = op.arg; break;
        case O_NAME: {
            size_t n = strlen(op.arg);
            bool ok = n > 0 && n <= 100 && op.arg[0] != '.' && op.arg[0] != '-';
            for (size_t i = 0; ok && i < n; i++) {
                char ch = op.arg[i];
                ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                     ch == '-' || ch == '.';
            }
            if (!ok)
                return am_cli_usage("import", "--name: 1-100 characters from A-Z a-z 0-9 _ - . (it names the files), "
                                              "got '%s'",
                                    op.arg);
            opts.name = op.arg;
            break;
        }
        case O_MERGE: opts.merge = true; break;
        case O_NORM: opts.normalize_binds = true; break;
        case O_ANIM:
            if (opts.anim_count == IMPORT_MAX_ANIMS)
                return am_cli_usage("import", "at most %d --anim", IMPORT_MAX_ANIMS);
            anims[opts.anim_count++] = op.arg;
            break;
        case O_BENCH: opts.bench = true; break;
        case O_JOINTS:
            if (!am_render_joints_parse(op.arg, &opts.joints))
                return am_cli_usage("import", "--joints: expected none, dots, names or auto, got '%s'", op.arg);
            break;
        case O_PREVIEW: opts.preview = true; break;
        case O_ALIGN: opts.bvh_align_rest = true; break;
        case O_OAR: opts.oar_path = op.arg; break;
        case O_AT:
            if (!am_cli_parse_xyz(op.arg, opts.oar_position))
                return am_cli_usage("import", "--at expects X,Y,Z in metres, got '%s'", op.arg);
            break;
        case O_MESHDATA: opts.meshdata_required = true; break;
        case O_TRIS:
            if (!am_cli_parse_long(op.arg, 0, LONG_MAX, &v))
                return am_cli_usage("import", "--region-max-tris: expected a non-negative integer, got '%s'", op.arg);
            opts.skin.region_max_tris = v;
            break;
        case O_MAXTRIS:
            if (strcmp(op.arg, "auto") == 0)
                opts.skin.max_tris = AM_SKIN_MAX_TRIS_AUTO;
            else if (strcmp(op.arg, "none") == 0)
                opts.skin.max_tris = AM_SKIN_MAX_TRIS_NONE;
            else if (am_cli_parse_long(op.arg, 1, LONG_MAX, &v))
                opts.skin.max_tris = v;
            else
                return am_cli_usage("import", "--max-tris: expected a positive integer, auto or none, got '%s'", op.arg);
            break;
        case O_JSON: json = true; break;
        case O_SKEL: skel_path = op.arg; break;
        case O_FAITHFUL: opts.faithful_only = true; break;
        case O_MAP: map_path = op.arg; break;
        case O_UP:
        case O_FORWARD:
            if (am_axes_parse(op.arg, c == O_UP ? &opts.retarget.axes.up : &opts.retarget.axes.forward, &err))
                return am_cli_usage("import", "--%s: %s", c == O_UP ? "up" : "forward", err.msg);
            break;
        case O_SCALE:
            if (!am_cli_parse_double(op.arg, &opts.retarget.axes.scale) || !(opts.retarget.axes.scale > 0))
                return am_cli_usage("import", "--scale needs a positive number of metres per unit, got '%s'", op.arg);
            break;
        case O_PLACE:
            if (strcmp(op.arg, "pelvis") && strcmp(op.arg, "origin"))
                return am_cli_usage("import", "--place: pelvis or origin, got '%s'", op.arg);
            opts.retarget.place = strcmp(op.arg, "origin") == 0 ? AM_PLACE_ORIGIN : AM_PLACE_PELVIS;
            break;
        case O_CLIP:
            if (opts.retarget.clip_count == IMPORT_MAX_CLIPS)
                return am_cli_usage("import", "at most %d --clip", IMPORT_MAX_CLIPS);
            clips[opts.retarget.clip_count++] = op.arg;
            break;
        case O_LOOP: opts.retarget.loop = AM_LOOP_ON; break;
        case O_NOLOOP: opts.retarget.loop = AM_LOOP_OFF; break;
        case O_PRIORITY:
            if (!am_cli_parse_long(op.arg, 0, 6, &v))
                return am_cli_usage("import", "--priority must be 0..6, got '%s'", op.arg);
            opts.retarget.priority = (int32_t)v;
            break;
        case O_CORR:
            if (opts.retarget.correction_count == IMPORT_MAX_CORRECTIONS)
                return am_cli_usage("import", "at most %d --rest-correction", IMPORT_MAX_CORRECTIONS);
            if (am_rest_correction_parse(op.arg, &corrections[opts.retarget.correction_count], &err))
                return am_cli_usage("import", "--rest-correction: %s", err.msg);
            opts.retarget.correction_count++;
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("import", "expected exactly one MODEL file");
    if (!out_dir)
        return am_cli_usage("import", "--out DIR is required");
    for (size_t i = 0; i < opts.anim_count; i++)
        if (!anims[i][0])
            return am_cli_usage("import", "--anim expects a file (.anim, .bvh, or FILE[:CLIP] of a model)");
    opts.anim_paths = anims;
    opts.retarget.clips = opts.retarget.clip_count ? clips : NULL;
    opts.retarget.corrections = corrections;
    long long epoch = 0;
    if (!am_cli_source_date_epoch(&epoch))
        return am_cli_usage("import", "SOURCE_DATE_EPOCH must be a number of seconds, got '%s'", getenv("SOURCE_DATE_EPOCH"));
    opts.creation_time = epoch;
    opts.progress = on_progress;
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    am_joint_map user_map;
    if (map_path) {
        if (am_joint_map_load(map_path, &user_map, &err)) {
            am_skeleton_free(&skel);
            return am_cli_report(&err);
        }
        opts.retarget.map = &user_map;
    }
    char shown[1024];
    fprintf(stderr, "animesh import: reading %s\n", am_text_shown(argv[op.first], shown, sizeof shown));
    am_import_report rep;
    am_status st = am_import_file(argv[op.first], &skel, &opts, out_dir, &rep, &err);
    int rc = AM_EXIT_OK;
    if (st) {
        rc = am_cli_report(&err);
    } else if (json) {
        am_buf b = {0};
        if (am_import_report_json(&rep, &b, &err)) {
            rc = am_cli_report(&err);
        } else {
            fwrite(b.data, 1, b.size, stdout);
        }
        am_buf_free(&b);
    } else {
        print_report(&rep);
    }
    am_import_report_free(&rep);
    if (map_path)
        am_joint_map_free(&user_map);
    am_skeleton_free(&skel);
    return rc;
}
