/* animesh anim: decode, encode, check and BVH import of .anim files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/anim.h"
#include "anim/bvh.h"
#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "core/io.h"
#include "map/map_bvh.h"
#include "readers/bvh/bvh_scene.h"
#include "retarget/motion_file.h"
#include "core/text.h"

static const char *help =
    "usage: animesh anim decode FILE.anim [--json] [-o OUT]\n"
    "       animesh anim encode MOTION.json|- -o OUT.anim\n"
    "       animesh anim check FILE.anim [--skeleton FILE]\n"
    "       animesh anim from-bvh IN.bvh [--map MAP.json] [--priority N] [--loop]\n"
    "                [--loop-in S] [--loop-out S] [--ease-in S] [--ease-out S]\n"
    "                [--hand-pose N] [--keep-static] [--reduce DEG] [--loop-tolerance DEG]\n"
    "                [--align-rest] [--allow-body-mismatch] [--skeleton FILE] -o OUT.anim\n"
    "       animesh anim from-model FILE[:CLIP] [--clip NAME] [--map MAP.json] [--priority N]\n"
    "                [--loop|--no-loop] [--loop-tolerance DEG] [--ease-in S] [--ease-out S]\n"
    "                [--hand-pose N] [--reduce DEG] [--in-place] [--allow-body-mismatch]\n"
    "                [--skeleton FILE] -o OUT.anim\n\n"
    "Second Life / OpenSim keyframe animations (.anim version 1.0).\n"
    "  decode    a readable summary, or with --json the whole file (header, joints, keys\n"
    "            with decoded values and raw U16 codes, constraints); a file the viewer\n"
    "            would refuse is still shown, with a note (exit 1 only when unreadable)\n"
    "  encode    JSON in decode's schema -> .anim ('-' reads stdin); keys with \"code\" are\n"
    "            written exactly, others are quantised the viewer's way. `decode --json |\n"
    "            encode - -o X` reproduces the file byte for byte. The output is decoded\n"
    "            again and compared before it is written.\n"
    "  check     every check the viewer applies (on upload), plus ours for its gaps;\n"
    "            exit 0 if the viewer would accept the file, 1 listing every reason if not\n"
    "  from-bvh  BVH motion capture -> .anim exactly as the viewer's BVH upload converts it\n"
    "            (frame 0 = reference, SL = (BVH z, x, y), inches, pelvis relative to\n"
    "            frame 0). --map maps BVH joint names to stock names ({\"joints\": {...}});\n"
    "            default: the viewer's names (hip, abdomen, chest, lThigh, ... and mPelvis,\n"
    "            ...) when the root is one of them, else the map `animesh map suggest`\n"
    "            proposes from names and topology (CMU, MotionBuilder ...: a root named\n"
    "            Hips converts without a map file); the map used is printed.\n"
    "            Defaults as the viewer's loader: priority 2, no loop, ease 0.3 s /\n"
    "            0.3 s, hand pose 1. Joints that never move are omitted (--keep-static).\n"
    "            Every frame after frame 0 becomes a key; --reduce DEG drops the keys that\n"
    "            interpolation reproduces within DEG degrees (and 0.5 mm) and reports it.\n"
    "            Loop guard: with --loop a pose at the loop-out point that is not the\n"
    "            loop-in point's is closed by blending the last 0.5 s before loop-out\n"
    "            into it, when the seam is within --loop-tolerance DEG (default 10, and\n"
    "            DEG cm for the pelvis), and the largest change is reported; a larger seam\n"
    "            is refused naming the worst joint, the jump and by how much it is over.\n"
    "            Rest pose: the viewer applies each rotation as if the BVH's zero pose were\n"
    "            its rest; bones whose zero-pose direction differs by more than 10 deg\n"
    "            (CMU's thighs: ~20) are listed in a warning. --align-rest corrects them:\n"
    "            each bone is turned so it points where the BVH's bone points in every\n"
    "            frame (pelvis and positions unchanged); without it the output is the\n"
    "            viewer's own conversion. A BVH whose skeleton is not a biped's (the\n"
    "            stock avatar's body plan) is refused unless --allow-body-mismatch.\n"
    "  from-model  a clip of any model or motion file -> .anim for the stock avatar: a\n"
    "            Mixamo FBX \"without skin\", a glTF/GLB animation pack, a BVH, or a clip of\n"
    "            another rigged model (FILE:CLIP, or --clip; a file with several clips needs\n"
    "            one). The joint map is `animesh map suggest`'s (Mixamo names with or\n"
    "            without mixamorig:, numbered variants ...), --map over any part of it.\n"
    "            Every viewer bone is turned onto the source's world direction (the\n"
    "            source's rest, e.g. Mixamo's T-pose, is not the viewer's); the head,\n"
    "            hands and feet keep the source's orientation (face, palms, soles); the\n"
    "            hips' motion is scaled by leg length, --in-place removes its horizontal\n"
    "            travel.\n"
    "            Defaults as the viewer's uploader (as from-bvh): priority 2, ease 0.3 s /\n"
    "            0.3 s, hand pose 1; loops when the source's last pose is its first within\n"
    "            1 deg (the seam is then closed), or when the clip is a cycle written\n"
    "            without its closing key (its seam no larger than its own steps: the first\n"
    "            pose is added one key interval after the last). --loop also closes a\n"
    "            larger seam up to --loop-tolerance DEG (default 10; 1 cm per degree for\n"
    "            the hips) by blending the last 0.5 s into the first pose, reporting the\n"
    "            largest change, and refuses beyond it saying by how much; --no-loop\n"
    "            never loops. --reduce DEG drops keys the viewer's\n"
    "            interpolation reproduces within DEG (0 < DEG <= 10).\n"
    "            Prints joints mapped, duration, keys before/after and the worst bone-\n"
    "            direction difference to the source. The stock avatar is a biped: a\n"
    "            motion of another body plan (a quadruped's, a winged creature's) is\n"
    "            refused naming both plans and the limbs that disagree, unless\n"
    "            --allow-body-mismatch (docs/map.md \"Body plans\"). See docs/motions.md.\n\n"
    "  --skeleton FILE  the viewer's character/avatar_skeleton.xml (or ANIMESH_SKELETON)\n"
    "Exit codes: 0 ok, 1 invalid input or failed check, 2 usage, 3 I/O.\n";

/* docs/reference/lessons.md#rule-7: a looping motion should end where it starts. The viewer plays the jump at
 * the seam every cycle (docs/reference/anim-format.md#time-and-looping); real files and mocap often have one,
 * so this is a note, not a refusal (the motion writer, am_motion_write_anim, refuses). */
static void note_loop_seam(const char *path, const am_anim *a)
{
    am_anim_seam seam;
    am_anim_loop_seam(a, &seam);
    if (seam.rot_deg > 0.05)
        fprintf(stderr, "%s: note: the pose jumps at the loop seam (%.3f s -> %.3f s): %.2f deg on joint '%s'\n", path,
                a->loop_out, a->loop_in, seam.rot_deg, a->joints[seam.rot_joint].name);
    if (seam.pos_m > 0.0005)
        fprintf(stderr, "%s: note: the pose jumps at the loop seam (%.3f s -> %.3f s): %.4f m on joint '%s'\n", path,
                a->loop_out, a->loop_in, seam.pos_m, a->joints[seam.pos_joint].name);
}

static void print_summary(const char *path, const am_anim *a, size_t bytes)
{
    size_t rk = 0, pk = 0;
    for (size_t j = 0; j < a->joint_count; j++)
        rk += a->joints[j].rot_count, pk += a->joints[j].pos_count;
    printf("%s: .anim %u.%u, %zu bytes\n", path, a->version, a->sub_version, bytes);
    printf("  duration %.4f s, base priority %d, %s", a->duration, a->base_priority,
           a->loop ? "looping" : "not looping");
    if (a->loop)
        printf(" %.4f..%.4f s", a->loop_in, a->loop_out);
    printf(", ease in %.3f s / out %.3f s, hand pose %u%s%s\n", a->ease_in, a->ease_out, a->hand_pose,
           a->emote_name[0] ? ", emote " : "", a->emote_name);
    printf("  %zu joints, %zu rotation keys, %zu position keys, %d constraints%s\n", a->joint_count, rk, pk,
           a->constraint_count ? (int)a->constraint_count : a->constraint_count_raw,
           a->constraint_count == 0 && a->constraint_count_raw != 0 ? " (over the limit: ignored by the viewer)" : "");
    for (size_t j = 0; j < a->joint_count; j++) {
        const am_anim_joint *jt = &a->joints[j];
        char nm[128]; /* a file's joint name: control characters shown as \xNN */
        printf("    %-20s priority %2d  %4zu rot keys  %4zu pos keys\n", am_text_shown(jt->name, nm, sizeof nm),
               am_anim_joint_priority(a, j),
               jt->rot_count, jt->pos_count);
    }
    for (size_t c = 0; c < a->constraint_count; c++) {
        char s[17], t[17];
        const am_anim_constraint *cs = &a->constraints[c];
        printf("    constraint %zu: %s %s -> %s, chain %u\n", c, cs->type ? "plane" : "point",
               am_anim_volume_name(cs->source_volume, s), am_anim_volume_name(cs->target_volume, t), cs->chain_length);
    }
    if (a->trailing_size)
        printf("  %zu bytes after the last field (ignored by the viewer, kept)\n", a->trailing_size);
}

static int cmd_decode(int argc, char **argv)
{
    bool json = false;
    const char *out_path = NULL;
    static const am_cli_opt opts[] = {
        {"json", no_argument, 'j', 0},
        {"output", required_argument, 'o', 'o'},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "anim decode", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'j': json = true; break;
        case 'o': out_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("anim decode", "expected exactly one FILE.anim");
    if (out_path && !json) /* the summary goes to stdout; -o would be ignored */
        return am_cli_usage("anim decode", "-o needs --json");
    const char *path = argv[op.first];
    am_error err;
    am_error_clear(&err);
    uint8_t *data;
    size_t size;
    if (am_read_file_as(path, &am_anim_file_format, &data, &size, &err))
        return am_cli_report(&err);
    /* Structure only: a readable file the viewer would refuse (hand pose 20, a key past
     * the duration, ...) is still shown, so it can be inspected and fixed; `check` judges. */
    am_anim a;
    if (am_anim_parse(data, size, &a, &err)) {
        free(data);
        am_error_where(&err, "%s", path);
        return am_cli_report(&err);
    }
    free(data);
    am_anim_report rep;
    if (am_anim_validate(&a, NULL, &rep, &err) == AM_OK) {
        if (rep.errors) {
            char first[AM_ERROR_TEXT_MAX];
            am_anim_report_fail(&rep, &err);
            fprintf(stderr, "%s: note: the viewer would not accept this file (%zu reason%s, 'animesh anim check' "
                            "lists them); first: %s\n",
                    path, rep.errors, rep.errors == 1 ? "" : "s", am_error_format(&err, first, sizeof first));
        }
        am_anim_report_free(&rep);
    }
    am_error_clear(&err);
    int rc = AM_EXIT_OK;
    if (json) {
        am_buf b = {0};
        if (am_anim_to_json(&a, &b, &err) ||
            (out_path ? am_write_file_atomic(out_path, b.data, b.size, &err) : (fwrite(b.data, 1, b.size, stdout), AM_OK)))
            rc = am_cli_report(&err);
        am_buf_free(&b);
    } else {
        print_summary(path, &a, size);
    }
    am_anim_free(&a);
    return rc;
}

static int cmd_encode(int argc, char **argv)
{
    const char *out_path = NULL;
    static const am_cli_opt opts[] = {
        {"output", required_argument, 'o', 'o'},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "anim encode", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 'o': out_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("anim encode", "expected exactly one MOTION.json (or - for stdin)");
    if (!out_path)
        return am_cli_usage("anim encode", "-o OUT.anim is required");
    const char *in = argv[op.first];
    am_error err;
    am_error_clear(&err);
    uint8_t *data;
    size_t size;
    if (am_read_file_as(in, &am_anim_json_format, &data, &size, &err))
        return am_cli_report(&err);
    am_anim a;
    const char *source = strcmp(in, "-") ? in : "stdin";
    am_status st = am_anim_from_json((const char *)data, size, source, &a, &err);
    free(data);
    if (st)
        return am_cli_report(&err);
    am_buf b = {0};
    am_motion_stats ms;
    st = am_anim_encode(&a, &b, &err);
    /* Decode what was encoded and compare with what the JSON meant (a mismatch is an error). */
    if (st == AM_OK)
        st = am_anim_verify_bytes(b.data, b.size, &a, &ms, &err);
    if (st)
        am_error_where(&err, "%s", source); /* the byte offsets are those of the encoded file */
    else
        st = am_write_file_atomic(out_path, b.data, b.size, &err);
    int rc = AM_EXIT_OK;
    if (st)
        rc = am_cli_report(&err);
    else {
        printf("%s: %zu bytes, %zu joints, verified by decoding\n", out_path, b.size, a.joint_count);
        note_loop_seam(out_path, &a);
    }
    am_buf_free(&b);
    am_anim_free(&a);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    const char *skel_path = NULL;
    static const am_cli_opt opts[] = {
        {"skeleton", required_argument, 's', 0},
        AM_CLI_OPT_HELP};
    int c;
    am_cli_opts op;
    am_cli_opts_begin(&op, "anim check", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("anim check", "expected exactly one FILE.anim");
    const char *path = argv[op.first];
    am_error err;
    am_error_clear(&err);
    uint8_t *data;
    size_t size;
    if (am_read_file_as(path, &am_anim_file_format, &data, &size, &err))
        return am_cli_report(&err);
    /* Version 0.1 (docs/reference/anim-format.md#the-legacy-layout) is a layout the viewer still reads but animesh does not:
     * say so rather than claim the viewer would reject it. */
    bool legacy = size >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 1 && data[3] == 0;
    am_anim a;
    am_status st = am_anim_parse(data, size, &a, &err);
    free(data);
    if (st && legacy) {
        fprintf(stderr, "%s: version 0.1 (the legacy layout): the viewer reads it, animesh cannot "
                        "check it; re-export it as version 1.0\n", path);
        return AM_EXIT_INVALID;
    }
    if (st) {
        char buf[AM_ERROR_TEXT_MAX];
        fprintf(stderr, "%s: the viewer would reject it:\n  - %s\n", path, am_error_format(&err, buf, sizeof buf));
        return am_status_exit_code(st);
    }
    am_skeleton skel;
    bool have_skel = am_cli_load_skeleton(skel_path, &skel, &err) == AM_OK;
    if (!have_skel && skel_path) {
        am_anim_free(&a);
        return am_cli_report(&err);
    }
    if (!have_skel)
        fprintf(stderr, "%s: note: no viewer skeleton found (--skeleton or ANIMESH_SKELETON): joint and "
                        "collision-volume names are not checked\n", path);
    am_anim_report rep;
    int rc = AM_EXIT_OK;
    if (am_anim_validate(&a, have_skel ? &skel : NULL, &rep, &err)) {
        rc = am_cli_report(&err);
    } else {
        for (size_t i = 0; i < rep.count; i++) {
            const am_anim_issue *is = &rep.issues[i];
            if (is->offset != AM_NO_OFFSET)
                fprintf(is->severity == AM_ANIM_NOTE ? stdout : stderr, "  - %s (at byte %zu)\n", am_str(&is->msg),
                        is->offset);
            else
                fprintf(is->severity == AM_ANIM_NOTE ? stdout : stderr, "  - %s\n", am_str(&is->msg));
        }
        if (rep.errors) {
            fprintf(stderr, "%s: the viewer would not accept it (%zu reason%s above)\n", path, rep.errors,
                    rep.errors == 1 ? "" : "s");
            rc = AM_EXIT_INVALID;
        } else {
            printf("%s: ok: the viewer would accept it (%zu joints, %.3f s)\n", path, a.joint_count, a.duration);
        }
    }
    am_anim_report_free(&rep);
    if (have_skel)
        am_skeleton_free(&skel);
    am_anim_free(&a);
    return rc;
}

static int cmd_from_bvh(int argc, char **argv)
{
    const char *skel_path = NULL, *map_path = NULL, *out_path = NULL;
    bool allow_body = false;
    am_bvh_options o;
    am_bvh_options_init(&o);
    static const am_cli_opt opts[] = {
        {"allow-body-mismatch", no_argument, 'B', 0},
        {"skeleton", required_argument, 's', 0},
        {"map", required_argument, 'm', 0},
        {"priority", required_argument, 'p', 0},
        {"loop", no_argument, 'l', 0},
        {"loop-in", required_argument, 'I', 0},
        {"loop-out", required_argument, 'O', 0},
        {"ease-in", required_argument, 'i', 0},
        {"ease-out", required_argument, 'e', 0},
        {"hand-pose", required_argument, 'H', 0},
        {"keep-static", no_argument, 'k', 0},
        {"reduce", required_argument, 'R', 0},
        {"align-rest", no_argument, 'A', 0},
        {"loop-tolerance", required_argument, 'T', 0},
        {"output", required_argument, 'o', 'o'},
        AM_CLI_OPT_HELP};
    int c;
    long n;
    am_cli_opts op;
    am_cli_opts_begin(&op, "anim from-bvh", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        case 'm': map_path = op.arg; break;
        case 'o': out_path = op.arg; break;
        case 'l': o.loop = true; break;
        case 'k': o.keep_static_joints = true; break;
        case 'A': o.align_rest = true; break;
        case 'B': allow_body = true; break;
        case 'R': {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v > 0) || v > 10)
                return am_cli_usage("anim from-bvh", "--reduce needs a tolerance in degrees (0 < DEG <= 10)");
            o.reduce_deg = v;
            break;
        }
        case 'T': {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v >= 0) || v > 180)
                return am_cli_usage("anim from-bvh", "--loop-tolerance needs an angle in degrees (0..180)");
            /* the same tolerance in degrees for rotations and, scaled, 1 cm per degree for
             * the pelvis position: how large a seam the closing blend may take */
            o.loop_tolerance_deg = v > 0 ? v : AM_OPTION_ZERO; /* 0 is a choice here */
            o.loop_tolerance_m = v > 0 ? v * 0.01 : AM_OPTION_ZERO;
            break;
        }
        case 'p':
            if (!am_cli_parse_long(op.arg, 0, AM_ANIM_MAX_PRIORITY, &n))
                return am_cli_usage("anim from-bvh", "--priority must be 0..6");
            o.priority = n > 0 ? (int32_t)n : AM_OPTION_ZERO;
            break;
        case 'H':
            if (!am_cli_parse_long(op.arg, 0, AM_ANIM_MAX_HAND_POSE - 1, &n))
                return am_cli_usage("anim from-bvh", "--hand-pose must be 0..13");
            o.hand_pose = n > 0 ? (int32_t)n : AM_OPTION_ZERO;
            break;
        case 'I':
        case 'O':
        case 'i':
        case 'e': {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v >= 0))
                return am_cli_usage("anim from-bvh", "--%s needs a number of seconds >= 0, got '%s'",
                                    c == 'I' ? "loop-in" : c == 'O' ? "loop-out" : c == 'i' ? "ease-in" : "ease-out",
                                    op.arg);
            double given = v > 0 ? v : AM_OPTION_ZERO; /* 0 is a choice here, not the default */
            if (c == 'I')
                o.loop_in_s = v;
            else if (c == 'O')
                o.loop_out_s = given;
            else if (c == 'i')
                o.ease_in_s = given;
            else
                o.ease_out_s = given;
            break;
        }
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("anim from-bvh", "expected exactly one IN.bvh");
    if (!out_path)
        return am_cli_usage("anim from-bvh", "-o OUT.anim is required");
    if (!o.loop && (o.loop_in_s != 0 || o.loop_out_s != 0))
        return am_cli_usage("anim from-bvh", "--loop-in / --loop-out need --loop");
    const char *in = argv[op.first];
    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    am_joint_map map;
    bool have_map = false;
    am_bvh b;
    am_anim a = {0};
    am_buf buf = {0};
    am_bvh_stats bs = {0};
    am_anim_report rep = {0};
    int rc = AM_EXIT_OK;
    am_status st = AM_OK;
    if (map_path) {
        st = am_joint_map_load(map_path, &map, &err);
        have_map = st == AM_OK;
        o.map = have_map ? &map : NULL;
    }
    /* the stock avatar is a biped: a BVH of another body plan is refused */
    am_body_plan avatar = {0}, bp = {0};
    if (!am_body_plan_viewer_avatar(&avatar))
        st = am_fail_nomem(&err, "the stock avatar's body plan");
    char plan_warning[1400];
    if (st == AM_OK)
        st = am_motion_file_body_check(in, &skel, &avatar, allow_body, &bp, plan_warning, sizeof plan_warning, &err);
    if (st == AM_OK && plan_warning[0])
        am_cli_print_flags(stderr, "%s: warning: %s\n", in, plan_warning);
    char map_used[1024] = "";
    if (st == AM_OK && (st = am_bvh_load(in, &b, &err)) == AM_OK) {
        if (map_path) {
            snprintf(map_used, sizeof map_used, "%s", map_path);
        } else if (am_bvh_root_is_viewer(&b, &skel)) {
            snprintf(map_used, sizeof map_used, "the viewer's own names");
        } else if ((st = am_map_suggest_bvh(&b, in, &skel, &map, NULL, &err)) == AM_OK) {
            /* not the viewer's names: the suggested map (animesh map suggest) */
            have_map = true;
            o.map = &map;
            size_t len = (size_t)snprintf(map_used, sizeof map_used, "suggested from names and topology (%zu joints:",
                                          map.count);
            for (size_t i = 0; i < map.count && len + 40 < sizeof map_used; i++)
                len += (size_t)snprintf(map_used + len, sizeof map_used - len, " %s->%s", map.entries[i].rig_name,
                                        map.entries[i].stock_name);
            snprintf(map_used + len, sizeof map_used - len, "%s)", len + 40 >= sizeof map_used ? " ..." : "");
        }
        if (st == AM_OK)
            st = am_bvh_to_anim(&b, &skel, &o, &a, &bs, &err);
        am_bvh_free(&b);
        if (st == AM_OK)
            st = am_anim_encode(&a, &buf, &err);
        if (st == AM_OK)
            st = am_anim_verify_bytes(buf.data, buf.size, &a, NULL, &err);
        if (st == AM_OK)
            st = am_anim_validate(&a, &skel, &rep, &err);
        if (st == AM_OK)
            st = am_anim_report_fail(&rep, &err);
        if (st && map_path)
            am_error_where(&err, "%s (joint map %s)", in, map_path);
        else if (st)
            am_error_where(&err, "%s", in);
    }
    if (st == AM_OK)
        st = am_write_file_atomic(out_path, buf.data, buf.size, &err);
    if (st) {
        rc = am_cli_report(&err);
    } else {
        size_t keys = 0;
        for (size_t j = 0; j < a.joint_count; j++)
            keys += a.joints[j].rot_count + a.joints[j].pos_count;
        printf("%s: %zu joints, %zu keys, %.3f s, priority %d, %s, %zu bytes (verified by decoding)\n", out_path,
               a.joint_count, keys, a.duration, a.base_priority, a.loop ? "looping" : "not looping", buf.size);
        printf("  joint map: %s\n", map_used);
        if (bs.keys_after != bs.keys_before)
            printf("  key reduction: %zu -> %zu keys (%.1f%% saved)\n", bs.keys_before, bs.keys_after,
                   100.0 * (double)(bs.keys_before - bs.keys_after) / (double)bs.keys_before);
        if (bs.loop.rot_track >= 0 || bs.loop.pos_track >= 0)
            printf("  loop: the seam closed by blending the last %.3f s into the pose at loop-in; largest change "
                   "%.3f deg at %s, %.4f m at %s (--loop-tolerance %g deg)\n",
                   bs.loop.window_s, bs.loop.rot_deg, bs.loop.rot_track >= 0 ? a.joints[bs.loop.rot_track].name : "-",
                   bs.loop.pos_m, bs.loop.pos_track >= 0 ? a.joints[bs.loop.pos_track].name : "-",
                   am_option_real(o.loop_tolerance_deg, AM_LOOP_TOLERANCE_DEG));
        if (bs.static_joints)
            printf("  %zu mapped joints never move and were omitted (--keep-static keeps them)\n", bs.static_joints);
        if (bs.unmapped)
            printf("  %zu BVH joints have no stock name and were skipped: %s\n", bs.unmapped, am_str(&bs.skipped));
        note_loop_seam(out_path, &a);
        char rest[2048];
        if (am_bvh_rest_warning(&bs, rest, sizeof rest))
            am_cli_print_flags(stderr, "%s: %s: %s\n", in, bs.rest_aligned ? "note" : "warning", rest);
    }
    am_anim_report_free(&rep);
    am_bvh_stats_free(&bs);
    am_buf_free(&buf);
    am_anim_free(&a);
    am_body_plan_free(&avatar);
    am_body_plan_free(&bp);
    if (have_map)
        am_joint_map_free(&map);
    am_skeleton_free(&skel);
    return rc;
}

static int cmd_from_model(int argc, char **argv)
{
    const char *skel_path = NULL, *map_path = NULL, *out_path = NULL, *clip = NULL;
    am_motion_file_options mo;
    am_motion_file_options_init(&mo);
    mo.one_clip = true;
    am_retarget_options *o = &mo.retarget;
    /* an ordinary avatar animation: the viewer's uploader defaults, as anim from-bvh
     * (LLBVHLoader::reset, docs/reference/anim-format.md#bvh-defaults: priority 2, ease 0.3 s / 0.3 s, hand pose 1) */
    o->priority = 2;
    mo.hand_pose = 1;
    enum { O_NO_LOOP = 1000, O_IN_PLACE, O_CLIP, O_ALLOW_BODY, O_LOOP_TOL };
    static const am_cli_opt opts[] = {
        {"skeleton", required_argument, 's', 0},
        {"map", required_argument, 'm', 0},
        {"clip", required_argument, O_CLIP, 0},
        {"priority", required_argument, 'p', 0},
        {"loop", no_argument, 'l', 0},
        {"no-loop", no_argument, O_NO_LOOP, 0},
        {"loop-tolerance", required_argument, O_LOOP_TOL, 0},
        {"ease-in", required_argument, 'i', 0},
        {"ease-out", required_argument, 'e', 0},
        {"hand-pose", required_argument, 'H', 0},
        {"reduce", required_argument, 'R', 0},
        {"in-place", no_argument, O_IN_PLACE, 0},
        {"allow-body-mismatch", no_argument, O_ALLOW_BODY, 0},
        {"output", required_argument, 'o', 'o'},
        AM_CLI_OPT_HELP};
    int c;
    long n;
    am_cli_opts op;
    am_cli_opts_begin(&op, "anim from-model", help, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case 's': skel_path = op.arg; break;
        case 'm': map_path = op.arg; break;
        case 'o': out_path = op.arg; break;
        case O_CLIP: clip = op.arg; break;
        case 'l': o->loop = AM_LOOP_ON; break;
        case O_NO_LOOP: o->loop = AM_LOOP_OFF; break;
        case O_IN_PLACE: o->in_place = true; break;
        case O_ALLOW_BODY: mo.allow_body_mismatch = true; break;
        case O_LOOP_TOL: {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v >= 0) || v > 180)
                return am_cli_usage("anim from-model", "--loop-tolerance needs an angle in degrees (0..180)");
            o->loop_tolerance_deg = v > 0 ? v : AM_OPTION_ZERO; /* 0 is a choice here */
            break;
        }
        case 'R': {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v > 0) || v > 10)
                return am_cli_usage("anim from-model", "--reduce needs a tolerance in degrees (0 < DEG <= 10)");
            o->reduce_deg = v;
            break;
        }
        case 'p':
            if (!am_cli_parse_long(op.arg, 0, AM_ANIM_MAX_PRIORITY, &n))
                return am_cli_usage("anim from-model", "--priority must be 0..6");
            o->priority = n > 0 ? (int32_t)n : AM_OPTION_ZERO;
            break;
        case 'H':
            if (!am_cli_parse_long(op.arg, 0, AM_ANIM_MAX_HAND_POSE - 1, &n))
                return am_cli_usage("anim from-model", "--hand-pose must be 0..13");
            mo.hand_pose = (uint32_t)n;
            break;
        case 'i':
        case 'e': {
            double v;
            if (!am_cli_parse_double(op.arg, &v) || !(v >= 0) || v > AM_ANIM_MAX_DURATION)
                return am_cli_usage("anim from-model", "--%s needs a number of seconds 0..60, got '%s'",
                                    c == 'i' ? "ease-in" : "ease-out", op.arg);
            if (c == 'i')
                o->ease_in_s = v > 0 ? v : AM_OPTION_ZERO; /* 0 is a choice here */
            else
                o->ease_out_s = v > 0 ? v : AM_OPTION_ZERO;
            break;
        }
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc - 1)
        return am_cli_usage("anim from-model", "expected exactly one FILE[:CLIP]");
    if (!out_path)
        return am_cli_usage("anim from-model", "-o OUT.anim is required");
    const char *in = argv[op.first];
    am_error err;
    am_error_clear(&err);
    am_skeleton skel;
    if (am_cli_load_skeleton(skel_path, &skel, &err))
        return am_cli_report(&err);
    am_joint_map map;
    bool have_map = false;
    am_status st = AM_OK;
    if (map_path) {
        st = am_joint_map_load(map_path, &map, &err);
        have_map = st == AM_OK;
        o->map = have_map ? &map : NULL;
    }
    const char *one[1] = {clip};
    if (clip) {
        o->clips = one;
        o->clip_count = 1;
    }
    am_body_plan avatar = {0}; /* the stock avatar the motion goes onto */
    if (!am_body_plan_viewer_avatar(&avatar) && !st)
        st = am_fail_nomem(&err, "the stock avatar's body plan");
    mo.target_plan = &avatar;
    am_motion_file_result r = {0};
    if (!st)
        st = am_motion_file_convert(in, &skel, &mo, &r, &err);
    if (!st && r.anim_count != 1)
        st = am_fail(&err, AM_ERR_INVALID, "%zu motions converted, one expected", r.anim_count);
    if (!st)
        st = am_write_file_atomic(out_path, r.anims[0].anim.data, r.anims[0].anim.size, &err);
    int rc = AM_EXIT_OK;
    if (st) {
        rc = am_cli_report(&err);
    } else {
        const am_motion_file_anim *a = &r.anims[0];
        printf("%s: clip '%s' of %s (%s)\n", out_path, am_str(&a->clip), am_str(&r.source), am_str(&r.holds));
        am_cli_print_flags(stdout,
                           "  %zu joints mapped, %zu unmapped; %.3f s, %s; %zu keys -> %zu after reduction; %zu bytes "
                           "(verified by decoding)\n",
                           a->joints_mapped, a->joints_unmapped, a->duration_s, am_str(&a->loop_why), a->keys_before,
                           a->keys_after, a->anim.size);
        printf("  bone directions: at most %.2f deg from the source's (at %s)\n", a->worst_direction_deg,
               !am_string_empty(&a->worst_direction_joint) ? am_str(&a->worst_direction_joint) : "-");
        for (size_t i = 0; i < r.finding_count; i++)
            am_cli_print_flags(stderr, "%s: %s: %s\n", in,
                               r.findings[i].level == AM_FINDING_WARNING ? "warning" : "note", am_str(&r.findings[i].text));
    }
    am_motion_file_result_free(&r);
    am_body_plan_free(&avatar);
    if (have_map)
        am_joint_map_free(&map);
    am_skeleton_free(&skel);
    return rc;
}

int am_cmd_anim(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(help, argc < 2 ? stderr : stdout);
        return argc < 2 ? AM_EXIT_USAGE : AM_EXIT_OK;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "decode") == 0)
        return cmd_decode(argc - 1, argv + 1);
    if (strcmp(sub, "encode") == 0)
        return cmd_encode(argc - 1, argv + 1);
    if (strcmp(sub, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(sub, "from-bvh") == 0)
        return cmd_from_bvh(argc - 1, argv + 1);
    if (strcmp(sub, "from-model") == 0)
        return cmd_from_model(argc - 1, argv + 1);
    return am_cli_usage("anim", "unknown subcommand '%s' (expected decode, encode, check, from-bvh or from-model)",
                        sub);
}
