#include "core/xml_doc.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* What the callbacks saw; lives on am_xml_read's stack (the parser's _private). */
typedef struct xml_guard {
    const am_xml_rules *rules;
    startElementNsSAX2Func start; /* libxml2's own tree builder */
    size_t nodes; /* elements and attributes so far */
    enum { GUARD_OK, GUARD_DOCTYPE, GUARD_DEEP, GUARD_MANY } stop;
    int line;
} xml_guard;

static void guard_stop(xmlParserCtxtPtr px, xml_guard *g, int why)
{
    if (g->stop == GUARD_OK) {
        g->stop = why;
        g->line = xmlSAX2GetLineNumber(px);
    }
    xmlStopParser(px);
}

/* Called at "<!DOCTYPE name ...", before the internal subset's first declaration. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id)
{
    (void)name, (void)external_id, (void)system_id;
    xmlParserCtxtPtr px = ctx;
    guard_stop(px, px->_private, GUARD_DOCTYPE);
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int nb_namespaces,
                     const xmlChar **namespaces, int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr px = ctx;
    xml_guard *g = px->_private;
    /* px->nodeNr is the number of open elements: this one's depth minus one. */
    if (px->nodeNr >= g->rules->max_depth) {
        guard_stop(px, g, GUARD_DEEP);
        return;
    }
    g->nodes += 1 + (size_t)(nb_attributes > 0 ? nb_attributes : 0);
    if (g->rules->budget_bytes && g->nodes > g->rules->budget_bytes / AM_XML_NODE_COST) {
        guard_stop(px, g, GUARD_MANY);
        return;
    }
    g->start(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes, nb_defaulted, attributes);
}

static am_status doctype_refused(am_error *err, int line)
{
    am_fail(err, AM_ERR_INVALID,
            "a document type declaration <!DOCTYPE> (line %d) is not accepted: no DTD and no entities are read", line);
    return AM_ERR_INVALID;
}

/* An entity reference node anywhere (iterative walk: the depth is bounded, the stack too). */
static bool has_entity_ref(const xmlNode *root)
{
    const xmlNode *n = root;
    while (n) {
        if (n->type == XML_ENTITY_REF_NODE || n->type == XML_ENTITY_NODE || n->type == XML_ENTITY_DECL)
            return true;
        if (n->type == XML_ELEMENT_NODE && n->children) {
            n = n->children;
            continue;
        }
        while (n && n != root && !n->next)
            n = n->parent;
        if (!n || n == root)
            break;
        n = n->next;
    }
    return false;
}

am_status am_xml_read(const void *data, size_t size, const char *source, const am_xml_rules *rules, xmlDoc **doc,
                      am_error *err)
{
    return am_xml_read_at(data, size, source, rules, doc, NULL, err);
}

/* libxml2's one-time set-up (its thread-local error state among it) is not reentrant: done
 * once before the first parse, as documents are read on several threads at once (a bind
 * reads the viewer skeleton while it reads a COLLADA mesh). The once-flag is the only
 * state: it guards libxml2's own. */
static pthread_once_t xml_ready = PTHREAD_ONCE_INIT;
static void xml_init(void) { xmlInitParser(); }

am_status am_xml_read_at(const void *data, size_t size, const char *source, const am_xml_rules *rules, xmlDoc **doc,
                         int *line, am_error *err)
{
    pthread_once(&xml_ready, xml_init);
    *doc = NULL;
    if (line)
        *line = 0;
    if (size > INT_MAX) {
        am_fail(err, AM_ERR_INVALID, "%zu bytes is too large for the XML parser", size);
        am_error_where(err, "%s", source);
        return AM_ERR_INVALID;
    }
    xmlParserCtxtPtr px = xmlNewParserCtxt();
    if (!px || !px->sax) {
        xmlFreeParserCtxt(px);
        return am_fail_nomem(err, "XML parser");
    }
    xml_guard g = {.rules = rules, .start = px->sax->startElementNs};
    px->_private = &g;
    px->sax->internalSubset = on_doctype;
    px->sax->startElementNs = on_start;
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | rules->extra_options;
    if (rules->long_text)
        options |= XML_PARSE_HUGE;
    options &= ~(XML_PARSE_NOENT | XML_PARSE_DTDLOAD | XML_PARSE_DTDATTR | XML_PARSE_DTDVALID | XML_PARSE_XINCLUDE);
    xmlDoc *d = xmlCtxtReadMemory(px, data, (int)size, NULL, rules->encoding, options);
    am_status st = AM_OK;
    if (g.stop == GUARD_DOCTYPE) {
        st = doctype_refused(err, g.line);
    } else if (g.stop == GUARD_DEEP) {
        am_fail(err, AM_ERR_INVALID, "elements nested deeper than %d levels (line %d)", rules->max_depth, g.line);
        st = AM_ERR_INVALID;
    } else if (g.stop == GUARD_MANY) {
        am_fail(err, AM_ERR_INVALID,
                "memory budget of %zu MiB exceeded while reading the XML tree (over %zu elements and attributes, "
                "line %d)",
                rules->budget_bytes >> 20, rules->budget_bytes / AM_XML_NODE_COST, g.line);
        st = AM_ERR_INVALID;
    } else if (!d) {
        const xmlError *xe = xmlCtxtGetLastError(px);
        char msg[160] = "unreadable";
        if (xe && xe->message) {
            snprintf(msg, sizeof msg, "%s", xe->message);
            size_t n = strlen(msg);
            while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
                msg[--n] = '\0';
        }
        am_fail(err, AM_ERR_INVALID, "not XML (line %d: %s)", xe ? xe->line : 0, msg);
        st = AM_ERR_INVALID;
        g.line = xe ? xe->line : 0;
    } else if (d->intSubset || d->extSubset || has_entity_ref(xmlDocGetRootElement(d))) {
        st = doctype_refused(err, 0); /* not reached through libxml2's parser; kept as a second lock */
    }
    if (st)
        am_error_where(err, "%s", source);
    if (st && line)
        *line = g.line;
    xmlFreeParserCtxt(px);
    if (st) {
        xmlFreeDoc(d);
        return st;
    }
    *doc = d;
    return AM_OK;
}
