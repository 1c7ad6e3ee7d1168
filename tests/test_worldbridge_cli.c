/* `animesh push` end to end against a real HTTP server on 127.0.0.1: the whole sequence,
 * local validation before anything is sent, a failure part-way, secrets never printed,
 * dry-run, usage errors; `push --remote-admin` with its check before sending and --verify;
 * and the defaults `push --help` states are the ones push keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/base64.h"
#include "core/io.h"
#include "support/http_server.h"
#include "support/test_support.h"
#include "support/world_fixtures.h"
#include "world/oar_check.h"

#define TOKEN "tok-CLI-Secret-77"
#define PASSWORD "ra-CLI-Secret-88"

typedef struct bridge {
    int fail_store_number; /* the n-th store_anim (1-based) always answers 500 */
    int fail_save;         /* save_world always answers 500 */
    int status_always;
    int stores_seen;
    int next_uuid;
    const char *xml_reply; /* RemoteAdmin mode */
    const am_buf *save;    /* what admin_save_oar writes (RemoteAdmin mode) */
    const am_buf *save_later; /* from save number later_from on (the starter script has run) */
    int later_from;
    int saves_seen;
    char saved_to[1024];
} bridge;

static void handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    bridge *b = user;
    if (b->xml_reply) {
        snprintf(resp->content_type, sizeof resp->content_type, "text/xml");
        snprintf(resp->body, sizeof resp->body, "%s", b->xml_reply);
        bool later = b->save_later && b->saves_seen + 1 >= b->later_from;
        if (am_test_region_save(rq, later ? b->save_later : b->save, resp, b->saved_to, sizeof b->saved_to))
            b->saves_seen++;
        return;
    }
    if (b->status_always) {
        resp->status = b->status_always;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"denied\",\"auth\":\"%s\"}", rq->authorization);
        return;
    }
    const char *cmd = rq->path + 4; /* "/wb/" */
    if (b->fail_save && strcmp(cmd, "save_world") == 0) {
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"read-only region\"}");
        return;
    }
    if (strcmp(cmd, "store_anim") == 0 && ++b->stores_seen >= b->fail_store_number && b->fail_store_number) {
        resp->status = 500;
        snprintf(resp->body, sizeof resp->body, "{\"ok\":false,\"error\":\"disk full\"}");
        b->stores_seen--; /* the same store again next time */
        return;
    }
    if (strcmp(cmd, "spawn_mesh") == 0 || strcmp(cmd, "store_anim") == 0)
        snprintf(resp->body, sizeof resp->body, "{\"ok\":true,\"uuid\":\"00000000-0000-4000-8000-%012d\"}",
                 ++b->next_uuid);
    else
        snprintf(resp->body, sizeof resp->body, "{\"ok\":true}");
}

typedef struct fixture {
    bridge b;
    am_test_http_server *srv;
    char url[128], dir[512], mesh[4096], wave[1024], idle[1024], skel[4096], common[8192];
} fixture;

static void write_bytes(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(d, 1, n, f), n);
    fclose(f);
}

static int setup(void **state)
{
    am_test_no_proxy();
    unsetenv("WORLDBRIDGE_URL");
    unsetenv("ANIMESH_SKELETON");
    unsetenv("ANIMESH_VIEWER_DIR");
    setenv("WORLDBRIDGE_TOKEN", TOKEN, 1);
    fixture *f = calloc(1, sizeof *f);
    f->srv = am_test_http_start(handler, &f->b);
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u/wb", am_test_http_port(f->srv));
    am_test_tmpdir(f->dir, sizeof f->dir);
    am_test_tri_meshdata_path(f->mesh, sizeof f->mesh);
    am_test_shared_path(f->skel, sizeof f->skel, "viewer/avatar_skeleton.xml");
    uint8_t a[512];
    snprintf(f->wave, sizeof f->wave, "%s/wave.anim", f->dir);
    write_bytes(f->wave, a, am_test_tiny_anim(a, sizeof a, "mTorso", 2.0f));
    snprintf(f->idle, sizeof f->idle, "%s/idle.anim", f->dir);
    write_bytes(f->idle, a, am_test_tiny_anim(a, sizeof a, "mPelvis", 1.0f));
    snprintf(f->common, sizeof f->common, "--skeleton '%s' --timeout 2000 --retries 1 --backoff 5", f->skel);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_http_stop(f->srv);
    am_test_rmtree(f->dir);
    free(f);
    unsetenv("WORLDBRIDGE_TOKEN");
    unsetenv("OPENSIM_REMOTEADMIN_PASSWORD");
    return 0;
}

static json_t *request_json(fixture *f, size_t i, char *path, size_t size)
{
    am_test_http_request rq;
    am_test_http_get(f->srv, i, &rq);
    snprintf(path, size, "%s", rq.path);
    json_t *j = json_loadb(rq.body, rq.body_size, 0, NULL);
    assert_non_null(j);
    free(rq.body);
    return j;
}

static void test_push_runs_the_whole_sequence(void **state)
{
    fixture *f = *state;
    char out[8192], path[512];
    int rc = am_test_run_cli(out, sizeof out,
                             "push --bridge %s --mesh '%s' --anim wave='%s' --anim idle='%s' --play wave "
                             "--at 10,20.5,30 --save %s",
                             f->url, f->mesh, f->wave, f->idle, f->common);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "object 00000000-0000-4000-8000-000000000001\n"));
    assert_non_null(strstr(out, "anim wave 00000000-0000-4000-8000-000000000002\n"));
    assert_non_null(strstr(out, "anim idle 00000000-0000-4000-8000-000000000003\n"));
    assert_non_null(strstr(out, "playing wave\n"));
    assert_non_null(strstr(out, "saved\n"));
    assert_null(strstr(out, TOKEN));
    assert_int_equal(am_test_http_count(f->srv), 5);
    static const char *order[] = {"/wb/spawn_mesh", "/wb/store_anim", "/wb/store_anim", "/wb/play_anim",
                                  "/wb/save_world"};
    for (size_t i = 0; i < 5; i++) {
        json_t *j = request_json(f, i, path, sizeof path);
        assert_string_equal(path, order[i]);
        if (i == 0) {
            json_t *pos = json_object_get(j, "position");
            assert_true(json_real_value(json_array_get(pos, 1)) == 20.5);
            assert_string_equal(json_string_value(json_object_get(j, "name")), "tri");
            assert_true(json_is_null(json_object_get(j, "texture")));
        }
        if (i == 3) {
            assert_string_equal(json_string_value(json_object_get(j, "uuid")), "00000000-0000-4000-8000-000000000001");
            assert_string_equal(json_string_value(json_object_get(j, "anim")), "00000000-0000-4000-8000-000000000002");
            assert_string_equal(json_string_value(json_object_get(j, "name")), "wave");
        }
        json_decref(j);
    }
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    char want[128];
    snprintf(want, sizeof want, "Bearer %s", TOKEN);
    assert_string_equal(rq.authorization, want);
    free(rq.body);
}

static void test_invalid_inputs_send_nothing(void **state)
{
    fixture *f = *state;
    char out[8192], bad[1024];
    /* Meshdata whose weights do not sum to 1. */
    snprintf(bad, sizeof bad, "%s/bad.meshdata.json", f->dir);
    am_test_write_text(bad, "{\"version\":1,\"name\":\"b\",\"submeshes\":[{\"positions\":[[0,0,0],[1,0,0],[0,1,0]],"
                            "\"triangles\":[[0,1,2]]}],\"skin\":{\"joints\":[\"mPelvis\"],\"bindShape\":"
                            "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],\"invBind\":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]],"
                            "\"altInvBind\":[[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]],\"weights\":[[[0,1]],[[0,0.7]],"
                            "[[0,1]]]}}");
    int rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim wave='%s' %s", f->url, bad,
                             f->wave, f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "bad.meshdata.json: skin.weights[1]: weights sum to 0.700000, not 1"));
    /* A truncated .anim. */
    uint8_t a[512];
    size_t n = am_test_tiny_anim(a, sizeof a, "mPelvis", 1.0f);
    snprintf(bad, sizeof bad, "%s/cut.anim", f->dir);
    write_bytes(bad, a, n - 10);
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim cut='%s' %s", f->url, f->mesh, bad,
                         f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "cut.anim"));
    /* An .anim animating a joint the viewer does not have (caught with the skeleton). */
    snprintf(bad, sizeof bad, "%s/tail.anim", f->dir);
    write_bytes(bad, a, am_test_tiny_anim(a, sizeof a, "mTail9", 1.0f));
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim t='%s' %s", f->url, f->mesh, bad,
                         f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "tail.anim"));
    assert_non_null(strstr(out, "mTail9"));
    assert_non_null(strstr(out, "--allow-unknown-joints"));
    /* The user may send it anyway (the region stores it; the viewer drops the joint), with a
     * warning; a dry run shows it would be stored. */
    char dry[600];
    snprintf(dry, sizeof dry, "%s/dry-unknown", f->dir);
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim t='%s' --allow-unknown-joints --dry-run '%s' %s",
                         f->url, f->mesh, bad, dry, f->common);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "warning: 1 joint(s) not in the viewer's skeleton"));
    /* A texture that is not a code stream. */
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --texture '%s' %s", f->url, f->mesh, f->wave,
                         f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "JPEG-2000"));
    /* The right magic but not a decodable code stream. */
    uint8_t j[64] = {0xff, 0x4f, 0xff, 0x51};
    for (size_t i = 4; i < sizeof j; i++)
        j[i] = (uint8_t)(i * 37);
    snprintf(bad, sizeof bad, "%s/noise.j2c", f->dir);
    write_bytes(bad, j, sizeof j);
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --texture '%s' %s", f->url, f->mesh, bad,
                         f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "noise.j2c"));
    /* A name that is not UTF-8 cannot travel as JSON text: said so (it was "out of memory"). */
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim \"$(printf 'w\\377')=%s\" %s", f->url,
                         f->mesh, f->wave, f->common);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--anim name \"w\\xFF\" is not valid UTF-8"));
    rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --name \"$(printf 'x\\300\\200')\" %s", f->url,
                         f->mesh, f->common);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "not valid UTF-8"));
    assert_null(strstr(out, "out of memory"));
    assert_int_equal(am_test_http_count(f->srv), 0);
}

static void test_failure_part_way_reports_what_was_done(void **state)
{
    fixture *f = *state;
    f->b.fail_store_number = 2; /* the second animation cannot be stored */
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out,
                             "push --bridge %s --mesh '%s' --anim wave='%s' --anim idle='%s' --play wave --save %s",
                             f->url, f->mesh, f->wave, f->idle, f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "store_anim: HTTP 500 after 2 attempts: {\"ok\":false,\"error\":\"disk full\"}"));
    assert_non_null(strstr(out, "stopped at store_anim idle. Already done:"));
    assert_non_null(strstr(out, "object 00000000-0000-4000-8000-000000000001 spawned"));
    assert_non_null(strstr(out, "animation wave stored as 00000000-0000-4000-8000-000000000002"));
    assert_null(strstr(out, "animation idle stored"));
    /* spawn, store wave, store idle twice (one retry); nothing played or saved. */
    assert_int_equal(am_test_http_count(f->srv), 4);
    char path[256];
    json_t *j = request_json(f, 3, path, sizeof path);
    assert_string_equal(path, "/wb/store_anim");
    json_decref(j);
}

static void test_failure_at_save_reports_the_animation_playing(void **state)
{
    fixture *f = *state;
    f->b.fail_save = 1;
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out,
                             "push --bridge %s --mesh '%s' --anim wave='%s' --play wave --save %s", f->url, f->mesh,
                             f->wave, f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "stopped at save_world. Already done:"));
    assert_non_null(strstr(out, "animation wave stored as 00000000-0000-4000-8000-000000000002"));
    assert_non_null(strstr(out, "animation wave playing"));
}

static void test_401_never_prints_the_token(void **state)
{
    fixture *f = *state;
    f->b.status_always = 401; /* and echoes the Authorization header in its body */
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' %s", f->url, f->mesh, f->common);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "spawn_mesh: HTTP 401 (check WORLDBRIDGE_TOKEN) after 1 attempt"));
    assert_non_null(strstr(out, "nothing (no object was spawned)"));
    assert_null(strstr(out, TOKEN));
    assert_int_equal(am_test_http_count(f->srv), 1);
}

static void test_dry_run_writes_requests_and_sends_nothing(void **state)
{
    fixture *f = *state;
    char out[8192], dry[1024], path[1200];
    snprintf(dry, sizeof dry, "%s/dry", f->dir);
    int rc = am_test_run_cli(out, sizeof out,
                             "push --bridge %s --mesh '%s' --anim wave='%s' --play wave --save --dry-run '%s' "
                             "--texture 89556747-24cb-43ed-920b-47caed15465f %s",
                             f->url, f->mesh, f->wave, dry, f->common);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "dry-run: wrote 4 requests to"));
    assert_int_equal(am_test_http_count(f->srv), 0);
    static const char *files[] = {"01-spawn_mesh", "02-store_anim", "03-play_anim", "04-save_world"};
    for (size_t i = 0; i < 4; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s.json", dry, files[i]);
        assert_int_equal(stat(path, &st), 0);
        snprintf(path, sizeof path, "%s/%s.http", dry, files[i]);
        uint8_t *d;
        size_t n;
        am_error err;
        assert_int_equal(am_read_file(path, &d, &n, &err), AM_OK);
        assert_null(strstr((char *)d, TOKEN));
        free(d);
    }
    json_error_t je;
    snprintf(path, sizeof path, "%s/01-spawn_mesh.json", dry);
    json_t *j = json_load_file(path, 0, &je);
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "texture"), "uuid")),
                        "89556747-24cb-43ed-920b-47caed15465f");
    json_decref(j);
    snprintf(path, sizeof path, "%s/03-play_anim.json", dry);
    j = json_load_file(path, 0, &je);
    assert_string_equal(json_string_value(json_object_get(j, "uuid")), "{{spawn_mesh.uuid}}");
    assert_string_equal(json_string_value(json_object_get(j, "anim")), "wave");
    json_decref(j);
}

static void test_usage_errors(void **state)
{
    fixture *f = *state;
    char out[8192];
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --help"), 0);
    assert_non_null(strstr(out, "--remote-admin"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge %s", f->url), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim wave", f->url, f->mesh), 2);
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --anim w='%s' --play run", f->url, f->mesh, f->wave),
        2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --mesh '%s' %s", f->mesh, f->common), 2);
    assert_non_null(strstr(out, "WORLDBRIDGE_URL"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --at 1,2", f->url, f->mesh), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --at 1,nan,2", f->url, f->mesh), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --timeout soon", f->url, f->mesh), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar x.oar", f->url), 2);
    assert_int_equal(am_test_http_count(f->srv), 0);
}

/* A valid archive (real inputs, am_oar_write) in archive and at path. */
static void valid_oar(const char *path, am_buf *archive)
{
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_error err;
    assert_int_equal(am_oar_write(&t.in, archive, &err), AM_OK);
    am_test_oar_inputs_free(&t);
    write_bytes(path, archive->data, archive->size);
}

/* The archive as a region saves it once the starter script has run: the root's SOPAnims
 * (u16 count; per animation 16 UUID bytes, a length byte, the name) name the animation. */
static void with_playing(const am_buf *archive, am_buf *out)
{
    am_oar_contents c;
    am_error err;
    assert_int_equal(am_oar_read(archive->data, archive->size, &c, &err), AM_OK);
    const am_oar_part *root = &c.objects[0].parts[0];
    const am_oar_item *anim = NULL;
    for (size_t i = 0; i < root->item_count; i++)
        if (root->items[i].type == 20)
            anim = &root->items[i];
    assert_non_null(anim);
    uint8_t blob[2 + 16 + 1 + 255] = {1, 0};
    size_t len = strlen(anim->name);
    memcpy(blob + 2, anim->asset.b, 16);
    blob[18] = (uint8_t)len;
    memcpy(blob + 19, anim->name, len);
    char *b64;
    assert_int_equal(am_base64_encode(blob, 19 + len, &b64, &err), AM_OK);
    am_oar_contents_free(&c);
    am_test_tar_entry e[16];
    size_t n = am_test_untar(archive, e, 16);
    const am_test_tar_entry *order[16];
    for (size_t i = 0; i < n; i++) {
        order[i] = &e[i];
        if (strncmp(e[i].path, "objects/", 8) != 0)
            continue;
        const char *end = strstr((const char *)e[i].data, "</SceneObjectPart>");
        assert_non_null(end);
        size_t head = (size_t)(end - (const char *)e[i].data), add = strlen(b64) + 21;
        uint8_t *d = malloc(e[i].size + add + 1);
        assert_non_null(d);
        memcpy(d, e[i].data, head);
        snprintf((char *)d + head, add + 1, "<SOPAnims>%s</SOPAnims>", b64);
        memcpy(d + head + add, e[i].data + head, e[i].size - head);
        free(e[i].data);
        e[i].data = d;
        e[i].size += add;
    }
    free(b64);
    am_test_pack_tgz(order, n, out);
    am_test_tar_free(e, n);
}

static void test_remote_admin_loads_and_hides_the_password(void **state)
{
    fixture *f = *state;
    char out[8192], url[128], oar[1024], junk[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_http_port(f->srv));
    snprintf(oar, sizeof oar, "%s/c.oar", f->dir);
    snprintf(junk, sizeof junk, "%s/junk.oar", f->dir);
    am_buf archive = {0};
    valid_oar(oar, &archive);
    am_test_write_text(junk, "x");
    /* No password: usage error, nothing sent. */
    unsetenv("OPENSIM_REMOTEADMIN_PASSWORD");
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox", url, oar), 2);
    assert_non_null(strstr(out, "OPENSIM_REMOTEADMIN_PASSWORD"));
    assert_int_equal(am_test_http_count(f->srv), 0);

    setenv("OPENSIM_REMOTEADMIN_PASSWORD", PASSWORD, 1);
    f->b.xml_reply = "<methodResponse><params><param><value><struct><member><name>loaded</name><value>"
                     "<boolean>1</boolean></value></member></struct></value></param></params></methodResponse>";
    /* Not an archive, and an archive cut short: refused before anything is sent. */
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox", url, junk), 1);
    assert_non_null(strstr(out, "junk.oar: not gzip-compressed"));
    assert_non_null(strstr(out, "not sent"));
    write_bytes(junk, archive.data, archive.size * 2 / 3);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox", url, junk), 1);
    assert_non_null(strstr(out, "junk.oar: assets/"));
    assert_non_null(strstr(out, "the file is cut short"));
    assert_int_equal(am_test_http_count(f->srv), 0);

    int rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox --no-verify", url, oar);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "checked "));
    assert_non_null(strstr(out, "1 object, 1 part, 4 assets decode and match their UUIDs"));
    assert_non_null(strstr(out, "loaded "));
    assert_null(strstr(out, "verified"));
    assert_null(strstr(out, PASSWORD));
    assert_int_equal(am_test_http_count(f->srv), 1);
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    assert_non_null(strstr(rq.body, "<name>password</name><value><string>" PASSWORD "</string>"));
    assert_non_null(strstr(rq.body, "<name>merge</name><value><string>true</string>"));
    char want[1200];
    snprintf(want, sizeof want, "<name>filename</name><value><string>%s</string>", oar); /* absolute already */
    assert_non_null(strstr(rq.body, want));
    free(rq.body);

    f->b.xml_reply = "<methodResponse><params><param><value><struct><member><name>loaded</name><value>"
                     "<boolean>0</boolean></value></member><member><name>error</name><value><string>bad password "
                     PASSWORD "</string></value></member></struct></value></param></params></methodResponse>";
    rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar http://h/c.oar --region Sandbox", url);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "not checked before sending (the region fetches the URL itself)"));
    assert_non_null(strstr(out, "the region did not load the archive: bad password"));
    assert_null(strstr(out, PASSWORD));
    am_buf_free(&archive);
}

static void test_remote_admin_verifies_on_loopback(void **state)
{
    fixture *f = *state;
    char out[8192], url[128], oar[1024], vdir[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_http_port(f->srv));
    snprintf(oar, sizeof oar, "%s/c.oar", f->dir);
    snprintf(vdir, sizeof vdir, "%s/v", f->dir);
    assert_int_equal(mkdir(vdir, 0700), 0);
    am_buf archive = {0};
    valid_oar(oar, &archive);
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", PASSWORD, 1);
    f->b.xml_reply = "<methodResponse><params><param><value><struct><member><name>loaded</name><value>"
                     "<boolean>1</boolean></value></member></struct></value></param></params></methodResponse>";
    /* The stand-in saves back what it was given, the starter script's animation playing:
     * loaded and verified (on by default: loopback), saying what plays. */
    am_buf played = {0};
    with_playing(&archive, &played);
    f->b.save = &played;
    int rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox --verify-dir '%s'",
                             url, oar, vdir);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(
        strstr(out, "loaded and verified: 1 object (1 part, animesh flag set), 4 assets byte-identical; playing "
                    "yes_head\n"));
    assert_int_equal(am_test_http_count(f->srv), 2);
    am_test_http_request rq;
    am_test_http_get(f->srv, 1, &rq);
    assert_non_null(strstr(rq.body, "<methodName>admin_save_oar</methodName>"));
    assert_non_null(strstr(rq.body, "<name>region_name</name><value><string>Sandbox</string>"));
    free(rq.body);
    assert_int_equal(strncmp(f->b.saved_to, vdir, strlen(vdir)), 0);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rmdir '%s'", vdir); /* empty again: the save and its directory are gone */
    assert_int_equal(system(cmd), 0);
    /* A save whose mesh differs: what differs is printed, exit 1. */
    am_test_tar_entry e[8];
    size_t n = am_test_untar(&archive, e, 8);
    const am_test_tar_entry *order[8];
    for (size_t i = 0; i < n; i++) {
        order[i] = &e[i];
        if (strstr(e[i].path, "_mesh.llmesh"))
            e[i].data[e[i].size - 1] ^= 0x55;
    }
    am_buf bad = {0};
    am_test_pack_tgz(order, n, &bad);
    f->b.save = &bad;
    rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox", url, oar);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "NOT verified: what the region saved differs from the archive:\n  assets/"));
    assert_non_null(strstr(out, "_mesh.llmesh: the region holds"));
    /* --no-verify sends no save; --verify with a URL --oar is a usage error. */
    size_t before = am_test_http_count(f->srv);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox --no-verify",
                                     url, oar),
                     0);
    assert_int_equal(am_test_http_count(f->srv), before + 1);
    assert_int_equal(
        am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar http://h/c.oar --region Sandbox --verify", url), 2);
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region S --verify --no-verify",
                                     url, oar),
                     2);
    am_test_tar_free(e, n);
    am_buf_free(&bad);
    am_buf_free(&played);
    am_buf_free(&archive);
}

/* What plays: the region's first saves come before the starter script has run (no SOPAnims);
 * --verify saves again until one shows the animation playing, and says so; when none does
 * within --verify-wait, that is a finding (exit 1). */
static void test_remote_admin_verify_waits_for_the_starter_script(void **state)
{
    fixture *f = *state;
    char out[8192], url[128], oar[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_http_port(f->srv));
    snprintf(oar, sizeof oar, "%s/c.oar", f->dir);
    am_buf archive = {0}, played = {0};
    valid_oar(oar, &archive);
    with_playing(&archive, &played);
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", PASSWORD, 1);
    f->b.xml_reply = "<methodResponse><params><param><value><struct><member><name>loaded</name><value>"
                     "<boolean>1</boolean></value></member></struct></value></param></params></methodResponse>";
    f->b.save = &archive; /* saves 1 and 2: nothing plays yet */
    f->b.save_later = &played;
    f->b.later_from = 3;
    int rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox", url, oar);
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "4 assets byte-identical; playing yes_head (after 3 saves, "));
    assert_non_null(strstr(out, " s: the starter script had not started it before)\n"));
    assert_int_equal(f->b.saves_seen, 3);
    assert_int_equal(am_test_http_count(f->srv), 4); /* the load, then three saves */
    /* never playing: bounded by --verify-wait, then a finding */
    f->b.save_later = NULL;
    f->b.saves_seen = 0;
    rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox --verify-wait 1.5", url,
                         oar);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "loaded and verified: 1 object (1 part, animesh flag set), 4 assets byte-identical\n"));
    assert_non_null(strstr(out, "finding: nothing plays: the starter script should start 'yes_head', but after "));
    double waited = atof(strstr(out, "but after ") + 10);
    assert_true(waited >= 0.9 && waited < 5); /* polled once a second for at most 1.5 s */
    assert_true(f->b.saves_seen >= 2 && f->b.saves_seen <= 3);
    char saves[64];
    snprintf(saves, sizeof saves, "s and %d saves the region shows no animation playing", f->b.saves_seen);
    assert_non_null(strstr(out, saves));
    /* --verify-wait 0: one save, the finding at once */
    f->b.saves_seen = 0;
    rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region Sandbox --verify-wait 0", url,
                         oar);
    assert_int_equal(rc, 1);
    assert_int_equal(f->b.saves_seen, 1);
    assert_non_null(strstr(out, "1 save the region shows no animation playing"));
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region S --verify-wait soon",
                                     url, oar),
                     2);
    assert_non_null(strstr(out, "--verify-wait expects seconds (0..600), got 'soon'"));
    am_buf_free(&played);
    am_buf_free(&archive);
}

/* The first number after `key` in text (and after "; RemoteAdmin " right behind it, if any). */
static void defaults_after(const char *text, const char *key, long *wb, long *ra)
{
    const char *p = strstr(text, key);
    if (!p)
        fail_msg("push --help lacks '%s'", key);
    p += strlen(key);
    char *end;
    *wb = strtol(p, &end, 10);
    assert_gt(end, p);
    *ra = *wb;
    if (strncmp(end, "; RemoteAdmin ", 14) == 0 && end[14] >= '0' && end[14] <= '9')
        *ra = strtol(end + 14, NULL, 10);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The least time n retries take, backoff b doubling (capped at 8 s as both clients cap it). */
static double least_wait(long n, long b)
{
    double s = 0, d = (double)b;
    for (long i = 0; i < n; i++, d = d * 2 > 8000 ? 8000 : d * 2)
        s += d;
    return s / 1000.0;
}

static void test_help_states_the_retries_push_makes(void **state)
{
    fixture *f = *state;
    char out[16384];
    assert_int_equal(am_test_run_cli(out, sizeof out, "push --help"), 0);
    long wb_retries, ra_retries, wb_backoff, ra_backoff;
    defaults_after(out, "5xx (default ", &wb_retries, &ra_retries);
    defaults_after(out, "doubled each time (default ", &wb_backoff, &ra_backoff);
    /* WorldBridge: a 503 is retried; every attempt reaches the server. */
    f->b.status_always = 503;
    double t0 = seconds_now();
    int rc = am_test_run_cli(out, sizeof out, "push --bridge %s --mesh '%s' --skeleton '%s'", f->url, f->mesh, f->skel);
    double took = seconds_now() - t0;
    assert_int_equal(rc, 1);
    assert_int_equal(am_test_http_count(f->srv), (size_t)wb_retries + 1);
    if (took < least_wait(wb_retries, wb_backoff))
        fail_msg("%ld retries %ld ms apart doubling take at least %.2f s; push took %.2f s", wb_retries, wb_backoff,
                 least_wait(wb_retries, wb_backoff), took);
    /* RemoteAdmin: a refused connection is retried. */
    char oar[1024], url[128], want[64];
    snprintf(oar, sizeof oar, "%s/c.oar", f->dir);
    am_buf archive = {0};
    valid_oar(oar, &archive);
    am_buf_free(&archive);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_closed_port());
    setenv("OPENSIM_REMOTEADMIN_PASSWORD", PASSWORD, 1);
    t0 = seconds_now();
    rc = am_test_run_cli(out, sizeof out, "push --remote-admin %s --oar '%s' --region R", url, oar);
    took = seconds_now() - t0;
    assert_int_equal(rc, 1);
    snprintf(want, sizeof want, "connection refused after %ld attempts", ra_retries + 1);
    if (!strstr(out, want))
        fail_msg("'%s' lacks '%s'", out, want);
    if (took < least_wait(ra_retries, ra_backoff))
        fail_msg("%ld retries %ld ms apart doubling take at least %.2f s; push took %.2f s", ra_retries, ra_backoff,
                 least_wait(ra_retries, ra_backoff), took);
}

static void test_bridge_url_from_the_environment(void **state)
{
    fixture *f = *state;
    setenv("WORLDBRIDGE_URL", f->url, 1);
    char out[8192];
    int rc = am_test_run_cli(out, sizeof out, "push --mesh '%s' %s", f->mesh, f->common);
    unsetenv("WORLDBRIDGE_URL");
    if (rc != 0)
        fail_msg("exit %d: %s", rc, out);
    assert_non_null(strstr(out, "object 00000000-0000-4000-8000-000000000001"));
    assert_int_equal(am_test_http_count(f->srv), 1); /* spawn only: no anims, no --play, no --save */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_push_runs_the_whole_sequence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_inputs_send_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_part_way_reports_what_was_done, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_at_save_reports_the_animation_playing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_401_never_prints_the_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_writes_requests_and_sends_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_usage_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote_admin_loads_and_hides_the_password, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote_admin_verifies_on_loopback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote_admin_verify_waits_for_the_starter_script, setup, teardown),
        cmocka_unit_test_setup_teardown(test_help_states_the_retries_push_makes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bridge_url_from_the_environment, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
