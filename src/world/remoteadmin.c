#include "world/remoteadmin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/xml_doc.h"
#include "world/http.h"

void am_remoteadmin_options_init(am_remoteadmin_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->connect_timeout_ms = AM_REMOTEADMIN_DEFAULT_CONNECT_TIMEOUT_MS;
    opt->total_timeout_ms = AM_REMOTEADMIN_DEFAULT_TOTAL_TIMEOUT_MS;
    opt->max_attempts = AM_REMOTEADMIN_DEFAULT_RETRIES + 1;
    opt->backoff_ms = AM_REMOTEADMIN_DEFAULT_BACKOFF_MS;
}

void am_remoteadmin_options_from_env(am_remoteadmin_options *opt)
{
    const char *pw = getenv("OPENSIM_REMOTEADMIN_PASSWORD");
    if (pw && pw[0])
        opt->password = pw;
}

static am_status esc(am_buf *b, const char *s, am_error *err)
{
    am_status st = AM_OK;
    for (; *s && !st; s++) {
        switch (*s) {
        case '&': st = am_buf_append(b, "&amp;", 5, err); break;
        case '<': st = am_buf_append(b, "&lt;", 4, err); break;
        case '>': st = am_buf_append(b, "&gt;", 4, err); break;
        default: st = am_buf_append(b, s, 1, err); break;
        }
    }
    return st;
}

static am_status member(am_buf *b, const char *name, const char *value, am_error *err)
{
    am_status s = am_buf_printf(b, err, "<member><name>%s</name><value><string>", name);
    if (!s)
        s = esc(b, value, err);
    if (!s)
        s = am_buf_printf(b, err, "</string></value></member>\n");
    return s;
}

/* The methodCall for `method`: password, filename, the region and, for a load, merge and skip-assets. */
static am_status request(const char *method, const char *password, const char *filename, const char *region_name,
                         const char *region_id, const am_remoteadmin_load_oar *load, am_buf *out, am_error *err)
{
    if (!filename || !filename[0])
        return am_fail(err, AM_ERR_USAGE, "%s needs a file name or URL", method);
    if (!(region_name && region_name[0]) && !(region_id && region_id[0]))
        return am_fail(err, AM_ERR_USAGE, "%s needs a region name or UUID", method);
    am_status s = am_buf_printf(out, err,
                                "<?xml version=\"1.0\"?>\n<methodCall><methodName>%s</methodName>"
                                "<params><param><value><struct>\n",
                                method);
    if (!s)
        s = member(out, "password", password ? password : "", err);
    if (!s)
        s = member(out, "filename", filename, err);
    if (!s && region_name && region_name[0])
        s = member(out, "region_name", region_name, err);
    if (!s && region_id && region_id[0])
        s = member(out, "region_id", region_id, err);
    if (!s && load)
        s = member(out, "merge", load->merge ? "true" : "false", err);
    if (!s && load)
        s = member(out, "skip-assets", load->skip_assets ? "true" : "false", err);
    if (!s)
        s = am_buf_printf(out, err, "</struct></value></param></params></methodCall>\n");
    return s;
}

am_status am_remoteadmin_load_oar_request(const am_remoteadmin_load_oar *req, const char *password, am_buf *out,
                                          am_error *err)
{
    return request("admin_load_oar", password, req->filename, req->region_name, req->region_id, req, out, err);
}

am_status am_remoteadmin_save_oar_request(const am_remoteadmin_save_oar *req, const char *password, am_buf *out,
                                          am_error *err)
{
    return request("admin_save_oar", password, req->filename, req->region_name, req->region_id, NULL, out, err);
}

static xmlNode *child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
            return c;
    return NULL;
}

/* The scalar inside <value>: its whole text (xmlFree it; NULL when there is none or memory
 * ran out) and its type element name ("string" when bare). */
static xmlChar *scalar(xmlNode *value, const char **type)
{
    xmlNode *t = NULL;
    for (xmlNode *c = value ? value->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) {
            t = c;
            break;
        }
    *type = t ? (const char *)t->name : "string";
    return t || value ? xmlNodeGetContent(t ? t : value) : NULL;
}

static bool truthy(const char *type, const char *v)
{
    while (*v == ' ' || *v == '\n' || *v == '\t' || *v == '\r')
        v++;
    if (strcmp(type, "boolean") == 0 || strcmp(type, "int") == 0 || strcmp(type, "i4") == 0)
        return atoi(v) != 0;
    return strncmp(v, "true", 4) == 0 || strncmp(v, "True", 4) == 0;
}

void am_remoteadmin_reply_free(am_remoteadmin_reply *reply)
{
    if (reply)
        am_string_free(&reply->error);
}

am_status am_remoteadmin_parse_reply(const uint8_t *xml, size_t size, am_remoteadmin_reply *out, am_error *err)
{
    memset(out, 0, sizeof *out);
    if (size > 0x7fffffff)
        return am_fail(err, AM_ERR_INVALID, "reply too large");
    /* An XML-RPC reply nests about ten levels; no DTD or entity is read (core/xml_doc.h). */
    const am_xml_rules rules = {.max_depth = 255, .budget_bytes = (size_t)16 << 20};
    xmlDoc *doc;
    am_error xe;
    if (am_xml_read(xml, size, "reply.xml", &rules, &doc, &xe))
        return am_fail(err, AM_ERR_INVALID, "not an XML-RPC methodResponse (%s)", xe.msg);
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "methodResponse") != 0) {
        xmlFreeDoc(doc);
        return am_fail(err, AM_ERR_INVALID, "not an XML-RPC methodResponse");
    }
    xmlNode *fault = child(root, "fault");
    xmlNode *st = fault ? child(child(fault, "value"), "struct")
                        : child(child(child(child(root, "params"), "param"), "value"), "struct");
    if (!st) {
        xmlFreeDoc(doc);
        return am_fail(err, AM_ERR_INVALID, "XML-RPC reply without a struct");
    }
    out->fault = fault != NULL;
    /* OpenSim answers {success, loaded} on success and {success: false, error} when the
     * load threw: `loaded` decides when present, `success` otherwise, and a false
     * `success` always wins. */
    int loaded = -1, saved = -1, success = -1;
    for (xmlNode *m = st->children; m; m = m->next) {
        if (m->type != XML_ELEMENT_NODE || strcmp((const char *)m->name, "member") != 0)
            continue;
        xmlNode *nm = child(m, "name");
        xmlChar *name = nm ? xmlNodeGetContent(nm) : NULL;
        const char *type;
        xmlChar *text = scalar(child(m, "value"), &type);
        const char *v = text ? (const char *)text : "";
        bool kept = true;
        if (name) {
            const char *n = (const char *)name;
            if (!fault && strcmp(n, "loaded") == 0)
                loaded = truthy(type, v);
            else if (!fault && strcmp(n, "saved") == 0)
                saved = truthy(type, v);
            else if (!fault && strcmp(n, "success") == 0)
                success = truthy(type, v);
            else if (strcmp(n, "error") == 0 || strcmp(n, "faultString") == 0)
                kept = am_string_set(&out->error, v);
        }
        xmlFree(text);
        xmlFree(name);
        if (!kept) {
            xmlFreeDoc(doc);
            am_remoteadmin_reply_free(out);
            return am_fail_nomem(err, "the reply's error text");
        }
    }
    out->loaded = (loaded >= 0 ? loaded == 1 : success == 1) && success != 0;
    out->success = !fault && success != 0; /* 0.9.2.2 answers a console command with an empty struct */
    out->saved = (saved >= 0 ? saved == 1 : success == 1) && success != 0;
    xmlFreeDoc(doc);
    return AM_OK;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* What a reply must say: `loaded`, `saved`, or (a console command) `success`. */
typedef enum ra_judge { RA_LOADED, RA_SAVED, RA_SUCCESS } ra_judge;

/* Post body to the region and judge the reply. */
static am_status call(const am_remoteadmin_options *opt, const char *method, ra_judge judge, const am_buf *body,
                      am_remoteadmin_reply *reply, int *attempts, am_error *err)
{
    am_status s = AM_OK;
    /* The password never leaves the process: every text quoting the region is masked
     * before it is cut (core/secret.h); the reply's error text is kept whole. */
    am_secrets sec = {{opt->password}};
    char shown[512];
    am_http_redact_url(opt->url, shown, sizeof shown);
    am_secret_mask(shown, &sec, strlen(shown) + 1 >= sizeof shown);
    /* zero fields are the defaults (remoteadmin.h) */
    am_http_request hr = {opt->url, "text/xml", NULL, body->data, body->size,
                          am_option_int(opt->connect_timeout_ms, AM_REMOTEADMIN_DEFAULT_CONNECT_TIMEOUT_MS),
                          am_option_int(opt->total_timeout_ms, AM_REMOTEADMIN_DEFAULT_TOTAL_TIMEOUT_MS)};
    int max = (int)am_option_int(opt->max_attempts, AM_REMOTEADMIN_DEFAULT_RETRIES + 1);
    long delay = am_option_int(opt->backoff_ms, AM_REMOTEADMIN_DEFAULT_BACKOFF_MS);
    max = max < 1 ? 1 : max;
    delay = delay < 0 ? 0 : delay;
    for (int attempt = 1;; attempt++) {
        am_http_reply rep;
        if ((s = am_http_post(&hr, &rep, err)))
            break;
        if (attempts)
            *attempts = attempt;
        if (rep.failure == AM_HTTP_REFUSED && attempt < max) {
            am_http_reply_free(&rep);
            sleep_ms(delay);
            delay = delay * 2 > AM_REMOTEADMIN_MAX_BACKOFF_MS ? AM_REMOTEADMIN_MAX_BACKOFF_MS : delay * 2;
            continue;
        }
        char snip[100];
        am_http_snippet(&rep.body, 80, &sec, snip, sizeof snip);
        am_secret_mask(rep.detail, &sec, strlen(rep.detail) + 1 >= sizeof rep.detail);
        if (rep.failure != AM_HTTP_REPLIED) {
            s = am_fail(err, AM_ERR_NETWORK, "%s: %s after %d attempt%s (%s)", method,
                        am_http_failure_text(rep.failure), attempt, attempt == 1 ? "" : "s", rep.detail);
        } else if (rep.status < 200 || rep.status > 299) {
            s = am_fail(err, AM_ERR_NETWORK, "%s: HTTP %ld: %s", method, rep.status, snip[0] ? snip : "(empty body)");
        } else if ((s = am_remoteadmin_parse_reply(rep.body.data, rep.body.size, reply, NULL))) {
            s = s == AM_ERR_NOMEM ? am_fail_nomem(err, "the region's reply")
                                  : am_fail(err, AM_ERR_INVALID, "%s: malformed reply (HTTP %ld, not XML-RPC): %s",
                                            method, rep.status, snip[0] ? snip : "(empty body)");
        } else {
            if (reply->error.data) /* kept whole, so masked whole */
                am_secret_mask(reply->error.data, &sec, false);
            if (!(judge == RA_SAVED ? reply->saved : judge == RA_LOADED ? reply->loaded : reply->success))
                s = am_fail(err, AM_ERR_INVALID, "%s: the region did not %s%s: %s", method,
                            judge == RA_SAVED ? "save the archive" : judge == RA_LOADED ? "load the archive"
                                                                                     : "run the command",
                            reply->fault ? " (XML-RPC fault)" : "",
                            !am_string_empty(&reply->error) ? am_str(&reply->error) : "(no error text)");
        }
        am_http_reply_free(&rep);
        if (s)
            am_error_where(err, "%s", shown);
        break;
    }
    return s;
}

/* What both calls check before sending anything. */
static am_status preflight(const am_remoteadmin_options *opt, am_error *err)
{
    if (!opt->url || (strncmp(opt->url, "http://", 7) != 0 && strncmp(opt->url, "https://", 8) != 0))
        return am_fail(err, AM_ERR_USAGE, "RemoteAdmin URL must start with http:// or https://");
    if (!opt->password)
        return am_fail(err, AM_ERR_USAGE, "no RemoteAdmin password: set OPENSIM_REMOTEADMIN_PASSWORD");
    return AM_OK;
}

/* Check, build, send, judge: one admin_* call (a save when load is NULL). */
static am_status call_method(const am_remoteadmin_options *opt, const char *method, const char *filename,
                             const char *region_name, const char *region_id, const am_remoteadmin_load_oar *load,
                             am_remoteadmin_reply *reply, int *attempts, am_error *err)
{
    memset(reply, 0, sizeof *reply);
    am_error_clear(err);
    if (attempts)
        *attempts = 0;
    am_buf body = {0};
    am_status s = preflight(opt, err);
    if (!s)
        s = request(method, opt->password, filename, region_name, region_id, load, &body, err);
    if (!s)
        s = call(opt, method, load ? RA_LOADED : RA_SAVED, &body, reply, attempts, err);
    am_buf_free(&body);
    return s;
}

am_status am_remoteadmin_load_oar_call(const am_remoteadmin_options *opt, const am_remoteadmin_load_oar *req,
                                       am_remoteadmin_reply *reply, int *attempts, am_error *err)
{
    return call_method(opt, "admin_load_oar", req->filename, req->region_name, req->region_id, req, reply, attempts,
                       err);
}

am_status am_remoteadmin_save_oar_call(const am_remoteadmin_options *opt, const am_remoteadmin_save_oar *req,
                                       am_remoteadmin_reply *reply, int *attempts, am_error *err)
{
    return call_method(opt, "admin_save_oar", req->filename, req->region_name, req->region_id, NULL, reply, attempts,
                       err);
}

am_status am_remoteadmin_console_call(const am_remoteadmin_options *opt, const char *command,
                                      am_remoteadmin_reply *reply, int *attempts, am_error *err)
{
    memset(reply, 0, sizeof *reply);
    am_error_clear(err);
    if (attempts)
        *attempts = 0;
    if (!command || !command[0] || strpbrk(command, "\r\n"))
        return am_fail(err, AM_ERR_USAGE, "admin_console_command needs one line of command");
    am_buf body = {0};
    am_status s = preflight(opt, err);
    if (!s)
        s = am_buf_printf(&body, err,
                          "<?xml version=\"1.0\"?>\n<methodCall><methodName>admin_console_command</methodName>"
                          "<params><param><value><struct>\n");
    if (!s)
        s = member(&body, "password", opt->password, err);
    if (!s)
        s = member(&body, "command", command, err);
    if (!s)
        s = am_buf_printf(&body, err, "</struct></value></param></params></methodCall>\n");
    if (!s)
        s = call(opt, "admin_console_command", RA_SUCCESS, &body, reply, attempts, err);
    am_buf_free(&body);
    return s;
}
