/* The FBX node graph, checked before assimp reads the file.
 *
 * An FBX file lists its objects (Objects: Model, Geometry, Deformer, ...) and, apart, the
 * links between them (Connections: "C" entries, "OO" child -> parent). assimp builds its node
 * tree by walking those links down from the root (id 0): a Model linked to two parents is
 * copied, with everything below it, under each, and a loop of links never ends. So 20 levels
 * of 2 models each linked to both models above (8.6 KB) become 2^20 nodes and 5.8 GB in the
 * reader before any node count can be checked, and a cycle takes gigabytes until the memory
 * runs out (issue 31 item 3).
 *
 * am_fbx_check_graph reads just enough of the file itself, bounds-checked, to refuse such a
 * graph first: the Model objects' ids and the object-object links (what assimp's node walk
 * follows: "OO" and the like, never "OP" property links or "PP"), in binary FBX 7.x (node
 * records with 32-bit offsets, 64-bit from 7500, walked in file order: every record's
 * properties read, array contents skipped by their stored length) and in ASCII
 * FBX 7.x (keys, strings, values and braces; ';' comments). It refuses, with AM_ERR_INVALID
 * and the byte offset of the link or object concerned:
 *   - a Model linked to more than one parent (the root or Models; the same link twice counts
 *     twice, as assimp would copy twice);
 *   - Models linked in a cycle (one is its own ancestor, itself included);
 *   - more Models than AM_ASSIMP_MAX_NODES;
 *   - binary records nested deeper than AM_FBX_MAX_DEPTH, or arrays declaring more than
 *     AM_FBX_MAX_ARRAY_BYTES in all once inflated (every record's properties are read);
 *   - a binary record or property that runs past its parent or the file, an ASCII string
 *     without its closing quote or a closing brace too many (assimp would refuse these too).
 * Anything else (missing sections, objects of other kinds, links to objects not listed) is
 * left to assimp, which handles it as before. Time is linear in the file (two passes),
 * memory 56 bytes per Model. */
#ifndef AM_READERS_ASSIMP_FBX_GRAPH_H
#define AM_READERS_ASSIMP_FBX_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Records nested deeper are refused (files nest about 6; assimp recurses per level). */
#define AM_FBX_MAX_DEPTH 256
/* Binary FBX arrays (vertices, indices, ...) are stored raw or deflated with their count
 * declared: more than this once inflated is refused (a 256 MiB file of deflated zeros could
 * declare 250 GiB). */
#define AM_FBX_MAX_ARRAY_BYTES ((uint64_t)2 << 30)

typedef struct am_fbx_graph_stats {
    size_t models; /* distinct Model ids */
    size_t links;  /* object-object links from a Model to the root or a Model */
    size_t roots;  /* Models linked to the root (id 0) */
    uint64_t array_bytes; /* binary: what the arrays declare once inflated */
} am_fbx_graph_stats;

/* Check the graph of data (a whole FBX file, binary or ASCII); stats may be NULL. */
am_status am_fbx_check_graph(const uint8_t *data, size_t size, am_fbx_graph_stats *stats, am_error *err);

#endif
