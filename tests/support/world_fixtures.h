/* Small fixtures for the world-path tests (WorldBridge, OAR, RemoteAdmin). */
#ifndef AM_TESTS_SUPPORT_WORLD_FIXTURES_H
#define AM_TESTS_SUPPORT_WORLD_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "core/io.h"
#include "world/oar.h"

/* A minimal valid .anim (version 1.0) built byte by byte from docs/reference/anim-format.md#byte-layout: priority 4,
 * `duration` seconds, looping, one joint with two identity rotation keys (t = 0 and t =
 * duration) and no position keys, no constraints. Returns the byte count (<= cap). */
size_t am_test_tiny_anim(uint8_t *out, size_t cap, const char *joint, float duration);

/* "<source>/assets/world/tri.meshdata.json": one skinned triangle (mPelvis, mTorso). */
const char *am_test_tri_meshdata_path(char *buf, size_t size);

/* The text of the single node an XPath expression selects in doc (fails the test
 * otherwise); the caller frees it. */
char *am_test_xpath_text(xmlDoc *doc, const char *expr);

/* Scrub proxy variables so curl in tests (and the CLI they run) talks to 127.0.0.1 directly. */
void am_test_no_proxy(void);

/* Real inputs for an archive that passes am_oar_check: the viewer-made rigged cube from
 * ../shared/data/mesh, the stock "yes_head" .anim from ../shared/data/anim (played by the
 * starter script), and a 4x4 lossless texture from our JPEG-2000 encoder. `in` is ready for
 * am_oar_write (object "cube" at 100,100,30). Free with am_test_oar_inputs_free. */
typedef struct am_test_oar_inputs {
    uint8_t *mesh, *anim;
    size_t mesh_size, anim_size;
    am_buf texture;
    am_oar_anim anims[1];
    am_oar_input in;
} am_test_oar_inputs;
void am_test_oar_inputs_make(am_test_oar_inputs *t);
void am_test_oar_inputs_free(am_test_oar_inputs *t);

/* An archive's entries (libarchive, gzip + tar), in order; data NUL-terminated. */
typedef struct am_test_tar_entry {
    char path[256];
    uint8_t *data;
    size_t size;
} am_test_tar_entry;
size_t am_test_untar(const am_buf *oar, am_test_tar_entry *entries, size_t cap);
void am_test_tar_free(am_test_tar_entry *entries, size_t n);
/* Write entries as strict ustar + gzip (libarchive), appended to out. */
void am_test_pack_tgz(const am_test_tar_entry *const *entries, size_t n, am_buf *out);

/* The entry whose data holds the last byte the first `cut` bytes of a .oar inflate to, found by
 * hand (zlib with a sync flush, then the 512-byte ustar headers); "" when the cut falls on a
 * header or the end. */
void am_test_entry_at_cut(const am_buf *oar, size_t cut, char *out, size_t size);

/* The content UUID of docs/reference/opensim-oar.md recomputed with OpenSSL and libuuid: v5 in the
 * animesh namespace of "<kind>:<sha256 hex>" (":<salt>" appended when salt is not NULL). */
void am_test_content_uuid(const char *kind, const char *salt, const void *data, size_t n, char out[37]);

/* A RemoteAdmin stand-in's admin_save_oar, done the way a region does it: when rq is an
 * admin_save_oar call, write `save` (nothing when NULL) to the filename it names, record that
 * name in saved_to, answer {saved: true} and return true; otherwise leave resp alone. */
struct am_test_http_request;
struct am_test_http_response;
bool am_test_region_save(const struct am_test_http_request *rq, const am_buf *save,
                         struct am_test_http_response *resp, char *saved_to, size_t size);

/* A two-part linkset archive made from two single-part archives (am_oar_write): the object
 * of `root` keeps its prim (animesh flag set) as the root, and the prim of `child` follows it
 * in <OtherParts><Part>, with LinkNum 2, `offset` from the root and ExtraParams holding only
 * its mesh sculpt (no animesh flag: a child prim). Both archives' assets are filed once each;
 * archive.xml is root's (so both must use the same salt). Written with libarchive as strict
 * ustar + gzip, in the order OpenSim expects (archive.xml, the object, the assets). */
void am_test_linkset_oar(const am_oar_input *root, const am_oar_input *child, const double offset[3], am_buf *out);

#endif
