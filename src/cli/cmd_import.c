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
#include "import/import_text.h"
#include "skeleton/jointmap.h"

#define IMPORT_MAX_ANIMS 32
#define IMPORT_MAX_CLIPS 64
#define IMPORT_MAX_CORRECTIONS 32

static const char *help =
    "usage: animesh import MODEL --out DIR [--name N] [--merge] [--normalize-binds]\n"
    "                     [--anim FILE[:CLIP] ...] [--allow-body-mismatch] [--align-rest] [--bench] [--joints M]\n"
    "                     [--preview] [--oar FILE.oar] [--play CLIP]\n"
    "                     [--at X,Y,Z]"
    " [--meshdata] [--region-max-tris N] [--json] [--skeleton FILE]\n"
    "                     [--faithful] [--map MAP.json] [--up AXIS] [--forward AXIS] [--scale S]\n"
    "                     [--place pelvis|origin] [--clip NAME ...] [--loop|--no-loop]\n"
    "                     [--loop-tolerance DEG]\n"
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
    "  NAME.import.txt      the full report (as --verbose prints it)\n"
    "  NAME_poses.png       with --bench: rows = motions (side, front), columns = times\n"
    "                       (one per part; several parts: also all of them together)\n\n"
    "  --out DIR             output directory (created)\n"
    "  --name N              output name (default: the model file's name)\n"
    "  --merge               one asset from every rigged mesh (at most 8 faces, 110 joints;\n"
    "                        a retargeted model's parts wearing one material share a face)\n"
    "  --normalize-binds     pure-translation inverse binds, the mesh kept where it is: the\n"
    "                        rest pose is exact in the viewer (report: before/after rest error)\n"
    "  --anim FILE           a motion to bench and pack (repeatable): .anim; .bvh on the\n"
    "                        viewer's joints (hip, abdomen, mPelvis ...) converted with the\n"
    "                        viewer's rules, as anim from-bvh; or any other motion (a BVH made\n"
    "                        on another skeleton such as CMU's Hips, a Mixamo FBX without\n"
    "                        skin, a glTF/GLB pack, FILE:CLIP for one clip) retargeted onto\n"
    "                        this creature's rest, each bone following the source's direction,\n"
    "                        head, hands and feet its orientation: STEM.anim (one clip) or\n"
    "                        CLIP.anim (docs/motions.md)\n"
    "  --align-rest          a BVH on another skeleton through the viewer's conversion and the\n"
    "                        suggested map instead, each bone turned onto the BVH's own\n"
    "                        direction in every frame (as anim from-bvh --align-rest; its zero\n"
    "                        pose's difference is a finding, motion_rest_pose)\n"
    "  --allow-body-mismatch retarget a motion whose body plan is not the creature's (a\n"
    "                        biped's clip onto a quadruped); refused by default, naming both\n"
    "                        plans and the limbs that disagree (docs/map.md \"Body plans\")\n"
    "  --bench               bench every part with every motion, write pose sheets\n"
    "  --joints MODE         what a part's pose sheet draws over the mesh: none, dots,\n"
    "                        names, or auto (default: dots up to 25 weighted joints)\n"
    "  --preview             also NAME.preview.html: the creature playing its motions in a\n"
    "                        browser, posed by the bench (animesh preview)\n"
    "  --oar FILE.oar        also write the creature's OpenSim archive: the first part is the\n"
    "                        animesh root prim, other parts child prims; the first motion\n"
    "                        plays on rez, or the one --play names\n"
    "  --play CLIP           the motion the archive's starter script plays on rez: a motion's\n"
    "                        name (as written, CLIP.anim) or its clip's name in the source\n"
    "  --at X,Y,Z            region position of the archive's object (default 128,128,25)\n"
    "  --meshdata            a part with several faces is an error (default: warning, no\n"
    "                        meshdata for it)\n"
    "  --region-max-tris N   the region's AnimatedObjectMaxTris (default 150000; 0: off)\n"
    "  --max-tris N|auto|none the high LOD's triangle budget, as 'animesh skin': auto (default)\n"
    "                        fits the region limit (decided before the LODs; a faithful asset\n"
    "                        that fits is kept as given), N at most N, none never reduced\n"
    "  --json                the report as JSON on stdout\n"
    "  --verbose             the full report on stdout (every part, the joint map, every\n"
    "                        finding with what to do) and each step on stderr; default: a\n"
    "                        summary of at most 15 lines (the full report is NAME.import.txt)\n"
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
    "                        pose is the first, or when the clip is a cycle written without\n"
    "                        its closing key: its seam no larger than its own steps; the\n"
    "                        first pose is then added one key interval after the last)\n"
    "  --loop-tolerance DEG  with --loop, a larger seam up to DEG (and 1 cm per degree for\n"
    "                        the hips) is closed by blending the last 0.5 s into the first\n"
    "                        pose, the largest change reported; beyond it --loop is refused\n"
    "                        (default 10)\n"
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

/* The command, with the --rest-correction list its caller frees (every return path). */
static int import_command(int argc, char **argv, am_rest_correction *corrections)
{
    if (argc < 2) {
        fputs(help, stderr);
        return AM_EXIT_USAGE;
    }
    enum {
        O_OUT = 256, O_NAME, O_MERGE, O_NORM, O_ANIM, O_BENCH, O_OAR, O_AT, O_MESHDATA, O_TRIS, O_JSON, O_SKEL,
        O_FAITHFUL, O_MAP, O_UP, O_FORWARD, O_SCALE, O_PLACE, O_CLIP, O_LOOP, O_NOLOOP, O_PRIORITY, O_CORR, O_ALIGN,
        O_MAXTRIS, O_PREVIEW, O_ALLOW_BODY, O_VERBOSE, O_LOOPTOL, O_PLAY, O_JOINTS
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
        {"play", required_argument, O_PLAY, 0},
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
        {"loop-tolerance", required_argument, O_LOOPTOL, 0},
        {"priority", required_argument, O_PRIORITY, 0},
        {"rest-correction", required_argument, O_CORR, 0},
        {"align-rest", no_argument, O_ALIGN, 0},
        {"allow-body-mismatch", no_argument, O_ALLOW_BODY, 0},
        {"max-tris", required_argument, O_MAXTRIS, 0},
        {"verbose", no_argument, O_VERBOSE, 0},
        AM_CLI_OPT_HELP};
    am_import_options opts;
    am_import_options_init(&opts);
    const char *anims[IMPORT_MAX_ANIMS];
    const char *clips[IMPORT_MAX_CLIPS];
    const char *out_dir = NULL, *skel_path = NULL, *map_path = NULL;
    bool json = false, verbose = false;
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
        case O_ALLOW_BODY: opts.allow_body_mismatch = true; break;
        case O_OAR: opts.oar_path = op.arg; break;
        case O_PLAY: opts.play = op.arg; break;
        case O_AT:
            if (!am_cli_parse_xyz(op.arg, opts.oar_position))
                return am_cli_usage("import", "--at expects X,Y,Z in metres, got '%s'", op.arg);
            for (int k = 0; k < 3; k++) /* a 0 here is a place, not the default */
                if (opts.oar_position[k] == 0)
                    opts.oar_position[k] = AM_OPTION_ZERO;
            break;
        case O_MESHDATA: opts.meshdata_required = true; break;
        case O_TRIS:
            if (!am_cli_parse_long(op.arg, 0, LONG_MAX, &v))
                return am_cli_usage("import", "--region-max-tris: expected a non-negative integer, got '%s'", op.arg);
            opts.skin.region_max_tris = v > 0 ? v : AM_OPTION_ZERO; /* 0: not checked */
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
        case O_VERBOSE: verbose = true; break;
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
        case O_LOOPTOL: {
            double d;
            if (!am_cli_parse_double(op.arg, &d) || !(d >= 0) || d > 180)
                return am_cli_usage("import", "--loop-tolerance needs an angle in degrees (0..180), got '%s'", op.arg);
            opts.retarget.loop_tolerance_deg = d > 0 ? d : AM_OPTION_ZERO; /* 0 is a choice here */
            break;
        }
        case O_PRIORITY:
            if (!am_cli_parse_long(op.arg, 0, 6, &v))
                return am_cli_usage("import", "--priority must be 0..6, got '%s'", op.arg);
            opts.retarget.priority = v > 0 ? (int32_t)v : AM_OPTION_ZERO;
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
    if (opts.play && !opts.oar_path)
        return am_cli_usage("import", "--play CLIP chooses what the archive plays on rez: it goes with --oar FILE.oar");
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
    opts.progress = verbose ? on_progress : NULL; /* the steps only with --verbose */
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
        /* the summary (at most 15 lines), or with --verbose the full report */
        am_buf t = {0};
        const char *report_file = "";
        for (size_t i = 0; i < rep.written_count; i++) {
            size_t l = rep.written[i].length;
            if (l > 11 && strcmp(am_str(&rep.written[i]) + l - 11, ".import.txt") == 0)
                report_file = am_str(&rep.written[i]);
        }
        am_status ts = verbose ? am_import_report_text(&rep, &t, &err)
                               : am_import_summary_text(&rep, out_dir, report_file, &t, &err);
        if (ts)
            rc = am_cli_report(&err);
        else
            am_cli_write_flags(stdout, (const char *)t.data, t.size);
        am_buf_free(&t);
    }
    /* Files a planted NAME.outset or journal named that animesh never wrote: left, said. */
    for (size_t i = 0; !st && i < rep.left_count; i++)
        fprintf(stderr, "animesh: warning: %s\n", am_str(&rep.left[i]));
    am_import_report_free(&rep);
    if (map_path)
        am_joint_map_free(&user_map);
    am_skeleton_free(&skel);
    return rc;
}

int am_cmd_import(int argc, char **argv)
{
    am_rest_correction corrections[IMPORT_MAX_CORRECTIONS];
    memset(corrections, 0, sizeof corrections);
    int rc = import_command(argc, argv, corrections);
    for (size_t i = 0; i < IMPORT_MAX_CORRECTIONS; i++)
        am_rest_correction_free(&corrections[i]);
    return rc;
}
