#include "world_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/xpath.h>

typedef struct wr {
    uint8_t *p;
    size_t n, cap;
} wr;

static void bytes(wr *w, const void *d, size_t n)
{
    assert_true(w->n + n <= w->cap);
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void u16(wr *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bytes(w, b, 2);
}

static void u32(wr *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bytes(w, b, 4);
}

static void f32(wr *w, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    u32(w, v);
}

size_t am_test_tiny_anim(uint8_t *out, size_t cap, const char *joint, float duration)
{
    wr w = {out, 0, cap};
    u16(&w, 1);          /* version */
    u16(&w, 0);          /* sub_version */
    u32(&w, 4);          /* base priority */
    f32(&w, duration);   /* duration */
    bytes(&w, "", 1);    /* emote name: empty */
    f32(&w, 0.0f);       /* loop in */
    f32(&w, duration);   /* loop out */
    u32(&w, 1);          /* loop */
    f32(&w, 0.3f);       /* ease in */
    f32(&w, 0.3f);       /* ease out */
    u32(&w, 1);          /* hand pose */
    u32(&w, 1);          /* joints */
    bytes(&w, joint, strlen(joint) + 1);
    u32(&w, (uint32_t)-1); /* joint priority: use the base */
    u32(&w, 2);          /* rotation keys */
    for (int k = 0; k < 2; k++) {
        u16(&w, k ? 65535 : 0); /* time */
        u16(&w, 32767);         /* x, y, z = 0 -> identity */
        u16(&w, 32767);
        u16(&w, 32767);
    }
    u32(&w, 0); /* position keys */
    u32(&w, 0); /* constraints */
    return w.n;
}

const char *am_test_tri_meshdata_path(char *buf, size_t size)
{
    snprintf(buf, size, "%s/assets/world/tri.meshdata.json", AM_SOURCE_DIR);
    return buf;
}

void am_test_no_proxy(void)
{
    static const char *vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
}

char *am_test_xpath_text(xmlDoc *doc, const char *expr)
{
    xmlXPathContext *ctx = xmlXPathNewContext(doc);
    xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    if (!o || !o->nodesetval || o->nodesetval->nodeNr != 1)
        fail_msg("XPath %s: %d nodes", expr, o && o->nodesetval ? o->nodesetval->nodeNr : -1);
    xmlChar *t = xmlNodeGetContent(o->nodesetval->nodeTab[0]);
    char *r = strdup((const char *)t);
    xmlFree(t);
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return r;
}
