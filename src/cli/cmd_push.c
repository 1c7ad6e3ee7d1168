/* animesh push: a creature into a running region, over WorldBridge (spawn, store, play,
 * save) or by asking OpenSim's RemoteAdmin to load an OAR. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/cli_args.h"
#include "cli/cli_opts.h"
#include "anim/anim.h"
#include "texture/texture.h"
#include "world/checks.h"
#include "world/digest.h"
#include "world/http.h"
#include "world/meshdata.h"
#include "world/oar_check.h"
#include "world/oar_verify.h"
#include "world/remoteadmin.h"
#include "world/world_push.h"
#include "world/worldbridge.h"

#define PUSH_MAX_ANIMS 64

/* The help text. Every default it states is read from the options the clients start from
 * (am_worldbridge_options_init, am_remoteadmin_options_init), so the text cannot drift from the behaviour. */
static const char *both_defaults(char *out, size_t size, long wb, long ra)
{
    if (wb == ra)
        snprintf(out, size, "default %ld", wb);
    else
        snprintf(out, size, "default %ld; RemoteAdmin %ld", wb, ra);
    return out;
}

static void print_help(void)
{
    am_worldbridge_options wb;
    am_remoteadmin_options ra;
    am_worldbridge_options_init(&wb);
    am_remoteadmin_options_init(&ra);
    char connect[64], timeout[64], retries[64], backoff[64];
    both_defaults(connect, sizeof connect, wb.connect_timeout_ms, ra.connect_timeout_ms);
    both_defaults(timeout, sizeof timeout, wb.total_timeout_ms, ra.total_timeout_ms);
    both_defaults(retries, sizeof retries, wb.max_attempts - 1, ra.max_attempts - 1);
    both_defaults(backoff, sizeof backoff, wb.backoff_ms, ra.backoff_ms);
    printf("usage: animesh push --bridge URL --mesh NAME.meshdata.json [--texture T.j2c|UUID]\n"
           "                    --anim NAME=FILE.anim ... [--play NAME] [--at X,Y,Z] [--name S]\n"
           "                    [--save] [--dry-run DIR] [--skeleton FILE] [--allow-unknown-joints]\n"
           "       animesh push --remote-admin URL --oar FILE|URL --region NAME|--region-uuid UUID\n"
           "                    [--verify|--no-verify] [--verify-dir DIR] [--verify-uid UID]\n"
           "                    [--verify-wait S]\n\n"
           "WorldBridge: validates everything locally first (the meshdata against its schema, each\n"
           ".anim through the decoder's checks, joint names against the viewer skeleton when one is\n"
           "found), then spawns the mesh, stores each animation, plays the chosen one and saves the\n"
           "world, printing each returned UUID. A failure part-way reports what was already done.\n"
           "Every request carries an Idempotency-Key (SHA-256 of its body), so a retry or a re-run\n"
           "cannot spawn or store twice on a bridge that honours it.\n"
           "  --bridge URL         WorldBridge base URL (default $WORLDBRIDGE_URL); the bearer token\n"
           "                       comes from $WORLDBRIDGE_TOKEN and is never printed\n"
           "  --mesh FILE          the meshdata JSON (as the skin builder writes it)\n"
           "  --texture T          a .j2c file sent inline, or the UUID of a texture on the grid\n"
           "  --anim NAME=FILE     an animation to store under NAME (repeatable, up to %d)\n"
           "  --play NAME          start this animation (an --anim NAME, or an asset UUID)\n"
           "  --at X,Y,Z           region position in metres (default 128,128,25)\n"
           "  --name S             object name (default: the meshdata name)\n"
           "  --save               call save_world at the end\n"
           "  --dry-run DIR        write each request (NN-command.json = the body, .http = headers\n"
           "                       without the token) to DIR and send nothing; UUIDs only the bridge\n"
           "                       can assign appear as placeholders ({{spawn_mesh.uuid}})\n"
           "  --connect-timeout MS connect timeout per attempt (%s)\n"
           "  --timeout MS         total timeout per attempt (%s)\n"
           "  --retries N          extra attempts after a refused connection, one dropped before or in\n"
           "                       the middle of the reply, a timeout or a 5xx (%s): safe, the\n"
           "                       Idempotency-Key makes a repeat return the first result. RemoteAdmin\n"
           "                       retries refused connections only (a repeat would load twice)\n"
           "  --backoff MS         first retry delay, doubled each time (%s)\n"
           "  --skeleton FILE      the viewer's avatar_skeleton.xml (else ANIMESH_SKELETON /\n"
           "                       ANIMESH_VIEWER_DIR; without one, joint names are not checked)\n"
           "  --allow-unknown-joints  send an .anim that animates joints the viewer does not have (a\n"
           "                       prop joint in a stock animation): the viewer drops those joints\n"
           "                       in-world; a warning names the file (default: refused)\n\n"
           "RemoteAdmin: calls admin_load_oar on the region with merge \"true\"; the password comes\n"
           "from $OPENSIM_REMOTEADMIN_PASSWORD and is never printed. --oar is a path on the region's\n"
           "host (an existing local file is passed as its absolute path) or an http(s) URL.\n"
           "A local archive is checked completely first (gzip and tar whole, archive.xml first, every\n"
           "asset decodes and matches its UUID) and a bad one is refused naming the entry: OpenSim\n"
           "answers `loaded` even for a cut-short archive and keeps its broken assets for good.\n"
           "  --region NAME        the region to load into\n"
           "  --region-uuid UUID   the region by its UUID instead (sent as region_id)\n"
           "  --verify             after loading, have the region save itself (admin_save_oar) to a\n"
           "                       temporary file, read it back and compare the object, its animesh\n"
           "                       flag, mesh and inventory and every asset byte for byte: prints\n"
           "                       \"loaded and verified\" or what differs (exit 1). On by default\n"
           "                       when the URL is loopback (the region's files are this machine's)\n"
           "  --no-verify          do not\n"
           "  --verify-dir DIR     where the region writes that file: a directory the region can\n"
           "                       write and this machine reads at the same path (default $TMPDIR\n"
           "                       or /tmp); needed for --verify on a region elsewhere\n"
           "  --verify-uid UID     the user the region runs as: the save is read only when that user\n"
           "                       owns it (default: the user running animesh)\n"
           "  --verify-wait S      what plays: an archive with a starter script plays its animation\n"
           "                       once the script has run, which may be after the load; --verify\n"
           "                       saves again every second until the save shows it playing, for at\n"
           "                       most S seconds (default 20), and says which animation plays (and\n"
           "                       after how many saves); none playing after the wait is a finding\n"
           "                       (exit 1)\n\n"
           "A grid that stored a damaged copy of an asset (an earlier load of a cut-short archive)\n"
           "keeps it: a later load skips that UUID. Build the archive again with\n"
           "`animesh oar --salt NEW` for new UUIDs, and load that.\n\n"
           "Exit codes: 0 done, 1 invalid input or refused by the peer or network failure or a\n"
           "difference found by --verify or nothing playing after --verify-wait, 2 usage, 3 a file\n"
           "could not be read or written.\n",
           PUSH_MAX_ANIMS, connect, timeout, retries, backoff);
}

typedef struct push_anim {
    const char *path;
    uint8_t *data;
} push_anim;

typedef struct push_args {
    const char *bridge, *mesh, *texture, *play, *name, *dry_run, *skeleton;
    const char *remote_admin, *oar, *region, *region_uuid, *verify_dir;
    int verify; /* -1: by default (on for a local archive and a loopback URL), 0 no, 1 yes */
    long verify_uid; /* -1: ours */
    long verify_wait_ms; /* -1: the default (am_oar_verify_options_init) */
    double at[3];
    bool save, at_given, allow_unknown_joints;
    long connect_ms, total_ms, backoff_ms;
    int retries;
    push_anim anims[PUSH_MAX_ANIMS];
    am_world_push_anim sends[PUSH_MAX_ANIMS]; /* name, then the bytes of anims[i] */
    size_t anim_count;
} push_args;

/* --connect-timeout, --timeout, --retries and --backoff over the defaults of either client's
 * options (am_worldbridge_options and am_remoteadmin_options name these fields alike). */
#define APPLY_TIMING(opt, a)                                                                   \
    do {                                                                                       \
        if ((a)->connect_ms)                                                                   \
            (opt)->connect_timeout_ms = (a)->connect_ms;                                       \
        if ((a)->total_ms)                                                                     \
            (opt)->total_timeout_ms = (a)->total_ms;                                           \
        if ((a)->retries >= 0)                                                                 \
            (opt)->max_attempts = (a)->retries + 1;                                            \
        if ((a)->backoff_ms >= 0)                                                              \
            (opt)->backoff_ms = (a)->backoff_ms > 0 ? (a)->backoff_ms : AM_OPTION_ZERO;        \
    } while (0)

static void free_anims(push_args *a)
{
    for (size_t i = 0; i < a->anim_count; i++)
        free(a->anims[i].data);
}

/* Read and check each .anim: the decoder's checks, and joint names when skel is given. */
static am_status load_anims(push_args *a, const am_skeleton *skel, am_error *err)
{
    for (size_t i = 0; i < a->anim_count; i++) {
        push_anim *pa = &a->anims[i];
        am_world_push_anim *send = &a->sends[i];
        am_status s = am_read_file_as(pa->path, &am_anim_file_format, &pa->data, &send->size, err);
        if (s)
            return s;
        send->data = pa->data;
        size_t unknown = 0;
        s = am_world_check_anim(send->data, send->size, skel, a->allow_unknown_joints, &unknown, err);
        if (s) {
            am_error_where(err, "%s", pa->path);
            return s;
        }
        if (unknown)
            fprintf(stderr, "%s: warning: %zu joint(s) not in the viewer's skeleton: the viewer drops them in-world "
                            "(an upload would refuse the file); see animesh anim check\n", pa->path, unknown);
    }
    return AM_OK;
}

/* What the push did, as it did it: UUIDs on stdout. */
static void print_done(const push_args *a, const am_world_push_done *d)
{
    if (a->dry_run)
        return;
    if (d->object[0])
        printf("object %s\n", d->object);
    for (size_t i = 0; i < d->stored; i++)
        printf("anim %s %s\n", a->sends[i].name, a->sends[i].uuid);
    if (d->played)
        printf("playing %s\n", a->play);
    if (d->saved)
        printf("saved\n");
}

/* What a failure part-way leaves behind, so the user can finish without duplicates. */
static void report_progress(const push_args *a, const am_world_push_done *d)
{
    fprintf(stderr, "animesh push: stopped at %s. Already done:\n", am_str(&d->step));
    if (!d->object[0])
        fprintf(stderr, "  nothing (no object was spawned)\n");
    else
        fprintf(stderr, "  object %s spawned\n", d->object);
    for (size_t i = 0; i < d->stored; i++)
        fprintf(stderr, "  animation %s stored as %s\n", a->sends[i].name, a->sends[i].uuid);
    if (d->played)
        fprintf(stderr, "  animation %s playing\n", a->play);
    fprintf(stderr, "Re-running the same push sends the same requests with the same Idempotency-Keys,\n"
                    "so a bridge that honours them returns these UUIDs instead of creating copies.\n");
}

static int push_bridge(push_args *a)
{
    am_error err;
    am_error_clear(&err);
    if (!a->mesh)
        return am_cli_usage("push", "--mesh NAME.meshdata.json is required");
    am_skeleton skel;
    bool have_skel = false;
    if (a->skeleton || getenv("ANIMESH_SKELETON") || getenv("ANIMESH_VIEWER_DIR")) {
        if (am_cli_load_skeleton(a->skeleton, &skel, &err))
            return am_cli_report(&err);
        have_skel = true;
    } else {
        fprintf(stderr, "animesh push: note: no viewer skeleton given (--skeleton, ANIMESH_SKELETON); "
                        "joint names are not checked against it\n");
    }
    int rc = AM_EXIT_OK;
    json_t *meshdata = NULL;
    uint8_t *tex = NULL;
    size_t tex_size = 0;
    const char *tex_uuid = NULL;
    am_meshdata_summary sum;
    if (am_meshdata_load(a->mesh, have_skel ? &skel : NULL, &meshdata, &sum, &err) ||
        load_anims(a, have_skel ? &skel : NULL, &err)) {
        rc = am_cli_report(&err);
        goto done;
    }
    if (a->texture) {
        if (am_uuid_parse(a->texture, NULL)) {
            tex_uuid = a->texture;
        } else {
            if (am_read_file_as(a->texture, &am_j2c_file_format, &tex, &tex_size, &err)) {
                rc = am_cli_report(&err);
                goto done;
            }
            if (am_world_check_texture(tex, tex_size, NULL, NULL, &err)) {
                am_error_where(&err, "%s", a->texture);
                rc = am_cli_report(&err);
                goto done;
            }
        }
    }
    if (!sum.skinned)
        fprintf(stderr, "animesh push: note: %s has no skin: the object will not be an animesh\n", a->mesh);

    am_worldbridge_options opt;
    am_worldbridge_options_init(&opt);
    am_worldbridge_options_from_env(&opt);
    if (a->bridge)
        opt.base_url = a->bridge;
    opt.dry_run_dir = a->dry_run;
    APPLY_TIMING(&opt, a);
    am_world_push_request rq = {a->mesh, have_skel ? &skel : NULL, a->name, {a->at[0], a->at[1], a->at[2]},
                                tex, tex_size, tex_uuid, a->sends, a->anim_count, a->play, a->save};
    am_world_push_done pushed;
    am_status st = am_world_push(&opt, &rq, &pushed, &err);
    print_done(a, &pushed);
    bool connected = strcmp(am_str(&pushed.step), "connecting") != 0; /* am_world_push's step before any request */
    if (st && err.code == AM_ERR_USAGE && !connected) {
        rc = am_cli_usage("push", "%s", err.msg);
    } else if (st) {
        rc = am_cli_report(&err);
        if (!a->dry_run && connected)
            report_progress(a, &pushed);
    } else if (a->dry_run) {
        printf("dry-run: wrote %d request%s to %s (nothing sent)\n", pushed.requests, pushed.requests == 1 ? "" : "s",
               a->dry_run);
    }
    am_world_push_done_free(&pushed);
done:
    json_decref(meshdata);
    free(tex);
    free_anims(a);
    if (have_skel)
        am_skeleton_free(&skel);
    return rc;
}

/* The archive as it will be sent: read and checked completely. */
static int check_local_oar(const char *path, am_oar_contents *ours)
{
    am_error err;
    am_error_clear(&err);
    uint8_t *data = NULL;
    size_t size = 0;
    am_oar_check_report rep;
    am_status s = am_read_file_as(path, &am_oar_file_format, &data, &size, &err);
    if (s == AM_ERR_IO)
        return am_cli_report(&err);
    if (!s && !(s = am_oar_read(data, size, ours, &err)))
        s = am_oar_check(ours, &rep, &err);
    free(data);
    if (s) {
        if (!strstr(err.where, path))
            am_error_where(&err, "%s", path);
        int rc = am_cli_report(&err);
        fprintf(stderr, "animesh push: not sent: OpenSim would answer `loaded` and keep whatever it could read, "
                        "cut-short assets included, for good\n");
        return rc;
    }
    fprintf(stderr, "animesh push: checked %s: %zu object%s, %zu part%s, %zu asset%s decode and match their UUIDs\n",
            path, rep.objects, rep.objects == 1 ? "" : "s", rep.parts, rep.parts == 1 ? "" : "s",
            rep.meshes + rep.animations + rep.textures + rep.scripts,
            rep.meshes + rep.animations + rep.textures + rep.scripts == 1 ? "" : "s");
    return AM_EXIT_OK;
}

/* Whether name is one of the comma-separated names in list. */
static bool names_in(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0)
            return true;
        p += k;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

static int print_verification(const am_oar_contents *ours, const am_oar_diff *d)
{
    if (d->count) {
        printf("NOT verified: what the region saved differs from the archive:\n");
        for (size_t i = 0; i < d->count; i++)
            am_cli_print_flags(stdout, "  %s\n", d->lines[i]);
        return AM_EXIT_INVALID;
    }
    printf("loaded and verified: %zu object%s (%zu part%s, animesh flag %s), %zu asset%s byte-identical",
           ours->object_count, ours->object_count == 1 ? "" : "s", d->parts, d->parts == 1 ? "" : "s",
           d->animesh_flag ? "set" : "not set", d->assets, d->assets == 1 ? "" : "s");
    if (d->playing[0]) {
        printf("; playing %s", d->playing);
        if (d->saves > 1)
            printf(" (after %u saves, %.1f s: the starter script had not started it before)", d->saves, d->waited_s);
    }
    if (d->copies > 1)
        printf("; the region holds %zu copies (it was loaded before)", d->copies);
    printf("\n");
    if (d->starter && !d->playing[0]) {
        printf("finding: nothing plays: the starter script should start %s%s%s, but after %.1f s and %u save%s the "
               "region shows no animation playing (is scripting on in the region? its log names a script that "
               "failed; --verify-wait S waits longer)\n",
               d->starter_anim[0] ? "'" : "", d->starter_anim[0] ? d->starter_anim : "its animation",
               d->starter_anim[0] ? "'" : "", d->waited_s, d->saves, d->saves == 1 ? "" : "s");
        return AM_EXIT_INVALID;
    }
    if (d->starter && d->starter_anim[0] && !names_in(d->playing, d->starter_anim)) {
        printf("finding: %s plays, but the starter script starts '%s'\n", d->playing, d->starter_anim);
        return AM_EXIT_INVALID;
    }
    return AM_EXIT_OK;
}

static int push_remote_admin(push_args *a)
{
    if (!a->oar)
        return am_cli_usage("push", "--remote-admin needs --oar FILE|URL");
    if (!a->region && !a->region_uuid)
        return am_cli_usage("push", "--remote-admin needs --region NAME or --region-uuid UUID");
    if (a->region_uuid && !am_uuid_parse(a->region_uuid, NULL))
        return am_cli_usage("push", "--region-uuid '%s' is not a UUID", a->region_uuid);
    am_remoteadmin_options opt;
    am_remoteadmin_options_init(&opt);
    am_remoteadmin_options_from_env(&opt);
    opt.url = a->remote_admin;
    APPLY_TIMING(&opt, a);
    if (!opt.password)
        return am_cli_usage("push", "set OPENSIM_REMOTEADMIN_PASSWORD to the region's [RemoteAdmin] access_password");
    /* A local file: the region can only open it by its absolute path (same host). */
    char abs[PATH_MAX];
    const char *filename = a->oar;
    bool url = strncmp(a->oar, "http://", 7) == 0 || strncmp(a->oar, "https://", 8) == 0;
    bool local = !url && realpath(a->oar, abs);
    if (local)
        filename = abs;
    if (a->verify_dir && a->verify < 0)
        a->verify = 1; /* a place for the save only makes sense for a verification */
    if (a->verify == 1 && !local)
        return am_cli_usage("push", "--verify compares the region's save with the archive: --oar must be a file on "
                                    "this machine");
    bool verify = a->verify == 1 || (a->verify < 0 && local && am_http_url_is_loopback(a->remote_admin));
    am_oar_contents ours;
    memset(&ours, 0, sizeof ours);
    int rc;
    if (local && (rc = check_local_oar(a->oar, &ours)))
        return rc;
    if (!local)
        fprintf(stderr, "animesh push: note: %s is not a file on this machine, so it is not checked before sending%s\n",
                a->oar, url ? " (the region fetches the URL itself)" : " (taken as a path on the region host)");
    am_remoteadmin_load_oar req = {filename, a->region, a->region_uuid, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    am_error_clear(&err);
    int attempts = 0;
    const char *region = a->region ? a->region : a->region_uuid;
    am_status loaded = am_remoteadmin_load_oar_call(&opt, &req, &reply, &attempts, &err);
    am_remoteadmin_reply_free(&reply); /* its error is in err */
    if (loaded) {
        am_oar_contents_free(&ours);
        if (err.code == AM_ERR_USAGE)
            return am_cli_usage("push", "%s", err.msg);
        return am_cli_report(&err);
    }
    printf("loaded %s into %s\n", filename, region);
    fflush(stdout);
    rc = AM_EXIT_OK;
    if (verify) {
        fprintf(stderr, "animesh push: verifying: the region saves itself (admin_save_oar), animesh reads it back\n");
        am_oar_verify_options vo;
        am_oar_verify_options_init(&vo);
        vo.dir = a->verify_dir;
        vo.region_uid = am_oar_verify_uid(a->verify_uid);
        if (a->verify_wait_ms >= 0) /* 0 is a choice here: no wait */
            vo.play_wait_ms = a->verify_wait_ms > 0 ? a->verify_wait_ms : AM_OPTION_ZERO;
        am_oar_diff diff;
        if (am_oar_verify(&opt, a->region, a->region_uuid, &ours, &vo, &diff, &err))
            rc = am_cli_report(&err);
        else
            rc = print_verification(&ours, &diff);
        am_oar_diff_free(&diff);
    } else if (local && a->verify < 0) {
        fprintf(stderr, "animesh push: note: not verified (the region is not on loopback): --verify with "
                        "--verify-dir DIR, a directory the region writes and this machine reads\n");
    }
    am_oar_contents_free(&ours);
    return rc;
}

int am_cmd_push(int argc, char **argv)
{
    if (am_cli_wants_help(argc, argv)) {
        print_help();
        return AM_EXIT_OK;
    }
    push_args a;
    memset(&a, 0, sizeof a);
    a.at[0] = 128;
    a.at[1] = 128;
    a.at[2] = 25;
    a.retries = -1;
    a.backoff_ms = -1;
    a.verify = -1;
    a.verify_uid = -1;
    a.verify_wait_ms = -1;
    enum { O_BRIDGE = 256, O_MESH, O_TEXTURE, O_ANIM, O_PLAY, O_AT, O_NAME, O_SAVE, O_DRY, O_SKEL, O_RA, O_OAR,
           O_REGION, O_REGION_UUID, O_CONNECT, O_TIMEOUT, O_RETRIES, O_BACKOFF, O_ALLOW_UNKNOWN, O_VERIFY,
           O_NO_VERIFY, O_VERIFY_DIR, O_VERIFY_UID, O_VERIFY_WAIT };
    static const am_cli_opt opts[] = {
        {"bridge", required_argument, O_BRIDGE, 0},
        {"mesh", required_argument, O_MESH, 0},
        {"texture", required_argument, O_TEXTURE, 0},
        {"anim", required_argument, O_ANIM, 0},
        {"play", required_argument, O_PLAY, 0},
        {"at", required_argument, O_AT, 0},
        {"name", required_argument, O_NAME, 0},
        {"save", no_argument, O_SAVE, 0},
        {"dry-run", required_argument, O_DRY, 0},
        {"skeleton", required_argument, O_SKEL, 0},
        {"remote-admin", required_argument, O_RA, 0},
        {"oar", required_argument, O_OAR, 0},
        {"region", required_argument, O_REGION, 0},
        {"region-uuid", required_argument, O_REGION_UUID, 0},
        {"connect-timeout", required_argument, O_CONNECT, 0},
        {"timeout", required_argument, O_TIMEOUT, 0},
        {"retries", required_argument, O_RETRIES, 0},
        {"backoff", required_argument, O_BACKOFF, 0},
        {"allow-unknown-joints", no_argument, O_ALLOW_UNKNOWN, 0},
        {"verify", no_argument, O_VERIFY, 0},
        {"no-verify", no_argument, O_NO_VERIFY, 0},
        {"verify-dir", required_argument, O_VERIFY_DIR, 0},
        {"verify-uid", required_argument, O_VERIFY_UID, 0},
        {"verify-wait", required_argument, O_VERIFY_WAIT, 0}};
    int c;
    long v;
    am_cli_opts op;
    am_cli_opts_begin(&op, "push", NULL, opts, AM_CLI_OPTS_COUNT(opts), argc, argv);
    while ((c = am_cli_opts_next(&op)) >= 0) {
        switch (c) {
        case O_BRIDGE: a.bridge = op.arg; break;
        case O_MESH: a.mesh = op.arg; break;
        case O_TEXTURE: a.texture = op.arg; break;
        case O_ANIM: {
            char *eq = strchr(op.arg, '=');
            if (!eq || eq == op.arg || !eq[1])
                return am_cli_usage("push", "--anim expects NAME=FILE.anim, got '%s'", op.arg);
            if (a.anim_count == PUSH_MAX_ANIMS)
                return am_cli_usage("push", "at most %d --anim", PUSH_MAX_ANIMS);
            *eq = '\0';
            am_error nerr; /* names travel as JSON text: refused here, before anything is sent */
            if (am_world_check_text("--anim", op.arg, &nerr))
                return am_cli_usage("push", "%s", nerr.msg);
            for (size_t i = 0; i < a.anim_count; i++)
                if (strcmp(a.sends[i].name, op.arg) == 0)
                    return am_cli_usage("push", "two --anim are named '%s'", op.arg);
            a.sends[a.anim_count].name = op.arg;
            a.anims[a.anim_count].path = eq + 1;
            a.anim_count++;
            break;
        }
        case O_PLAY: a.play = op.arg; break;
        case O_AT:
            if (!am_cli_parse_xyz(op.arg, a.at))
                return am_cli_usage("push", "--at expects X,Y,Z in metres, got '%s'", op.arg);
            a.at_given = true;
            break;
        case O_NAME: {
            am_error nerr;
            if (am_world_check_text("--name", op.arg, &nerr))
                return am_cli_usage("push", "%s", nerr.msg);
            a.name = op.arg;
            break;
        }
        case O_SAVE: a.save = true; break;
        case O_ALLOW_UNKNOWN: a.allow_unknown_joints = true; break;
        case O_DRY: a.dry_run = op.arg; break;
        case O_SKEL: a.skeleton = op.arg; break;
        case O_RA: a.remote_admin = op.arg; break;
        case O_OAR: a.oar = op.arg; break;
        case O_REGION: a.region = op.arg; break;
        case O_REGION_UUID: a.region_uuid = op.arg; break;
        case O_VERIFY:
        case O_NO_VERIFY:
            if (a.verify >= 0 && a.verify != (c == O_VERIFY))
                return am_cli_usage("push", "--verify and --no-verify together");
            a.verify = c == O_VERIFY;
            break;
        case O_VERIFY_DIR: a.verify_dir = op.arg; break;
        case O_VERIFY_WAIT: {
            double w;
            if (!am_cli_parse_double(op.arg, &w) || !(w >= 0) || w > 600)
                return am_cli_usage("push", "--verify-wait expects seconds (0..600), got '%s'", op.arg);
            a.verify_wait_ms = (long)(w * 1000 + 0.5);
            break;
        }
        case O_VERIFY_UID:
            if (!am_cli_parse_long(op.arg, 0, 2147483647L, &a.verify_uid))
                return am_cli_usage("push", "--verify-uid: a user id (a number, `id -u USER`)");
            break;
        case O_CONNECT:
        case O_TIMEOUT:
        case O_BACKOFF:
            if (!am_cli_parse_long(op.arg, c == O_BACKOFF ? 0 : 1, 86400000L, &v))
                return am_cli_usage("push", "--%s expects milliseconds (%s..86400000), got '%s'",
                                    c == O_CONNECT ? "connect-timeout" : c == O_TIMEOUT ? "timeout" : "backoff",
                                    c == O_BACKOFF ? "0" : "1", op.arg);
            if (c == O_CONNECT)
                a.connect_ms = v;
            else if (c == O_TIMEOUT)
                a.total_ms = v;
            else
                a.backoff_ms = v;
            break;
        case O_RETRIES:
            if (!am_cli_parse_long(op.arg, 0, 20, &v))
                return am_cli_usage("push", "--retries expects 0..20, got '%s'", op.arg);
            a.retries = (int)v;
            break;
        }
    }
    if (c == AM_CLI_OPTS_STOP)
        return op.rc;
    if (op.first != argc)
        return am_cli_usage("push", "unexpected argument '%s'", argv[op.first]);
    if (a.remote_admin) {
        const char *wb = a.bridge       ? "--bridge"
                         : a.mesh       ? "--mesh"
                         : a.anim_count ? "--anim"
                         : a.dry_run    ? "--dry-run"
                         : a.texture    ? "--texture"
                         : a.play       ? "--play"
                         : a.name       ? "--name"
                         : a.save       ? "--save"
                         : a.skeleton   ? "--skeleton"
                         : a.at_given   ? "--at"
                                        : NULL;
        if (wb)
            return am_cli_usage("push", "--remote-admin loads an OAR; it does not take WorldBridge options (%s)%s", wb,
                                a.dry_run ? "; a local archive is checked whole before it is sent (animesh oar "
                                            "checks it as it writes it)"
                                          : "");
        return push_remote_admin(&a);
    }
    if (a.oar || a.region || a.region_uuid || a.verify >= 0 || a.verify_dir || a.verify_wait_ms >= 0)
        return am_cli_usage("push", "--oar, --region and --verify go with --remote-admin URL");
    if (!a.bridge && !getenv("WORLDBRIDGE_URL") && !a.mesh && !a.dry_run)
        return am_cli_usage("push", "say where to push: --bridge URL (WorldBridge, or $WORLDBRIDGE_URL) with "
                                    "--mesh NAME.meshdata.json, or --remote-admin URL --oar FILE --region NAME");
    if (a.play) {
        bool known = am_uuid_parse(a.play, NULL);
        for (size_t i = 0; i < a.anim_count; i++)
            known |= strcmp(a.sends[i].name, a.play) == 0;
        if (!known)
            return am_cli_usage("push", "--play %s names no --anim (give an --anim %s=FILE or an asset UUID)", a.play,
                                a.play);
    }
    return push_bridge(&a);
}
