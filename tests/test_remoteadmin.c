/* RemoteAdmin admin_load_oar / admin_save_oar over XML-RPC against a real HTTP server on
 * 127.0.0.1: the requests' shape (the region as region_id, the member OpenSim reads), `loaded`
 * and `saved` true/false, faults, malformed replies, retries only for refused connections, the
 * password never shown; and --verify's save, read back and compare against a stand-in that
 * writes the save file the way a region does, and against a local attacker who plants a file
 * at the name earlier versions derived, a FIFO, a link or an old file where the save goes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "support/http_server.h"
#include "support/test_support.h"
#include <unistd.h>

#include "world/oar_check.h"
#include "world/oar_verify.h"
#include "world/remoteadmin.h"
#include "support/world_fixtures.h"

#define PASSWORD "pw-Very-Secret-9"

typedef struct region {
    const char *reply; /* the XML (or other) body to answer with */
    int status;
    /* admin_save_oar, as a region does it: write these bytes to the filename asked for (not
     * at all when NULL), then answer `saved`. */
    const am_buf *save;
    char saved_to[1024];
    /* Another local user, acting while the region answers `saved` (the save folder takes
     * anyone's files): what they put where the save goes. */
    enum { HONEST, PLANT_DERIVED, FIFO_THERE, LINK_THERE, OLD_FILE } attack;
    char planted[1100];
} region;

static void write_bytes(const char *path, const am_buf *b)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b->data, 1, b->size, fp), b->size);
    fclose(fp);
}

static void handler(const am_test_http_request *rq, am_test_http_response *resp, void *user)
{
    region *r = user;
    resp->status = r->status ? r->status : 200;
    snprintf(resp->content_type, sizeof resp->content_type, "text/xml");
    snprintf(resp->body, sizeof resp->body, "%s", r->reply);
    if (r->attack == HONEST) {
        am_test_region_save(rq, r->save, resp, r->saved_to, sizeof r->saved_to);
        return;
    }
    /* the region saves nothing; the attacker knows only the folder (it is listed in its parent) */
    if (!am_test_region_save(rq, r->attack == OLD_FILE ? r->save : NULL, resp, r->saved_to, sizeof r->saved_to))
        return;
    char folder[1024];
    snprintf(folder, sizeof folder, "%s", r->saved_to);
    *strrchr(folder, '/') = '\0';
    if (r->attack == PLANT_DERIVED) { /* the name earlier versions used: the folder's suffix */
        snprintf(r->planted, sizeof r->planted, "%s/region-%s.oar", folder, folder + strlen(folder) - 6);
        write_bytes(r->planted, r->save);
    } else if (r->attack == FIFO_THERE) {
        assert_int_equal(mkfifo(r->saved_to, 0666), 0);
    } else if (r->attack == LINK_THERE) {
        snprintf(r->planted, sizeof r->planted, "%s/elsewhere.oar", folder);
        write_bytes(r->planted, r->save);
        assert_int_equal(symlink(r->planted, r->saved_to), 0);
    } else if (r->attack == OLD_FILE) { /* a save dated an hour before the request */
        struct timespec t[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
        assert_int_equal(utimensat(AT_FDCWD, r->saved_to, t, 0), 0);
    }
}

#define LOADED(v)                                                                                                   \
    "<?xml version=\"1.0\"?><methodResponse><params><param><value><struct>"                                         \
    "<member><name>loaded</name><value><boolean>" v "</boolean></value></member>"                                   \
    "</struct></value></param></params></methodResponse>"

static void expect_member(xmlDoc *doc, const char *name, const char *want)
{
    char q[256];
    snprintf(q, sizeof q, "/methodCall/params/param/value/struct/member[name='%s']/value/string", name);
    char *got = am_test_xpath_text(doc, q);
    if (strcmp(got, want) != 0)
        fail_msg("member %s = '%s', wanted '%s'", name, got, want);
    free(got);
}

/* The request parsed, its methodName checked. */
static xmlDoc *call_doc(const am_test_http_request *rq, const char *method)
{
    xmlDoc *doc = xmlReadMemory(rq->body, (int)rq->body_size, "call.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    char *m = am_test_xpath_text(doc, "/methodCall/methodName");
    assert_string_equal(m, method);
    free(m);
    return doc;
}

static int member_count(xmlDoc *doc)
{
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)"//member", ctx);
    int n = o && o->nodesetval ? o->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return n;
}

typedef struct fixture {
    region r;
    am_test_http_server *srv;
    am_remoteadmin_options opt;
    char url[128];
} fixture;

static int setup(void **state)
{
    am_test_no_proxy();
    fixture *f = calloc(1, sizeof *f);
    f->srv = am_test_http_start(handler, &f->r);
    snprintf(f->url, sizeof f->url, "http://127.0.0.1:%u/", am_test_http_port(f->srv));
    am_remoteadmin_options_init(&f->opt);
    f->opt.url = f->url;
    f->opt.password = PASSWORD;
    f->opt.total_timeout_ms = 2000;
    f->opt.backoff_ms = 10;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    am_test_http_stop(f->srv);
    free(f);
    return 0;
}

static void test_request_shape_and_loaded_true(void **state)
{
    fixture *f = *state;
    f->r.reply = LOADED("1");
    am_remoteadmin_load_oar req = {"/srv/oars/bend & box.oar", "Sandbox <1>", NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    int attempts;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_OK);
    assert_true(reply.loaded);
    am_remoteadmin_reply_free(&reply);
    assert_int_equal(attempts, 1);
    assert_int_equal(am_test_http_count(f->srv), 1);
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    assert_string_equal(rq.method, "POST");
    assert_string_equal(rq.path, "/");
    assert_string_equal(rq.content_type, "text/xml");
    xmlDoc *doc = call_doc(&rq, "admin_load_oar");
    expect_member(doc, "password", PASSWORD);
    expect_member(doc, "filename", "/srv/oars/bend & box.oar");
    expect_member(doc, "region_name", "Sandbox <1>");
    expect_member(doc, "merge", "true");
    expect_member(doc, "skip-assets", "false");
    assert_int_equal(member_count(doc), 5); /* nothing else, no region_id */
    xmlFreeDoc(doc);
    free(rq.body);
}

static void test_loaded_false_reports_the_region_error(void **state)
{
    fixture *f = *state;
    f->r.reply = "<methodResponse><params><param><value><struct>"
                 "<member><name>loaded</name><value><boolean>0</boolean></value></member>"
                 "<member><name>error</name><value><string>region Sandbox not found</string></value></member>"
                 "</struct></value></param></params></methodResponse>";
    am_remoteadmin_load_oar req = {"http://example.invalid/c.oar", "Sandbox", NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    int attempts;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_ERR_INVALID);
    assert_false(reply.loaded);
    assert_int_equal(attempts, 1);
    assert_non_null(strstr(err.msg, "admin_load_oar: the region did not load the archive: region Sandbox not found"));
    assert_string_equal(err.where, f->url);
    assert_string_equal(am_str(&reply.error), "region Sandbox not found");
    am_remoteadmin_reply_free(&reply);
}

/* The region's error text is kept whole (it was cut at 255 bytes when the reply held it in a
 * fixed array), and the password is masked wherever it stands in it, here at byte 1200. */
static void test_a_long_region_error_is_kept_whole_and_masked(void **state)
{
    fixture *f = *state;
    char text[1601];
    for (size_t i = 0; i < 1600; i++)
        text[i] = (char)('a' + i % 26);
    memcpy(text + 1200, PASSWORD, strlen(PASSWORD));
    memcpy(text + 1597, "END", 3);
    text[1600] = '\0';
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<methodResponse><params><param><value><struct>"
             "<member><name>loaded</name><value><boolean>0</boolean></value></member>"
             "<member><name>error</name><value><string>%s</string></value></member>"
             "</struct></value></param></params></methodResponse>",
             text);
    f->r.reply = xml;
    am_remoteadmin_load_oar req = {"/x.oar", "R", NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, NULL, &err), AM_ERR_INVALID);
    assert_int_equal(reply.error.length, 1600);
    assert_int_equal(strlen(am_str(&reply.error)), 1600);
    assert_null(strstr(am_str(&reply.error), PASSWORD));
    for (size_t i = 0; i < strlen(PASSWORD); i++)
        assert_int_equal(reply.error.data[1200 + i], '*');
    assert_memory_equal(reply.error.data, text, 1200);
    assert_string_equal(reply.error.data + 1200 + strlen(PASSWORD), text + 1200 + strlen(PASSWORD));
    assert_null(strstr(err.msg, PASSWORD));
    am_remoteadmin_reply_free(&reply);
    assert_null(reply.error.data);
    am_remoteadmin_reply_free(&reply); /* twice is fine */
}

static void test_fault_and_malformed_and_http_errors(void **state)
{
    fixture *f = *state;
    am_remoteadmin_load_oar req = {"/x.oar", NULL, "11111111-2222-3333-4444-555555555555", true, false};
    am_remoteadmin_reply reply;
    am_error err;
    int attempts;
    f->r.reply = "<methodResponse><fault><value><struct>"
                 "<member><name>faultCode</name><value><int>-32601</int></value></member>"
                 "<member><name>faultString</name><value><string>access denied for pw-Very-Secret-9</string></value>"
                 "</member></struct></value></fault></methodResponse>";
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_ERR_INVALID);
    assert_true(reply.fault);
    assert_non_null(strstr(err.msg, "(XML-RPC fault): access denied for ****************"));
    assert_null(strstr(err.msg, PASSWORD));
    assert_string_equal(am_str(&reply.error), "access denied for ****************");
    am_remoteadmin_reply_free(&reply);

    f->r.reply = "this is not xml";
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "admin_load_oar: malformed reply (HTTP 200, not XML-RPC): this is not xml"));
    am_remoteadmin_reply_free(&reply);

    f->r.reply = "<html>oops</html>";
    f->r.status = 500;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_ERR_NETWORK);
    assert_int_equal(attempts, 1); /* a 5xx may have loaded: never sent twice */
    assert_non_null(strstr(err.msg, "admin_load_oar: HTTP 500: <html>oops</html>"));
    am_remoteadmin_reply_free(&reply);
    assert_int_equal(am_test_http_count(f->srv), 3);

    /* The region went as region_id: OpenSim reads that member (its doc comment's region_uuid
     * is never read: "no region_name or region_id given"). */
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    assert_non_null(strstr(rq.body, "<name>region_id</name><value><string>11111111-2222-3333-4444-555555555555"));
    assert_null(strstr(rq.body, "region_uuid"));
    assert_null(strstr(rq.body, "region_name"));
    free(rq.body);
}

static void test_refused_connection_is_retried(void **state)
{
    fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/", am_test_closed_port());
    f->opt.url = url;
    am_remoteadmin_load_oar req = {"/x.oar", "R", NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    int attempts;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_ERR_NETWORK);
    assert_int_equal(attempts, 4); /* 3 retries by default, as for WorldBridge */
    assert_non_null(strstr(err.msg, "admin_load_oar: connection refused after 4 attempts"));
    am_remoteadmin_reply_free(&reply);
}

static void test_parse_reply_variants(void **state)
{
    (void)state;
    am_remoteadmin_reply r;
    am_error err;
    const char *ok_int = "<methodResponse><params><param><value><struct><member><name>success</name><value>"
                         "<i4>1</i4></value></member></struct></value></param></params></methodResponse>";
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)ok_int, strlen(ok_int), &r, &err), AM_OK);
    assert_true(r.loaded);
    am_remoteadmin_reply_free(&r);
    const char *no_struct = "<methodResponse><params><param><value><string>x</string></value></param></params>"
                            "</methodResponse>";
    const char *threw = "<methodResponse><params><param><value><struct>"
                        "<member><name>loaded</name><value><boolean>1</boolean></value></member>"
                        "<member><name>success</name><value><boolean>0</boolean></value></member>"
                        "<member><name>error</name><value>no such file</value></member>"
                        "</struct></value></param></params></methodResponse>";
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)threw, strlen(threw), &r, &err), AM_OK);
    assert_false(r.loaded);
    assert_string_equal(am_str(&r.error), "no such file"); /* a bare <value> is a string */
    am_remoteadmin_reply_free(&r);
    const char *both = "<methodResponse><params><param><value><struct>"
                       "<member><name>success</name><value><boolean>1</boolean></value></member>"
                       "<member><name>loaded</name><value><boolean>0</boolean></value></member>"
                       "</struct></value></param></params></methodResponse>";
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)both, strlen(both), &r, &err), AM_OK);
    assert_false(r.loaded);
    am_remoteadmin_reply_free(&r);
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)no_struct, strlen(no_struct), &r, &err),
                     AM_ERR_INVALID);
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)"", 0, &r, &err), AM_ERR_INVALID);
}

static void test_missing_password_or_region_is_a_usage_error(void **state)
{
    fixture *f = *state;
    am_remoteadmin_load_oar req = {"/x.oar", "R", NULL, true, false};
    am_remoteadmin_reply reply;
    am_error err;
    f->opt.password = NULL;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, NULL, &err), AM_ERR_USAGE);
    assert_non_null(strstr(err.msg, "OPENSIM_REMOTEADMIN_PASSWORD"));
    f->opt.password = PASSWORD;
    req.region_name = NULL;
    assert_int_equal(am_remoteadmin_load_oar_call(&f->opt, &req, &reply, NULL, &err), AM_ERR_USAGE);
    assert_int_equal(am_test_http_count(f->srv), 0);
}

static void test_save_request_and_saved_reply(void **state)
{
    fixture *f = *state;
    f->r.reply = LOADED("0"); /* a `loaded` member means nothing to a save */
    am_remoteadmin_save_oar req = {"/tmp/x & y.oar", NULL, "7d3e9a3c-1b2f-4c5d-8e6f-0a1b2c3d4e5f"};
    am_remoteadmin_reply reply;
    am_error err;
    int attempts;
    assert_int_equal(am_remoteadmin_save_oar_call(&f->opt, &req, &reply, &attempts, &err), AM_OK);
    assert_true(reply.saved);
    am_remoteadmin_reply_free(&reply);
    am_test_http_request rq;
    am_test_http_get(f->srv, 0, &rq);
    xmlDoc *doc = call_doc(&rq, "admin_save_oar");
    expect_member(doc, "password", PASSWORD);
    expect_member(doc, "filename", "/tmp/x & y.oar");
    expect_member(doc, "region_id", "7d3e9a3c-1b2f-4c5d-8e6f-0a1b2c3d4e5f");
    assert_int_equal(member_count(doc), 3); /* no merge, no skip-assets */
    xmlFreeDoc(doc);
    free(rq.body);
    /* The region could not write there: saved false with its words. */
    f->r.reply = "<methodResponse><params><param><value><struct>"
                 "<member><name>error</name><value><string>Access to the path is denied.</string></value></member>"
                 "<member><name>saved</name><value><boolean>0</boolean></value></member>"
                 "<member><name>success</name><value><boolean>0</boolean></value></member>"
                 "</struct></value></param></params></methodResponse>";
    assert_int_equal(am_remoteadmin_parse_reply((const uint8_t *)f->r.reply, strlen(f->r.reply), &reply, &err), AM_OK);
    assert_false(reply.saved);
    assert_false(reply.loaded);
    assert_string_equal(am_str(&reply.error), "Access to the path is denied.");
    am_remoteadmin_reply_free(&reply);
}

/* No directory of ours is left in dir. */
static void expect_no_leftovers(const char *dir)
{
    char cmd[1200], out[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s'", dir);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    if (n)
        fail_msg("left in %s: %s", dir, out);
}

static void test_verify_reads_the_save_back_and_cleans_up(void **state)
{
    fixture *f = *state;
    am_test_oar_inputs t;
    am_test_oar_inputs_make(&t);
    am_buf oar = {0};
    am_error err;
    assert_int_equal(am_oar_write(&t.in, &oar, &err), AM_OK);
    am_oar_contents ours;
    assert_int_equal(am_oar_read(oar.data, oar.size, &ours, &err), AM_OK);
    char dir[512];
    am_test_tmpdir(dir, sizeof dir);
    am_oar_verify_options vo;
    am_oar_verify_options_init(&vo);
    vo.dir = dir;
    vo.appear_ms = 300;
    vo.poll_ms = 20;
    am_oar_diff d;
    /* The region saves exactly what was sent: verified. */
    f->r.save = &oar;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(d.copies, 1);
    assert_int_equal(d.assets, 4);
    am_oar_diff_free(&d);
    assert_int_equal(strncmp(f->r.saved_to, dir, strlen(dir)), 0); /* a file in a fresh directory there */
    assert_non_null(strstr(f->r.saved_to, "/animesh-verify-"));
    expect_no_leftovers(dir);
    /* A save with the texture cut short: the difference names it. */
    am_test_tar_entry e[8];
    size_t n = am_test_untar(&oar, e, 8);
    const am_test_tar_entry *order[8];
    for (size_t i = 0; i < n; i++) {
        order[i] = &e[i];
        if (strstr(e[i].path, "_texture.jp2"))
            e[i].size -= 10;
    }
    am_buf bad = {0};
    am_test_pack_tgz(order, n, &bad);
    f->r.save = &bad;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_OK);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.lines[0], "_texture.jp2: the region holds only the first"));
    am_oar_diff_free(&d);
    expect_no_leftovers(dir);
    /* A save that never arrives (the region's files are elsewhere), and one never whole. */
    f->r.save = NULL;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "is not on this machine"));
    expect_no_leftovers(dir);
    bad.size /= 2;
    f->r.save = &bad;
    vo.complete_ms = 200;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the region's save is not whole after"));
    assert_non_null(strstr(err.msg, "cut short"));
    expect_no_leftovers(dir);

    /* The attacker's turn (the region saves nothing, or not what is read): never verified,
     * never a wait past the timeouts, the folder removed with whatever was put in it. */
    f->r.save = &oar;
    vo.complete_ms = 0;
    f->r.attack = PLANT_DERIVED;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "is not on this machine"));
    assert_string_not_equal(f->r.planted, f->r.saved_to); /* the name asked for is not derivable */
    assert_int_equal(strlen(strrchr(f->r.saved_to, '/')), strlen("/region-.oar") + 32);
    expect_no_leftovers(dir);
    f->r.attack = FIFO_THERE;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a regular file (a FIFO)"));
    expect_no_leftovers(dir);
    f->r.attack = LINK_THERE;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "a symbolic link is where the region's save should be"));
    expect_no_leftovers(dir);
    f->r.attack = OLD_FILE;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "older than the request"));
    expect_no_leftovers(dir);
    /* a save owned by someone other than the region's user */
    f->r.attack = HONEST;
    vo.region_uid = (long)getuid() + 1;
    assert_int_equal(am_oar_verify(&f->opt, "Sandbox", NULL, &ours, &vo, &d, &err), AM_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the region_uid option"));
    expect_no_leftovers(dir);
    rmdir(dir);
    am_test_tar_free(e, n);
    am_buf_free(&bad);
    am_oar_contents_free(&ours);
    am_buf_free(&oar);
    am_test_oar_inputs_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_request_shape_and_loaded_true, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loaded_false_reports_the_region_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_long_region_error_is_kept_whole_and_masked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_and_malformed_and_http_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_connection_is_retried, setup, teardown),
        cmocka_unit_test(test_parse_reply_variants),
        cmocka_unit_test_setup_teardown(test_missing_password_or_region_is_a_usage_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_save_request_and_saved_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verify_reads_the_save_back_and_cleans_up, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
