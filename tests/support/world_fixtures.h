/* Small fixtures for the world-path tests (WorldBridge, OAR, RemoteAdmin). */
#ifndef AM_TEST_WORLD_FIXTURES_H
#define AM_TEST_WORLD_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

/* A minimal valid .anim (version 1.0) built byte by byte from anim.md section 2: priority 4,
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

#endif
