/* Shared pieces of the COLLADA reader (collada_read.c: document, ids, numbers, nodes;
 * collada_material.c: materials and images; collada_geom.c: primitives and welding;
 * collada_skin.c: controllers and joint positions). Not a public API: use collada.h. */
#ifndef AM_READERS_COLLADA_INTERNAL_H
#define AM_READERS_COLLADA_INTERNAL_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "readers/collada/collada.h"
#include "scene/scene.h"

typedef struct am_dae_id {
    const char *id;
    xmlNode *node;
    size_t order;           /* document order (the first of equal ids wins) */
} am_dae_id;

/* One mesh being built: per face the welded vertices, then the scene mesh. */
typedef struct am_dae_ctx {
    const char *source;     /* file name for messages */
    const char *base_dir;
    am_scene *scene;
    am_error *err;
    xmlNode *root;          /* <COLLADA> */
    xmlNode *visual_scene;  /* the first <visual_scene> (the uploader's getDescendant) */
    am_dae_id *ids;            /* every element with an id, sorted by id */
    size_t id_count;
    xmlNode **node_xml;     /* per scene node, its <node> element */
    xmlNode **mesh_xml;     /* per scene mesh, its <geometry> element */
    xmlNode **material_xml; /* per scene material, the <material> bound (NULL: none) */
    /* per scene mesh: its COLLADA positions (the <vertices> POSITION source's float_array,
     * 3 per position, as the uploader reads them) and that source's accessor count */
    float **mesh_positions;
    size_t *mesh_position_count;
    size_t *mesh_accessor_count;
    size_t values_read;     /* numbers decoded so far (AM_COLLADA_MAX_VALUES) */
} am_dae_ctx;

/* --- XML helpers (collada_read.c) --- */
bool am_dae_is(const xmlNode *n, const char *name);
/* XML white space as the number lists use it (inline: it runs once per character of
 * every float_array and <p>). */
static inline bool am_dae_is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}
xmlNode *am_dae_child(const xmlNode *n, const char *name);           /* first element child */
xmlNode *am_dae_next(const xmlNode *n, const char *name);            /* next element sibling */
const char *am_dae_attr(const xmlNode *n, const char *name);         /* borrowed, NULL if absent */
/* The element an URI fragment ("#id") or a bare id names, NULL when none. */
xmlNode *am_dae_find_id(const am_dae_ctx *c, const char *ref);
/* An element's text without leading/trailing white space, copied into buf (cut to fit). */
const char *am_dae_text_trim(const xmlNode *n, char *buf, size_t size);
/* "<tag id='x'>/<child> (line N)" for messages. */
const char *am_dae_path(const xmlNode *n, char *buf, size_t size);
/* Fail with AM_ERR_INVALID: message prefixed by the element's path, where = the file. */
am_status am_dae_fail(am_dae_ctx *c, const xmlNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The numbers of an element's text. Doubles / unsigned ints; *out malloc'd (NULL with
 * count 0 when empty). A token that is not a number fails naming the element. */
am_status am_dae_doubles(am_dae_ctx *c, const xmlNode *n, double **out, size_t *count);
am_status am_dae_ints(am_dae_ctx *c, const xmlNode *n, long long **out, size_t *count);
/* A fixed count of doubles (translate 3, rotate 4, matrix 16); fails otherwise. */
am_status am_dae_fixed(am_dae_ctx *c, const xmlNode *n, double *out, size_t want);
/* COLLADA row-major matrix (column vectors) -> LL layout: m[4i + j] = dom[i + 4j]. */
am_mat4 am_dae_ll_matrix(const double dom[16]);

/* --- materials (collada_material.c) --- */
/* The first instance (<instance_geometry>, or <instance_controller> of a skin on it) of a
 * geometry in the scene's nodes, NULL when none. */
xmlNode *am_dae_instance_of_geometry(const am_dae_ctx *c, const xmlNode *geom);
/* Scene material of a face's `material` symbol in a geometry, through the instance's
 * <bind_material> (one entry per symbol and target). -1 without a symbol; *st set on error. */
int am_dae_material_for(am_dae_ctx *c, const xmlNode *geom, const char *symbol, am_status *st);

/* --- geometry (collada_geom.c) --- */
/* Read every <geometry><mesh> into scene meshes (faces welded and sorted as the uploader
 * does); fills c->mesh_xml. Materials are resolved later (collada_read.c). */
am_status am_dae_read_geometries(am_dae_ctx *c);
/* The <source> element an <input> (or a <vertices> input) points to. */
xmlNode *am_dae_input_source(am_dae_ctx *c, const xmlNode *input);

/* --- skins (collada_skin.c) --- */
/* Every <controller><skin>: the controller verification, joints, inverse binds, bind
 * shape, influences onto the meshes' vertices, skeleton roots and upload positions. */
am_status am_dae_read_skins(am_dae_ctx *c);
/* Scene node index of a <node> element, -1 when it is not one. */
int am_dae_node_index(const am_dae_ctx *c, const xmlNode *n);

#endif
