/* XML documents from bytes a user gave, parsed by libxml2 so that nothing reaches beyond
 * the bytes and nothing grows past them: no network (XML_PARSE_NONET), no DTD loading and
 * no entity substitution (neither DTDLOAD nor NOENT), and any document type declaration
 * refused where libxml2 meets it, after decoding, so no encoding (UTF-16, UCS-4, EBCDIC)
 * hides one. The refusal happens in the <!DOCTYPE> callback, before a single declaration
 * inside it is parsed: no entity can exist, so entity expansion ("billion laughs") and an
 * internal entity's text in the output are both impossible. The parsed document is checked
 * again (no internal or external subset, no entity reference node).
 *
 * Elements nested deeper than the rules' max_depth are refused while parsing (libxml2's
 * own 256-level limit is lifted by XML_PARSE_HUGE, which a caller may need for long text),
 * so every tree walk over the result is bounded too. */
#ifndef AM_CORE_XML_DOC_H
#define AM_CORE_XML_DOC_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* What one element or attribute costs in libxml2's tree, with its text child and the
 * allocator's overhead (xmlNode is 120 bytes on 64-bit, xmlAttr 96, each with a text node). */
#define AM_XML_NODE_COST 256

typedef struct am_xml_rules {
    int max_depth;        /* elements nested deeper than this are refused (1 = the root alone) */
    size_t budget_bytes;  /* the tree's memory budget, counted as AM_XML_NODE_COST per element
                           * and per attribute (text is bounded by the input); 0: none */
    bool long_text;       /* XML_PARSE_HUGE: text nodes over libxml2's 10 MB cap (COLLADA arrays) */
    const char *encoding; /* NULL: as the document declares it */
    int extra_options;    /* more XML_PARSE_* flags (e.g. XML_PARSE_IGNORE_ENC) */
} am_xml_rules;

/* Parse size bytes into *doc (free with xmlFreeDoc). On failure *doc is NULL and err is
 * set (AM_ERR_INVALID, where = source): "a document type declaration <!DOCTYPE> (line L)
 * is not accepted ...", "elements nested deeper than N levels (line L)", "memory budget
 * of N MiB exceeded while reading the XML tree (...)", or "not XML (line L: libxml2's words)". */
am_status am_xml_read(const void *data, size_t size, const char *source, const am_xml_rules *rules, xmlDoc **doc,
                      am_error *err);
/* The same; *line (may be NULL) gets the failure's line (0 when it has none), for readers
 * that name it in `where` ("file.xml:3"). */
am_status am_xml_read_at(const void *data, size_t size, const char *source, const am_xml_rules *rules, xmlDoc **doc,
                         int *line, am_error *err);

#endif
