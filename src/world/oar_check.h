/* Reading an OpenSim archive back (docs/reference/opensim-oar.md): what `push` checks before it sends an
 * archive, what `oar` checks after writing one, and what `push --verify` reads from the
 * region's own save.
 *
 * OpenSim answers `loaded: true` for an empty, unparsable or truncated archive, and stores a
 * truncated archive's cut-short assets under their UUIDs for good (a later load skips those
 * UUIDs). So nothing leaves the machine unchecked, and a load is proven by reading back what
 * the region saved.
 *
 * am_oar_read unpacks completely or refuses, naming the entry:
 *   gzip    magic, the deflate stream, the CRC-32 and length trailer, nothing after it (zlib);
 *   tar     every header's checksum, every entry whole, the end marker (two zero blocks)
 *           (libarchive, which also reads the GNU long names OpenSim's own saves may use; it
 *           is loaded when the first archive is read, world/archive_lib.h);
 *   layout  archive.xml first (major version <= 1, as OpenSim accepts), every objects/ *.xml a
 *           SceneObjectGroup. Every SceneObjectPart element, in document order, is one part
 *           and the first is the root: that is how OpenSim's loader reads a group, with or
 *           without the RootPart / OtherParts / Part wrappers.
 *
 * am_oar_check then asks for an archive animesh can vouch for: every asset is of a kind we
 * decode (mesh, animation, texture, script) and decodes (mesh asset decoder, .anim decoder and
 * its checks, JPEG-2000 decode and size, UTF-8 text), is filed under the content UUID of its
 * bytes (digest.h, with archive.xml's salt), and every asset a part names (its mesh sculpt,
 * inventory items, default-face texture unless the stock plywood) is in the archive; a part's
 * <SculptTexture> and its ExtraParams sculpt entry name the same mesh; and the tar's entry
 * names read the same by OpenSim's TarArchiveReader as by libarchive (oar_tarnames.h: no
 * ustar prefix, pax header, NUL in a name or size field the two read differently).
 *
 * am_oar_compare finds each of our objects in a region's save (by its root's mesh) and lists
 * what differs: parts, names, positions, ExtraParams (mesh sculpt, animesh flag), default-face
 * texture, inventory (name, asset, type), and every asset byte for byte. What OpenSim changes on
 * every load is not a difference: object, part and item UUIDs, local IDs, creator and owner,
 * the TextureEntry's encoding (only the default face's texture is compared). */
#ifndef AM_WORLD_OAR_CHECK_H
#define AM_WORLD_OAR_CHECK_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/io.h"
#include "world/digest.h"
#include "world/oar.h"

/* The most am_oar_read keeps in memory (entries), a guard against gzip bombs. */
#define AM_OAR_MAX_UNPACKED ((size_t)512 << 20)
/* An OAR file is read only when it starts like gzip (1F 8B) and is no larger than what may
 * be unpacked from it (docs/formats.md "Size limits"). */
#define AM_OAR_MAX_FILE_BYTES AM_OAR_MAX_UNPACKED
extern const am_file_format am_oar_file_format;

typedef struct am_oar_entry {
    char *path;
    uint8_t *data; /* malloc'd, with one NUL byte after the data (not counted) */
    size_t size;
} am_oar_entry;

typedef struct am_oar_item {
    char *name;
    am_uuid asset;
    int type, inv_type; /* asset type (20 animation, 10 script, 0 texture), inventory type */
} am_oar_item;

typedef struct am_oar_playing { /* one entry of SOPAnims: an animation playing on load */
    am_uuid anim;
    char name[256];
} am_oar_playing;

/* ExtraParams types (PrimitiveBaseShape.cs). */
#define AM_OAR_EP_SCULPT 0x30
#define AM_OAR_EP_MESH_FLAGS 0x70
#define AM_OAR_MESH_FLAG_ANIMESH 1u

typedef struct am_oar_part {
    char *name;
    am_uuid uuid;
    double group_position[3], offset_position[3];
    int link_num;
    uint8_t *extra_params; /* the decoded ExtraParams blob */
    size_t extra_params_size;
    bool has_sculpt;       /* ExtraParams 0x30: sculpt texture (the mesh asset) and type */
    am_uuid sculpt;
    int sculpt_type;       /* 5 = mesh */
    bool has_sculpt_texture; /* <Shape><SculptTexture> as text (must name the same mesh) */
    am_uuid sculpt_texture;
    bool has_mesh_flags;   /* ExtraParams 0x70 */
    uint32_t mesh_flags;   /* bit 0 = animesh */
    bool has_texture;      /* the TextureEntry's default face */
    am_uuid texture;
    am_oar_item *items;
    size_t item_count;
    am_oar_playing *playing; /* SOPAnims */
    size_t playing_count;
} am_oar_part;

typedef struct am_oar_object {
    char *path;          /* the objects/ entry */
    am_oar_part *parts;  /* [0] is the root */
    size_t part_count;
} am_oar_object;

typedef struct am_oar_contents {
    am_oar_entry *entries; /* in archive order; [0] is archive.xml */
    size_t entry_count;
    am_oar_object *objects;
    size_t object_count;
    int major_version, minor_version;
    char salt[AM_OAR_MAX_SALT + 1]; /* archive.xml's <animesh uuid_salt>, "" when none */
} am_oar_contents;

/* Unpack and parse a .oar (see above). On failure *out is empty and err names the entry
 * ("assets/<uuid>_texture.jp2: the archive ends inside this entry ..."), or is AM_ERR_IO
 * naming libarchive when it cannot be loaded. */
am_status am_oar_read(const uint8_t *data, size_t size, am_oar_contents *out, am_error *err);
void am_oar_contents_free(am_oar_contents *c);

/* The same, keeping only the entries keep() accepts (archive.xml always; only kept objects/
 * entries are parsed): a region's save holds every object of the region and its assets, and
 * --verify needs only ours. keep sees each entry's path and bytes. */
typedef bool (*am_oar_keep_fn)(const char *path, const uint8_t *data, size_t size, void *user);
am_status am_oar_read_filtered(const uint8_t *data, size_t size, am_oar_keep_fn keep, void *user,
                               am_oar_contents *out, am_error *err);

/* The entry with this path, or NULL. */
const am_oar_entry *am_oar_find_entry(const am_oar_contents *c, const char *path);

/* An ExtraParams blob's entries (count byte; per entry LE u16 type, LE u32 size, data), bounds
 * checked: fills the sculpt and mesh-flags fields of part. */
am_status am_oar_parse_extra_params(const uint8_t *blob, size_t size, am_oar_part *part, am_error *err);

/* What am_oar_check counted. */
typedef struct am_oar_check_report {
    size_t objects, parts;
    size_t meshes, animations, textures, scripts;
} am_oar_check_report;

/* The complete check of an archive made by animesh (see above). report may be NULL. */
am_status am_oar_check(const am_oar_contents *c, am_oar_check_report *report, am_error *err);

/* am_oar_read then am_oar_check on bytes (what `push` runs on a local file). */
am_status am_oar_check_bytes(const uint8_t *data, size_t size, am_oar_check_report *report, am_error *err);

/* What a region's save says about our archive. */
typedef struct am_oar_diff {
    char **lines;        /* each difference, one line, naming the object, part or entry */
    size_t count;
    size_t copies;       /* objects in the save that carry our first object's root mesh */
    size_t parts;        /* parts of our objects */
    size_t assets;       /* our assets, each found byte-identical when count == 0 */
    bool animesh_flag;   /* every root part of ours matched carries the animesh flag */
    char playing[256];   /* names in the matched root's SOPAnims, comma-separated ("" none) */
    /* Set by am_oar_verify (oar_verify.h), not by am_oar_compare: */
    bool starter;        /* our first root holds a starter script: something should play */
    char starter_anim[256]; /* the animation it starts ("" when it cannot be read) */
    unsigned saves;      /* region saves taken */
    double waited_s;     /* from the first save to the last */
} am_oar_diff;

/* Compare our archive with a region's save. AM_OK whenever the comparison ran (check
 * diff->count); an error only for memory. */
am_status am_oar_compare(const am_oar_contents *ours, const am_oar_contents *saved, am_oar_diff *diff, am_error *err);
void am_oar_diff_free(am_oar_diff *d);

#ifdef __cplusplus
}
#endif

#endif
